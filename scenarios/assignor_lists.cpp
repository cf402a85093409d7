#include "scenarios/assignor_lists.hpp"

#include "protocols/assignors/exec.hpp"
#include "protocols/catalog.hpp"
#include "scenarios/config_keys.hpp"
#include "scenarios/errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

namespace rsim::scenario {

std::vector<std::string> default_assignors(const Scenario& s) {
  if (s.assignor) return {*s.assignor};
  const auto* p = protocols::find_protocol(s.protocol);
  return {p != nullptr ? std::string(p->default_assignor) : std::string()};
}

bool classic_upgrade(const std::string& to) { return to == "eager" || to == "cooperative"; }

std::vector<std::string> upgrade_assignors(const std::vector<std::string>& given, const std::string& to) {
  if (!given.empty() || to != "cooperative") return given;
  return {"cooperative-sticky"};
}

namespace {

bool eager_or_cooperative(const std::string& protocol) { return protocol == "eager" || protocol == "cooperative"; }

// A classic upgrade that restarts its members with another list (not a plain
// restart to the protocol they speak).
bool changes_list(const Scenario& s, const std::string& to, const std::vector<std::string>& given) {
  return classic_upgrade(to) && (to != s.protocol || !given.empty());
}

// One change of a member's list, in time order: a member present at the
// start, a join, or one member's step of an upgrade.
struct ListChange {
  Duration at{0};
  std::string member;
  std::vector<std::string> assignors;  // empty: the member leaves the group
  Mark mark;
  std::string kind;
};

bool share_one(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const auto& x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

// The plug-in's supported-protocols list cooperative.
bool exec_cooperative(const Scenario& s) { return s.assignor_exec && s.assignor_exec->supports_cooperative; }

void check_upgrade(const Scenario& s, const Event& ev, const std::string& to, const std::vector<std::string>& given,
                   Mark list_mark) {
  if (!given.empty() && !classic_upgrade(to))
    throw InputError(s.file, list_mark, fmt::format("assignors apply to a classic upgrade (to: cooperative or eager); the {} protocol's assignor is the broker's", to));
  const auto* target = protocols::find_protocol(to);
  if (to != s.protocol && target != nullptr && target->family == protocols::Family::Classic && !classic_upgrade(to))
    throw InputError(s.file, ev.mark, fmt::format("'{}' to {}: Kafka has no upgrade path to the {} protocol; this version simulates eager to cooperative (KIP-429) and classic to consumer (KIP-848)", ev.kind, to, to));
  if (!classic_upgrade(to) || (to == s.protocol && given.empty())) return;  // the consumer protocol, or a restart
  if (!eager_or_cooperative(s.protocol))
    throw InputError(s.file, ev.mark, fmt::format("'{}' to {} from the {} protocol: Kafka has no such path (a consumer group goes from eager to cooperative, KIP-429, or to the consumer protocol, KIP-848)", ev.kind, to, s.protocol));
  if (s.protocol == "cooperative" && to == "eager")
    throw InputError(s.file, ev.mark, fmt::format("'{}' to eager from the cooperative protocol is a downgrade; this version simulates Kafka's documented path only, eager to cooperative (KIP-429)", ev.kind));
  const auto list = upgrade_assignors(given, to);
  const bool to_cooperative_assignor = std::any_of(list.begin(), list.end(), [&](const std::string& a) {
    return protocols::supports_cooperative_rebalance(a, exec_cooperative(s));
  });
  if (to == "cooperative" && !to_cooperative_assignor)
    throw InputError(s.file, list_mark, fmt::format("'{}' to cooperative needs cooperative-sticky (or a plug-in whose supported-protocols list cooperative) in assignors [{}] (Kafka's path: a first bounce to [cooperative-sticky, range], a second to [cooperative-sticky])", ev.kind, fmt::join(list, ", ")));
  if (to == "eager" && protocols::client_rebalance_protocol(list, exec_cooperative(s)) != "eager")
    throw InputError(s.file, list_mark, fmt::format("assignors [{}] make a cooperative client; to: eager needs an assignor that supports only the eager protocol (range, roundrobin or sticky)", fmt::join(list, ", ")));
}

std::vector<ListChange> list_changes(const Scenario& s) {
  std::vector<ListChange> out;
  for (const auto& m : s.members)
    out.push_back({m.start, m.id, m.assignors.empty() ? default_assignors(s) : m.assignors, m.assignors_mark, "members"});
  for (const auto& ev : s.events) {
    if (const auto* j = std::get_if<Join>(&ev.action))
      out.push_back({ev.at, j->member.id, j->member.assignors.empty() ? default_assignors(s) : j->member.assignors,
                     j->member.assignors.empty() ? ev.mark : j->member.assignors_mark, ev.kind});
    if (const auto* so = std::get_if<ScaleOut>(&ev.action))
      for (const auto& id : so->ids) out.push_back({ev.at, id, default_assignors(s), ev.mark, ev.kind});
    if (const auto* l = std::get_if<Leave>(&ev.action)) out.push_back({ev.at, l->member, {}, ev.mark, ev.kind});
    // A crashed member stays in the group until its session expires.
    if (const auto* c = std::get_if<Crash>(&ev.action))
      out.push_back({ev.at + config_millis(s, "session.timeout.ms"), c->member, {}, ev.mark, ev.kind});
    if (const auto* si = std::get_if<ScaleIn>(&ev.action))
      for (const auto& id : si->members) out.push_back({ev.at, id, {}, ev.mark, ev.kind});
    if (const auto* u = std::get_if<Upgrade>(&ev.action); u != nullptr && changes_list(s, u->to, u->assignors))
      for (const auto& id : u->members)
        out.push_back({ev.at, id, upgrade_assignors(u->assignors, u->to), u->assignors.empty() ? ev.mark : u->assignors_mark, ev.kind});
    if (const auto* u = std::get_if<RollingUpgrade>(&ev.action); u != nullptr && changes_list(s, u->to, u->assignors)) {
      Duration step = ev.at;
      for (const auto& id : u->members.ids) {
        out.push_back({step, id, upgrade_assignors(u->assignors, u->to), u->assignors.empty() ? ev.mark : u->assignors_mark, ev.kind});
        step += u->interval;
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  return out;
}

// ClassicGroup.supportsProtocols: a member is accepted only if one of its
// assignors is supported by every member of the group. A member's list
// counts from its start until it leaves, or until its session expires after
// a crash (a bounced member comes back with its list).
void check_common_assignor(const Scenario& s) {
  std::map<std::string, std::vector<std::string>> current;
  for (const auto& c : list_changes(s)) {
    if (c.assignors.empty()) {
      current.erase(c.member);
      continue;
    }
    for (const auto& [other, list] : current) {
      if (other == c.member || share_one(list, c.assignors)) continue;
      throw InputError(s.file, c.mark, fmt::format("member '{}' at {} lists assignors [{}], none of which member '{}' lists ([{}]): Kafka refuses its JoinGroup (INCONSISTENT_GROUP_PROTOCOL); keep an assignor in common, as the two-bounce upgrade does with [cooperative-sticky, range]",
                                                   c.member, format_duration(c.at), fmt::join(c.assignors, ", "), other, fmt::join(list, ", ")));
    }
    current[c.member] = c.assignors;
  }
}

}  // namespace

void check_assignor_lists(const Scenario& s) {
  bool lists = false;
  auto need_classic = [&](Mark mark) {
    lists = true;
    if (!eager_or_cooperative(s.protocol))
      throw InputError(s.file, mark, fmt::format("assignors lists apply to a consumer group speaking eager or cooperative (Kafka's partition.assignment.strategy); this scenario's protocol is {}", s.protocol));
    if (!s.connectors.empty()) throw InputError(s.file, mark, "assignors lists apply to consumer groups; this scenario has connectors");
  };
  for (const auto& m : s.members)
    if (!m.assignors.empty()) need_classic(m.assignors_mark);
  for (const auto& ev : s.events) {
    if (const auto* j = std::get_if<Join>(&ev.action); j != nullptr && !j->member.assignors.empty()) need_classic(j->member.assignors_mark);
    if (const auto* u = std::get_if<Upgrade>(&ev.action)) {
      check_upgrade(s, ev, u->to, u->assignors, u->assignors_mark);
      if (changes_list(s, u->to, u->assignors)) need_classic(ev.mark);
    }
    if (const auto* u = std::get_if<RollingUpgrade>(&ev.action)) {
      check_upgrade(s, ev, u->to, u->assignors, u->assignors_mark);
      if (changes_list(s, u->to, u->assignors)) need_classic(ev.mark);
    }
  }
  if (lists) check_common_assignor(s);
}

ClientAssignors::ClientAssignors(const Scenario& s, const std::string& protocol, const std::string& assignor,
                                 std::shared_ptr<protocols::PluginSession> plugin)
    : apply_(protocol != "consumer" && protocol == s.protocol && assignor == default_assignors(s).front()),
      exec_cooperative_(exec_cooperative(s)),
      plugin_(std::move(plugin)) {}

// One instance per name; the plug-in's per rebalance protocol, as it is held
// to that protocol's rules when the member leads.
const protocols::Assignor* ClientAssignors::instance(const std::string& name, const std::string& protocol) {
  if (name != "exec") {
    auto& a = assignors_[name];
    if (!a) a = protocols::make_classic_assignor(name);
    return a.get();
  }
  auto& a = assignors_["exec/" + protocol];
  if (!a) a = std::make_unique<protocols::ExecAssignor>(plugin_, protocols::AssignorSide::ClientLeader, protocol, protocol == "cooperative");
  return a.get();
}

void ClientAssignors::configure(protocols::classic::MemberConfig& c, const std::vector<std::string>& names) {
  const std::string protocol(protocols::client_rebalance_protocol(names, exec_cooperative_));
  c.assignors.clear();
  for (const auto& n : names) c.assignors.push_back(instance(n, protocol));
  auto& strategy = strategies_[protocol];
  if (!strategy) strategy = protocols::find_protocol(protocol)->make_strategy(protocols::classic::StrategySettings{});
  c.protocol = strategy.get();
}

void ClientAssignors::on_restart(protocols::classic::ClassicMember& member, const std::vector<std::string>& names) {
  if (!apply_ || names.empty()) return;
  protocols::classic::MemberConfig c;
  configure(c, names);
  member.configure_on_restart(c.assignors, c.protocol);
}

std::vector<std::string> ClientAssignors::listed(const MemberSpec& spec, const std::string& fallback) const {
  return apply_ && !spec.assignors.empty() ? spec.assignors : std::vector<std::string>{fallback};
}

}  // namespace rsim::scenario
