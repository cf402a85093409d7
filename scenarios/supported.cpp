#include "scenarios/supported.hpp"

#include "protocols/streams/tasks.hpp"

#include "scenarios/assignor_lists.hpp"
#include "scenarios/runner.hpp"

#include "protocols/catalog.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/text.hpp"

#include <fmt/format.h>

namespace rsim::scenario {

std::string effective_protocol(const Scenario& s, const RunOptions& o) { return o.protocol.value_or(s.protocol); }

std::string default_assignor(const Scenario& s, const std::string& protocol) {
  if (protocol == s.protocol && s.assignor) return *s.assignor;
  const auto* p = protocols::find_protocol(protocol);
  if (p == nullptr) return std::string();
  // A Streams application's classic leader runs Streams' own task assignor.
  if (!s.subtopologies.empty() && p->family == protocols::Family::Classic) return "high-availability";
  return std::string(p->default_assignor);
}

std::string effective_assignor(const Scenario& s, const RunOptions& o) {
  if (o.assignor) return *o.assignor;
  if (s.assignor && !o.protocol) return *s.assignor;
  return default_assignor(s, effective_protocol(s, o));
}

const AssignorExec* effective_exec(const Scenario& s, const RunOptions& o) {
  if (effective_assignor(s, o) != "exec") return nullptr;
  if (o.assignor_exec) return &*o.assignor_exec;
  return s.assignor_exec ? &*s.assignor_exec : nullptr;
}

// What a classic Streams application (a topology under eager or
// cooperative) does not do is refused by name.
static void check_classic_streams(const Scenario& s, const protocols::ProtocolInfo& p, const std::string& assignor) {
  if (s.subtopologies.empty()) {
    if (assignor == "high-availability")
      throw InputError(s.file, s.assignor_mark, "assignor high-availability is a Kafka Streams application's: this scenario has no topology");
    return;
  }
  if (p.name != "eager" && p.name != "cooperative")
    throw InputError(s.file, s.protocol_mark, fmt::format("this scenario has a topology: a Streams application runs under streams (KIP-1071) or, over the classic protocol, eager (Streams before 2.4) or cooperative (2.4 and later), not {}", p.name));
  if (assignor != "high-availability")
    throw InputError(s.file, s.assignor_mark, fmt::format("a classic Streams application's leader runs Streams' high-availability task assignor, not {}", assignor));
  if (s.initial_assignment)
    throw InputError(s.file, s.protocol_mark, fmt::format("initial-assignment under {} (classic Streams) is not simulated by this version yet; run it under streams or without initial-assignment", p.name));
  for (const auto& m : s.members)
    if (!m.assignors.empty()) throw InputError(s.file, m.assignors_mark, "a Streams thread's assignor is the application's (StreamsPartitionAssignor); members' assignors: lists do not apply");
}

// A Streams scenario (topology:) runs under the streams protocol or a
// classic one, and the streams protocol needs one. What a Streams group does
// not do is refused by name.
static void check_streams(const Scenario& s, const protocols::ProtocolInfo& p, const std::string& assignor) {
  const bool streams = p.family == protocols::Family::Streams;
  if (!streams) check_classic_streams(s, p, assignor);
  if (!streams && s.subtopologies.empty()) return;
  if (s.subtopologies.empty())
    throw InputError(s.file, s.protocol_mark, "protocol streams needs a topology: (sub-topologies with their source topics)");
  // The loader checks a streams scenario's initial tasks; one that names
  // another protocol and is run with --protocol streams is checked here.
  if (s.initial_assignment && s.protocol != "streams")
    for (const auto& [member, resources] : *s.initial_assignment)
      for (const auto& r : resources)
        if (!protocols::streams::parse_task(r))
          throw InputError(s.file, s.protocol_mark, fmt::format("initial-assignment gives '{}' to '{}': under streams it names tasks (0_3), so this scenario starts stable only under {}", r, member, s.protocol));
  for (const auto& ev : s.events)
    if (std::holds_alternative<Subscribe>(ev.action) || std::holds_alternative<Upgrade>(ev.action) ||
        std::holds_alternative<RollingUpgrade>(ev.action))
      throw InputError(s.file, ev.mark, fmt::format("'{}' does not apply to a Streams group (its members run the topology)", ev.kind));
}

void check_supported(const Scenario& s, const std::string& protocol, const std::string& assignor) {
  const auto* p = protocols::find_protocol(protocol);
  if (p == nullptr)
    throw InputError(s.file, s.protocol_mark, fmt::format("unknown protocol '{}'{}", protocol, did_you_mean(protocol, protocols::protocol_names())));
  if (!p->runnable)
    throw InputError(s.file, s.protocol_mark, fmt::format("protocol '{}' is part of the scenario contract but not simulated by this version yet; `rebalance-sim list` shows what runs", protocol));
  const auto* a = protocols::find_assignor(p->family, assignor);
  if (a == nullptr)
    throw InputError(s.file, s.assignor_mark, fmt::format("unknown {} assignor '{}'{}", protocols::family_name(p->family), assignor, did_you_mean(assignor, protocols::assignor_names(p->family))));
  if (!a->runnable)
    throw InputError(s.file, s.assignor_mark, fmt::format("assignor '{}' is not implemented by this version yet; `rebalance-sim list` shows what runs", assignor));
  check_streams(s, *p, assignor);
  if (!protocols::accepts(*p, assignor))
    throw InputError(s.file, s.assignor_mark, fmt::format("the {} protocol does not run assignor '{}'; it takes {}", protocol, assignor, protocols::accepted_assignors(*p)));
  for (const auto& ev : s.events) {
    std::string to;
    if (const auto* u = std::get_if<Upgrade>(&ev.action)) to = u->to;
    if (const auto* u = std::get_if<RollingUpgrade>(&ev.action)) to = u->to;
    if (to.empty() || to == protocol) continue;  // to what it speaks already: a restart
    // The loader checked the classic path (assignor_lists.hpp); under another variant it is a restart.
    if (classic_upgrade(to)) continue;
    // Online migration: classic members upgrading to the consumer protocol.
    if (to != "consumer" || p->family != protocols::Family::Classic)
      throw InputError(s.file, ev.mark, fmt::format("'{}' to {} from the {} protocol is not simulated by this version yet (only classic protocols to consumer)", ev.kind, to, protocol));
    if (!s.connectors.empty())
      throw InputError(s.file, ev.mark, fmt::format("'{}' needs a consumer group; this scenario has connectors", ev.kind));
  }
}

std::vector<std::string> protocols_for(const Scenario& s) {
  std::vector<std::string> out;
  for (const auto& p : protocols::all_protocols())
    if (p.runnable && !p.test_only && (s.subtopologies.empty() ? p.family != protocols::Family::Streams
                                                               : p.family == protocols::Family::Streams || p.name == "eager" || p.name == "cooperative"))
      out.emplace_back(p.name);
  return out;
}

// The members an upgrade event restarts speaking the consumer protocol.
std::set<std::string> upgraded_members(const Scenario& s) {
  std::set<std::string> out;
  for (const auto& ev : s.events) {
    if (const auto* u = std::get_if<Upgrade>(&ev.action); u != nullptr && !classic_upgrade(u->to))
      out.insert(u->members.begin(), u->members.end());
    if (const auto* u = std::get_if<RollingUpgrade>(&ev.action); u != nullptr && !classic_upgrade(u->to))
      out.insert(u->members.ids.begin(), u->members.ids.end());
  }
  return out;
}

}  // namespace rsim::scenario
