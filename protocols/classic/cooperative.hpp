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

 private:
  // Up to this many runs of one topic's partitions, each topic is found by
  // a scan of the subscription's names; more, and its topic handles are
  // sorted once (about log2 of a 1,000-topic subscription).
  static constexpr std::size_t kRunsScannedInPlace = 16;
};

}  // namespace rsim::protocols::classic
