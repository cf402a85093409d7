// The client-side StickyAssignor (eager), a port of Kafka's
// AbstractStickyAssignor (clients/.../consumer/internals/, 2024): keep what
// members own, balance, and move as little as possible.
//
// Two algorithms, as in Kafka: when every member subscribes to the same
// topics, the constrained one (quotas floor/ceil(P/N), owners keep up to
// their quota, the rest filled round-robin); otherwise the general one
// (assign to the least-loaded eligible member, then move partitions from
// more- to less-loaded members while that improves balance, remembering
// movements so a partition does not bounce back). Kafka iterates Java hash
// maps in places where order decides the result; this port reproduces Java's
// HashMap iteration order there (protocols/assignors/java_order.hpp).
//
// Owned partitions and generations come from the snapshot (Kafka decodes
// them from the subscription's user data).
//
// Rack awareness (KIP-881, Kafka 3.5): when members have racks and
// useRackAwareAssignment says it helps, an owner keeps only owned partitions
// with a replica on its rack, and unassigned partitions go first to members
// on a replica's rack within the balance constraints, in both algorithms.
// Otherwise the output is that of the rack-unaware algorithms.
#pragma once

#include "protocols/assignors/assignor.hpp"

#include <map>
#include <optional>
#include <string>

namespace rsim::protocols {

struct StickyResult {
  GroupAssignment assignment;
  // Partitions moving from a previous owner to another member; only the
  // constrained algorithm computes it (Kafka leaves it null otherwise).
  std::optional<std::map<TopicPartition, std::string>> transferring;
};

class StickyAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "sticky"; }
  GroupAssignment assign(const GroupSnapshot& group) const override { return assign_detailed(group).assignment; }
  bool keeps_last_assignment() const override { return true; }
  StickyResult assign_detailed(const GroupSnapshot& group) const;
};

}  // namespace rsim::protocols
