// The client-side RoundRobinAssignor (clients/.../consumer/RoundRobinAssignor.java):
// every subscribed partition, topics by name then partitions in order, dealt
// to the members in MemberInfo order, skipping members not subscribed to the
// partition's topic.
#pragma once

#include "protocols/assignors/assignor.hpp"

namespace rsim::protocols {

class RoundRobinAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "roundrobin"; }
  GroupAssignment assign(const GroupSnapshot& group) const override;
};

}  // namespace rsim::protocols
