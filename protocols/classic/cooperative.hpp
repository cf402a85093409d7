// KIP-429: members keep what they own through the rebalance and revoke only
// what moves (or what they no longer subscribe to); an assignment that takes
// something away is followed by a rejoin, whose rebalance hands the revoked
// partitions to their new owners. The member side every cooperative design
// shares.
#pragma once

#include "protocols/classic/embedded.hpp"

#include <cstdint>
#include <vector>

namespace rsim::protocols::classic {

class CooperativeProtocol : public EmbeddedProtocol {
 public:
  std::string_view name() const override { return "cooperative"; }
  std::vector<TopicPartition> revoke_before_join(const std::vector<TopicPartition>& owned,
                                                 const TopicNames& topics) const override;
  AssignmentOutcome on_assignment(const std::vector<TopicPartition>& owned,
                                  const MemberAssignment& assignment) const override;

 private:
  // A subscription's topic handles, sorted. Kept for the last shared list
  // asked about: members subscribing alike pass the same list, so a group's
  // rejoins intern its names once, not 1,000 names per member per rejoin
  // (a third of the cooperative stretch; issue 16). The kept TopicNames
  // holds the list, so its address is not reused while it is kept. One
  // protocol object per run: never shared between threads.
  const std::vector<std::uint32_t>& subscribed_ids(const TopicNames& topics) const;
  mutable TopicNames kept_;
  mutable std::vector<std::uint32_t> kept_ids_;
};

}  // namespace rsim::protocols::classic
