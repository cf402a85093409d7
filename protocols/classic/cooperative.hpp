// KIP-429: members keep what they own through the rebalance and revoke only
// what moves (or what they no longer subscribe to); an assignment that takes
// something away is followed by a rejoin, whose rebalance hands the revoked
// partitions to their new owners. The member side every cooperative design
// shares.
#pragma once

#include "protocols/classic/embedded.hpp"

namespace rsim::protocols::classic {

class CooperativeProtocol : public EmbeddedProtocol {
 public:
  std::string_view name() const override { return "cooperative"; }
  std::vector<TopicPartition> revoke_before_join(const std::vector<TopicPartition>& owned,
                                                 const std::vector<std::string>& topics) const override;
  AssignmentOutcome on_assignment(const std::vector<TopicPartition>& owned,
                                  const MemberAssignment& assignment) const override;
};

}  // namespace rsim::protocols::classic
