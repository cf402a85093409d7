#include "protocols/classic/held_work.hpp"

#include <algorithm>

namespace rsim::protocols::classic {

void HeldWork::remember(const std::map<std::string, std::vector<TopicPartition>>& by_client, int generation) {
  previous_ = by_client;
  last_assigned_generation_ = generation;
}

void HeldWork::begin(const Metadata& metadata, const std::vector<JoinedMember>& members, const LeaderView& view) {
  // Another leader assigned since this process last did: what it remembers
  // (holds, owners) is stale (Connect's previousGenerationId check); it
  // starts afresh as a new leader would.
  if (last_assigned_generation_ != view.last_completed_generation) {
    previous_.clear();
    departed_.clear();
  }
  last_assigned_generation_ = view.generation;
  returning_.clear();
  held_.clear();
  next_deadline_.reset();
  std::set<std::string> present;
  for (const auto& m : members) present.insert(m.subscription.client_id);
  reconstruct(metadata, members, view.now);
  // Members that were in the last assignment and are gone now departed.
  for (const auto& [client, partitions] : previous_)
    if (present.count(client) == 0 && departed_.count(client) == 0 && !partitions.empty())
      departed_[client] = Departed{partitions, view.now + max_delay_};
  release_claimed(members);
  // A member back in time gets its old partitions again (in finish()).
  for (const auto& m : members) {
    auto back = departed_.find(m.subscription.client_id);
    if (back == departed_.end()) continue;
    returning_[back->first] = back->second.partitions;
    departed_.erase(back);
  }
  // Work held since before this leader goes to the first member new to it
  // that owns nothing: most likely its owner, back (seed 1's heuristic).
  if (auto unknown = departed_.find(std::string(kUnknownDeparted)); unknown != departed_.end()) {
    for (const auto& m : members) {
      if (previous_.count(m.subscription.client_id) != 0 || !m.subscription.owned.empty()) continue;
      returning_[m.subscription.client_id] = unknown->second.partitions;
      departed_.erase(unknown);
      break;
    }
  }
  // Expired holds are released; the others are held this round.
  for (auto it = departed_.begin(); it != departed_.end();) {
    if (it->second.deadline <= view.now) {
      it = departed_.erase(it);
      continue;
    }
    held_.insert(it->second.partitions.begin(), it->second.partitions.end());
    next_deadline_ = next_deadline_ ? std::min(*next_deadline_, it->second.deadline) : it->second.deadline;
    ++it;
  }
}

// What a member reports owning in its JoinGroup is owned, not departed
// (Connect: lost work is the previous assignment less what the workers report
// running, IncrementalCooperativeAssignor.performTaskAssignment): it stays out
// of every hold, so it is neither handed to another member in the round its
// owner revokes it nor taken from its owner for the delay.
void HeldWork::release_claimed(const std::vector<JoinedMember>& members) {
  if (departed_.empty()) return;
  std::vector<TopicPartition> claimed;
  for (const auto& m : members) claimed.insert(claimed.end(), m.subscription.owned.begin(), m.subscription.owned.end());
  std::sort(claimed.begin(), claimed.end());
  for (auto it = departed_.begin(); it != departed_.end();) {
    std::erase_if(it->second.partitions,
                  [&](const TopicPartition& tp) { return std::binary_search(claimed.begin(), claimed.end(), tp); });
    it = it->second.partitions.empty() ? departed_.erase(it) : std::next(it);
  }
}

void HeldWork::finish(std::vector<std::pair<std::string, MemberAssignment>>& out, const std::vector<JoinedMember>& members,
                      const LeaderView& view, std::optional<Time> next_round) {
  // Nobody owned a returning member's partitions while they were held, so
  // they go straight back to it, whoever the assignor picked.
  std::map<std::string, std::string> member_of, client_of;  // client id <-> member id
  for (const auto& m : members) {
    member_of[m.subscription.client_id] = m.member_id;
    client_of[m.member_id] = m.subscription.client_id;
  }
  for (const auto& [client, partitions] : returning_) {
    const auto& back = partitions;  // clang 14 cannot capture a structured binding in a lambda
    for (auto& [member_id, assignment] : out) {
      auto& parts = assignment.partitions;
      parts.erase(std::remove_if(parts.begin(), parts.end(),
                                 [&](const TopicPartition& tp) { return std::find(back.begin(), back.end(), tp) != back.end(); }),
                  parts.end());
    }
    for (auto& [member_id, assignment] : out)
      if (member_id == member_of[client])
        assignment.partitions.insert(assignment.partitions.end(), partitions.begin(), partitions.end());
  }
  std::optional<Time> next = next_deadline_;
  if (next_round) next = next ? std::min(*next, *next_round) : *next_round;
  previous_.clear();
  for (auto& [member_id, assignment] : out) {
    auto& parts = assignment.partitions;
    parts.erase(std::remove_if(parts.begin(), parts.end(), [&](const TopicPartition& tp) { return held_.count(tp) != 0; }),
                parts.end());
    if (next) assignment.scheduled_rebalance = *next - view.now;
    previous_[client_of[member_id]] = parts;
  }
}

// Seed 1: a leader new to the group has no memory of the last assignment and
// must reconstruct what it can from the subscriptions. What members own is
// the last assignment as far as anyone knows. Partitions nobody owns, in a
// group that owns something, were probably held by a member that is gone
// (perhaps the old leader): if some member owns nothing it is taken for that
// member coming back (the seed's heuristic) and the assignor gives them out;
// otherwise they are held for the delay, as a departed member's.
void HeldWork::reconstruct(const Metadata& metadata, const std::vector<JoinedMember>& members, Time now) {
  if (!previous_.empty() || !departed_.empty()) return;  // not new, or nothing to go on
  // Sorted vectors, and every subscribed topic once: a group of N members
  // sharing a topic of P partitions would otherwise cost N x P set inserts.
  std::vector<TopicPartition> owned;
  std::set<std::string> topics;
  bool someone_empty = false;
  for (const auto& m : members) {
    owned.insert(owned.end(), m.subscription.owned.begin(), m.subscription.owned.end());
    someone_empty |= m.subscription.owned.empty();
    topics.insert(m.subscription.topics.begin(), m.subscription.topics.end());
  }
  if (owned.empty()) return;  // a new group: nothing to reconstruct
  std::sort(owned.begin(), owned.end());
  for (const auto& m : members) previous_[m.subscription.client_id] = m.subscription.owned;
  std::vector<TopicPartition> unowned;
  for (const auto& t : topics) {  // by name, then partition: TopicPartition order
    const auto it = metadata.find(t);
    if (it == metadata.end()) continue;
    const Topic topic(t);
    for (int p = 0; p < it->second; ++p)
      if (const TopicPartition tp{topic, p}; !std::binary_search(owned.begin(), owned.end(), tp)) unowned.push_back(tp);
  }
  if (!unowned.empty() && !someone_empty) departed_[std::string(kUnknownDeparted)] = Departed{unowned, now + max_delay_};
}

}  // namespace rsim::protocols::classic
