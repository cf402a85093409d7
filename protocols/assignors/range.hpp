// The client-side RangeAssignor (Kafka clients/.../consumer/RangeAssignor.java):
// per topic, the subscribed members in MemberInfo order each take a
// contiguous range; the first P % C members take one extra partition.
// Rack-aware when consumers and replicas have racks (and some partition is not
// on every rack): a rack-matching pass with the same per-topic quotas first,
// co-partitioned topics (same subscribers, same partition count) matched
// partition index by partition index, then the plain pass fills the rest.
#pragma once

#include "protocols/assignors/assignor.hpp"

namespace rsim::protocols {

class RangeAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "range"; }
  GroupAssignment assign(const GroupSnapshot& group) const override;
};

}  // namespace rsim::protocols
