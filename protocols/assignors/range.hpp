// The client-side RangeAssignor (Kafka clients/.../consumer/RangeAssignor.java):
// per topic, the subscribed members in MemberInfo order each take a
// contiguous range; the first P % C members take one extra partition.
// Rack-aware placement is not modelled yet.
#pragma once

#include "protocols/assignors/assignor.hpp"

namespace rsim::protocols {

class RangeAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "range"; }
  GroupAssignment assign(const GroupSnapshot& group) const override;
};

}  // namespace rsim::protocols
