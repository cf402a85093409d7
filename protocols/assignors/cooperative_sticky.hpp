// The client-side CooperativeStickyAssignor (KIP-429): the sticky assignment,
// then every partition that would move to a new owner while another member
// still owns it is withheld from the new owner this round. The old owner
// revokes it and rejoins; the follow-up rebalance hands it over.
#pragma once

#include "protocols/assignors/sticky.hpp"

namespace rsim::protocols {

class CooperativeStickyAssignor final : public Assignor {
 public:
  std::string_view name() const override { return "cooperative-sticky"; }
  GroupAssignment assign(const GroupSnapshot& group) const override;
  // The sticky assignment, moving partitions included.
  GroupAssignment target(const GroupSnapshot& group) const override { return sticky_.assign_detailed(group).assignment; }
  // The partitions withheld this round, and whom they are going to.
  std::map<TopicPartition, std::string> transferring(const GroupSnapshot& group) const;

 private:
  StickyAssignor sticky_;
};

}  // namespace rsim::protocols
