#include "protocols/classic/cooperative.hpp"

#include <algorithm>

namespace rsim::protocols::classic {

// ConsumerCoordinator.onJoinPrepare, COOPERATIVE: only partitions of topics
// no longer subscribed are revoked before rejoining.
std::vector<TopicPartition> CooperativeProtocol::revoke_before_join(const std::vector<TopicPartition>& owned,
                                                                    const std::vector<std::string>& topics) const {
  std::vector<TopicPartition> out;
  for (const auto& tp : owned)
    if (std::find(topics.begin(), topics.end(), tp.topic) == topics.end()) out.push_back(tp);
  return out;
}

// onJoinComplete: revoke what is no longer assigned, add what is new; a
// revocation means a follow-up rebalance ("need to revoke partitions and
// re-join").
AssignmentOutcome CooperativeProtocol::on_assignment(const std::vector<TopicPartition>& owned,
                                                     const MemberAssignment& assignment) const {
  AssignmentOutcome o = difference(owned, assignment);
  o.rejoin = !o.revoke.empty();
  return o;
}

std::unique_ptr<EmbeddedProtocol> make_cooperative_protocol(const StrategySettings&) {
  return std::make_unique<CooperativeProtocol>();
}

}  // namespace rsim::protocols::classic
