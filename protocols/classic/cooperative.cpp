#include "protocols/classic/cooperative.hpp"

#include <algorithm>

namespace rsim::protocols::classic {

// ConsumerCoordinator.onJoinPrepare, COOPERATIVE: only partitions of topics
// no longer subscribed are revoked before rejoining. Looked up in the
// subscription sorted (a member of a group on 1,000 topics owns hundreds of
// partitions).
std::vector<TopicPartition> CooperativeProtocol::revoke_before_join(const std::vector<TopicPartition>& owned,
                                                                    const std::vector<std::string>& topics) const {
  std::vector<TopicPartition> out;
  if (owned.empty()) return out;
  std::vector<std::string> sorted_copy;
  const std::vector<std::string>* subscribed = &topics;
  if (!std::is_sorted(topics.begin(), topics.end())) {
    sorted_copy.assign(topics.begin(), topics.end());
    std::sort(sorted_copy.begin(), sorted_copy.end());
    subscribed = &sorted_copy;
  }
  for (const auto& tp : owned)
    if (!std::binary_search(subscribed->begin(), subscribed->end(), tp.topic.name())) out.push_back(tp);
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
