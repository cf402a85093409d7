// Broker-side assignors of the KIP-848 `consumer` protocol (reference §6.5):
// the coordinator computes the target assignment from the members'
// subscriptions and their current target assignment (the snapshot's `owned`).
#pragma once

#include "protocols/assignors/assignor.hpp"

#include <set>
#include <stdexcept>

namespace rsim::protocols {

// PartitionAssignorException: e.g. a member subscribed to a topic that does
// not exist.
struct AssignorError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The order the coordinator iterates subscribed topic ids: Kafka keeps them
// in a java.util.HashSet<Uuid>, so the order follows the ids' hashes.
// `group.topic_order` when given (a vector file states the test's); else the
// simulator's topic ids, which are the names' Java string hashes (Kafka's are
// random UUIDs, so any fixed order is as faithful).
std::vector<std::string> topic_id_order(const GroupSnapshot& group, const std::vector<std::string>& subscribed);
std::vector<std::string> topic_uuid_order(const GroupSnapshot& group, const std::set<std::string>& subscribed);

// UniformAssignor: homogeneous subscriptions -> UniformHomogeneousAssignmentBuilder
// (keep what fits the quota, deal the rest to members under quota);
// heterogeneous -> UniformHeterogeneousAssignmentBuilder (balance first,
// then stickiness). Members in the snapshot's order (the coordinator's
// iteration order).
class UniformAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "uniform"; }
  GroupAssignment assign(const GroupSnapshot& group) const override;
};

// The broker-side RangeAssignor: per topic, subscribers sorted (instance id
// first, then member id), contiguous ranges, the first P % k one extra; not
// sticky in the Kafka snapshot modelled.
class ServerRangeAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "range"; }
  GroupAssignment assign(const GroupSnapshot& group) const override;
};

// A built-in broker-side (consumer family) assignor by name, or nullptr.
std::unique_ptr<Assignor> make_consumer_assignor(std::string_view name);

}  // namespace rsim::protocols
