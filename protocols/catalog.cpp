#include "protocols/catalog.hpp"

namespace rsim::protocols {

// The classic strategies, each in its own file of protocols/classic/.
namespace classic {
std::unique_ptr<EmbeddedProtocol> make_eager_protocol(const StrategySettings&);
std::unique_ptr<EmbeddedProtocol> make_cooperative_protocol(const StrategySettings&);
std::unique_ptr<EmbeddedProtocol> make_deferred_protocol(const StrategySettings&);
std::unique_ptr<EmbeddedProtocol> make_incremental_protocol(const StrategySettings&);
std::unique_ptr<EmbeddedProtocol> make_connect_protocol(const StrategySettings&);
std::unique_ptr<EmbeddedProtocol> make_planted_bug_protocol(const StrategySettings&);
}  // namespace classic

const std::vector<ProtocolInfo>& all_protocols() {
  static const std::vector<ProtocolInfo> kProtocols{
      {"eager", Family::Classic, "range", true, "classic JoinGroup/SyncGroup; every member revokes everything (stop-the-world)",
       false, classic::make_eager_protocol},
      {"cooperative", Family::Classic, "cooperative-sticky", true, "KIP-429 simple cooperative: only moving resources stop, two rounds",
       false, classic::make_cooperative_protocol},
      {"deferred", Family::Classic, "cooperative-sticky", true, "research design (Kafka never shipped it): cooperative + a departed member's resources held for scheduled.rebalance.max.delay.ms",
       false, classic::make_deferred_protocol},
      {"incremental", Family::Classic, "cooperative-sticky", true, "research design (Kafka never shipped it): deferred + at most N moves per round, rounds spaced by an interval",
       false, classic::make_incremental_protocol},
      {"connect", Family::Classic, "connect", true, "Kafka Connect as shipped (KIP-415): lost work held for the delay, revoking rounds back off",
       false, classic::make_connect_protocol, false},
      {"consumer", Family::Consumer, "uniform", true, "KIP-848 broker-side consumer protocol: heartbeats, epochs, per-member reconciliation"},
      {"streams", Family::Streams, "sticky", true, "KIP-1071 broker-side Streams protocol: topology, tasks with standbys, state restoration"},
      {"cooperative-planted-bug", Family::Classic, "cooperative-sticky", true,
       "test only: cooperative with a planted bug (a moving partition goes to its new owner while the old one revokes it)", true,
       classic::make_planted_bug_protocol},
  };
  return kProtocols;
}

const std::vector<AssignorInfo>& all_assignors() {
  static const std::vector<AssignorInfo> kAssignors{
      {"range", Family::Classic, true, "client-side RangeAssignor: contiguous ranges per topic"},
      {"roundrobin", Family::Classic, true, "client-side RoundRobinAssignor"},
      {"sticky", Family::Classic, true, "client-side StickyAssignor (eager)"},
      {"cooperative-sticky", Family::Classic, true, "client-side CooperativeStickyAssignor"},
      {"connect", Family::Classic, true, "Kafka Connect's IncrementalCooperativeAssignor (leader-side, stateful)"},
      {"high-availability", Family::Classic, true, "Kafka Streams' HighAvailabilityTaskAssignor: the classic Streams leader's (a topology: scenario under eager or cooperative)"},
      {"uniform", Family::Consumer, true, "broker-side UniformAssignor"},
      {"range", Family::Consumer, true, "broker-side RangeAssignor"},
      {"sticky", Family::Streams, true, "broker-side StickyTaskAssignor (KIP-1071, Kafka 4.2)"},
      // A plug-in process: any side of every family.
      {"exec", Family::Classic, true, "a plug-in: your assignor as a process (assignor: {exec: [..]}, --assignor-exec)"},
      {"exec", Family::Consumer, true, "a plug-in: your assignor as a process (assignor: {exec: [..]}, --assignor-exec)"},
      {"exec", Family::Streams, true, "a plug-in: your task assignor as a process (assignor: {exec: [..]}, --assignor-exec)"},
  };
  return kAssignors;
}

bool shipped_by_kafka(std::string_view protocol) { return protocol != "deferred" && protocol != "incremental"; }

const ProtocolInfo* find_protocol(std::string_view name) {
  for (const auto& p : all_protocols())
    if (p.name == name) return &p;
  return nullptr;
}

const AssignorInfo* find_assignor(Family family, std::string_view name) {
  for (const auto& a : all_assignors())
    if (a.family == family && a.name == name) return &a;
  return nullptr;
}

std::vector<std::string_view> protocol_names() {
  std::vector<std::string_view> names;
  for (const auto& p : all_protocols())
    if (!p.test_only) names.push_back(p.name);
  return names;
}

std::vector<std::string_view> assignor_names(Family family) {
  std::vector<std::string_view> names;
  for (const auto& a : all_assignors())
    if (a.family == family) names.push_back(a.name);
  return names;
}

bool sends_instance_id(std::string_view protocol) {
  const auto* info = find_protocol(protocol);
  return info == nullptr || info->static_membership;
}

bool accepts(const ProtocolInfo& protocol, std::string_view assignor) {
  if (find_assignor(protocol.family, assignor) == nullptr) return false;
  if (protocol.family != Family::Classic) return true;
  // A plug-in is told which protocol asks and is held to its rules (exec.hpp).
  if (assignor == "exec") return true;
  if (protocol.name == "connect") return assignor == "connect";
  if (assignor == "high-availability") return protocol.name == "eager" || protocol.name == "cooperative";
  if (protocol.name == "eager") return assignor != "connect";
  return assignor == "cooperative-sticky";
}

std::string_view accepted_assignors(const ProtocolInfo& protocol) {
  if (protocol.family != Family::Classic) return "any of its family's assignors";
  if (protocol.name == "connect") return "connect or exec";
  if (protocol.name == "eager") return "range, roundrobin, sticky, cooperative-sticky, exec or (a Streams application) high-availability";
  if (protocol.name == "cooperative") return "cooperative-sticky, exec or (a Streams application) high-availability";
  return "cooperative-sticky or exec";
}

bool supports_cooperative_rebalance(std::string_view assignor, bool exec_cooperative) {
  return assignor == "cooperative-sticky" || (assignor == "exec" && exec_cooperative);
}

std::string_view client_rebalance_protocol(const std::vector<std::string>& assignors, bool exec_cooperative) {
  for (const auto& a : assignors)
    if (!supports_cooperative_rebalance(a, exec_cooperative)) return "eager";
  return assignors.empty() ? "eager" : "cooperative";
}

std::string_view family_name(Family family) {
  switch (family) {
    case Family::Classic:
      return "classic";
    case Family::Consumer:
      return "consumer";
    case Family::Streams:
      return "streams";
  }
  return "?";
}

}  // namespace rsim::protocols
