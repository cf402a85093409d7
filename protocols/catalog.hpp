// What protocols and assignors exist, by the names the scenario file and the
// CLI use. The loader validates names against this list; the runner refuses
// the ones this build cannot run yet with a clear message.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rsim::protocols {

namespace classic {
class EmbeddedProtocol;
struct StrategySettings;
}  // namespace classic

enum class Family { Classic, Consumer, Streams };

// Makes a classic-family protocol's embedded strategy (protocols/classic/).
using StrategyFactory = std::unique_ptr<classic::EmbeddedProtocol> (*)(const classic::StrategySettings&);

struct ProtocolInfo {
  std::string_view name;
  Family family;
  std::string_view default_assignor;
  bool runnable;  // false: named by the contract, not simulated by this build yet
  std::string_view summary;
  bool test_only = false;  // a deliberately broken variant the checkers must catch; not listed
  StrategyFactory make_strategy = nullptr;  // classic family: the embedded protocol
  // Whether members send their group.instance.id. Kafka Connect's workers
  // never do (GroupRebalanceConfig: "Static membership is only introduced
  // in consumer API"), so under `connect` a scenario's instance ids are
  // dropped and its members join as dynamic ones.
  bool static_membership = true;
};

// Whether Kafka ships the protocol (eager, cooperative, connect, consumer,
// streams) or it is a research design Kafka never shipped (deferred and
// incremental resolution, seed 1).
bool shipped_by_kafka(std::string_view protocol);

struct AssignorInfo {
  std::string_view name;
  Family family;
  bool runnable;
  std::string_view summary;
};

const std::vector<ProtocolInfo>& all_protocols();
const std::vector<AssignorInfo>& all_assignors();
const ProtocolInfo* find_protocol(std::string_view name);
const AssignorInfo* find_assignor(Family family, std::string_view name);
std::vector<std::string_view> protocol_names();
std::vector<std::string_view> assignor_names(Family family);
std::string_view family_name(Family family);

// Whether `protocol` can run with `assignor`. As in Kafka, a classic-family
// protocol other than eager needs an assignor that supports COOPERATIVE, and
// of the built-in consumer assignors only cooperative-sticky does; `connect`
// runs Connect's own assignor, which nothing else runs.
bool accepts(const ProtocolInfo& protocol, std::string_view assignor);
// Whether members send their group.instance.id under `protocol`: every
// protocol but connect (ProtocolInfo::static_membership); a name not in the
// catalog, yes.
bool sends_instance_id(std::string_view protocol);
// What `protocol` accepts, for messages.
std::string_view accepted_assignors(const ProtocolInfo& protocol);

// A consumer's rebalance protocol from its partition.assignment.strategy
// (ConsumerCoordinator: the highest protocol every configured assignor
// supports): "cooperative" when all support COOPERATIVE (of the built-in
// ones only cooperative-sticky does; the plug-in "exec" when
// `exec_cooperative`, its supported-protocols), "eager" otherwise.
bool supports_cooperative_rebalance(std::string_view assignor, bool exec_cooperative = false);
std::string_view client_rebalance_protocol(const std::vector<std::string>& assignors, bool exec_cooperative = false);

}  // namespace rsim::protocols
