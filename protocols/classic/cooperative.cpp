#include "protocols/classic/cooperative.hpp"

#include <algorithm>
#include <cstdint>

namespace rsim::protocols::classic {

// ConsumerCoordinator.onJoinPrepare, COOPERATIVE: only partitions of topics
// no longer subscribed are revoked before rejoining. Looked up among the
// subscription's topic handles, sorted, kept for the shared list: no copies
// of the names, integer comparisons (issue 16: 10,000 members subscribed to
// 1,000 topics each sorted a copy of their subscription's names at every
// rejoin).
std::vector<TopicPartition> CooperativeProtocol::revoke_before_join(const std::vector<TopicPartition>& owned,
                                                                    const TopicNames& topics) const {
  std::vector<TopicPartition> out;
  if (owned.empty()) return out;
  const std::vector<std::uint32_t>& subscribed = subscribed_ids(topics);
  for (const auto& tp : owned)
    if (!std::binary_search(subscribed.begin(), subscribed.end(), tp.topic.id())) out.push_back(tp);
  return out;
}

// onJoinComplete: revoke what is no longer assigned, add what is new; a
// revocation means a follow-up rebalance ("need to revoke partitions and
// re-join").
const std::vector<std::uint32_t>& CooperativeProtocol::subscribed_ids(const TopicNames& topics) const {
  if (topics.shared() != nullptr && topics.shared() == kept_.shared()) return kept_ids_;
  kept_ = topics;
  kept_ids_.clear();
  kept_ids_.reserve(topics.size());
  for (const auto& t : topics) kept_ids_.push_back(Topic(t).id());
  std::sort(kept_ids_.begin(), kept_ids_.end());
  return kept_ids_;
}

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
