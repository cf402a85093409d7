#include "protocols/classic/embedded.hpp"

#include <algorithm>
#include <set>

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

// ConsumerProtocolSubscription v1+: the partitions owned now and the
// generation they were assigned in.
Subscription CooperativeProtocol::subscription(const std::vector<std::string>& topics,
                                               const std::vector<TopicPartition>& owned,
                                               const std::vector<TopicPartition>& last_assignment, int generation) const {
  return Subscription{topics, owned, generation, last_assignment, std::string()};
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

std::vector<std::pair<std::string, MemberAssignment>> DeferredProtocol::assign(
    const Assignor& assignor, const Metadata& metadata, const std::vector<JoinedMember>& members,
    LeaderMemory& memory, Time now) const {
  std::set<std::string> present;
  for (const auto& m : members) present.insert(m.subscription.client_id);
  // Members that were in the last assignment and are gone now departed.
  for (const auto& [client, partitions] : memory.previous)
    if (present.count(client) == 0 && memory.departed.count(client) == 0 && !partitions.empty())
      memory.departed[client] = LeaderMemory::Departed{partitions, now + max_delay_};
  // A member back in time owns its old partitions again; expired holds are released.
  std::vector<JoinedMember> view = members;
  for (auto& m : view) {
    auto back = memory.departed.find(m.subscription.client_id);
    if (back == memory.departed.end()) continue;
    for (const auto& tp : back->second.partitions)
      if (std::find(m.subscription.owned.begin(), m.subscription.owned.end(), tp) == m.subscription.owned.end())
        m.subscription.owned.push_back(tp);
    memory.departed.erase(back);
  }
  int generation = -1;
  for (const auto& m : view) generation = std::max(generation, m.subscription.generation);
  for (auto& m : view) m.subscription.generation = generation;  // what a returning member owned counts
  std::set<TopicPartition> held;
  std::optional<Time> next_deadline;
  for (auto it = memory.departed.begin(); it != memory.departed.end();) {
    if (it->second.deadline <= now) {
      it = memory.departed.erase(it);
      continue;
    }
    held.insert(it->second.partitions.begin(), it->second.partitions.end());
    next_deadline = next_deadline ? std::min(*next_deadline, it->second.deadline) : it->second.deadline;
    ++it;
  }
  auto out = EmbeddedProtocol::assign(assignor, metadata, view, memory, now);
  memory.previous.clear();
  std::map<std::string, std::string> client_of;
  for (const auto& m : members) client_of[m.member_id] = m.subscription.client_id;
  for (auto& [member_id, assignment] : out) {
    auto& parts = assignment.partitions;
    parts.erase(std::remove_if(parts.begin(), parts.end(), [&](const TopicPartition& tp) { return held.count(tp) != 0; }),
                parts.end());
    if (next_deadline) assignment.scheduled_rebalance = *next_deadline - now;
    memory.previous[client_of[member_id]] = parts;
  }
  return out;
}

}  // namespace rsim::protocols::classic
