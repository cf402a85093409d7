// What every embedded protocol shares: the snapshot the leader's assignor
// sees, the JoinGroup metadata, the leader's assignment and the difference
// between what a member owns and what it is given.
#include "protocols/classic/embedded.hpp"

#include <algorithm>

namespace rsim::protocols::classic {

Metadata subscribed_metadata(const Metadata& metadata, const std::vector<JoinedMember>& members) {
  Metadata out;
  const TopicNames* last = nullptr;  // compared by pointer first: members subscribing alike share a list
  for (const auto& m : members) {
    const auto& topics = m.subscription.topics;
    if (last != nullptr && topics == *last) continue;
    last = &topics;
    for (const auto& t : topics)
      if (auto it = metadata.find(t); it != metadata.end()) out[t] = it->second;
  }
  return out;
}

GroupSnapshot snapshot_of(const Assignor& assignor, const Metadata& metadata, const std::vector<JoinedMember>& members,
                          int generation) {
  const bool user_data = assignor.keeps_last_assignment();
  GroupSnapshot g;
  g.generation = generation;
  g.topics = subscribed_metadata(metadata, members);
  for (const auto& m : members) {
    MemberSubscription s;
    s.member_id = m.member_id;
    s.instance_id = m.instance_id;
    s.topics = m.subscription.topics;
    s.owned = user_data ? m.subscription.last_assignment : m.subscription.owned;
    s.generation = m.subscription.generation;
    g.members.push_back(std::move(s));
  }
  return g;
}

// ConsumerProtocolSubscription v1+: what the member owns now and the
// generation it was assigned in; and, as the StickyAssignor keeps in its user
// data, its last assignment (under eager it owns nothing by the time it joins).
// Other assignors send no user data.
Subscription EmbeddedProtocol::subscription(const Assignor& assignor, const TopicNames& topics,
                                            const std::vector<TopicPartition>& owned,
                                            const std::vector<TopicPartition>& last_assignment, int generation) const {
  return Subscription{topics, owned, generation,
                      assignor.keeps_last_assignment() ? last_assignment : std::vector<TopicPartition>{}, std::string(),
                      std::nullopt};
}

std::vector<std::pair<std::string, MemberAssignment>> EmbeddedProtocol::entries(const GroupAssignment& a) {
  std::vector<std::pair<std::string, MemberAssignment>> out;
  for (const auto& [id, partitions] : a) out.emplace_back(id, MemberAssignment{partitions, std::nullopt, {}, false, {}});
  return out;
}

std::vector<std::pair<std::string, MemberAssignment>> EmbeddedProtocol::assign(
    const Assignor& assignor, const Metadata& metadata, const std::vector<JoinedMember>& members, LeaderState*,
    const LeaderView& view) const {
  return entries(assignor.assign(snapshot_of(assignor, metadata, members, view.generation)));
}

AssignmentOutcome EmbeddedProtocol::difference(const std::vector<TopicPartition>& owned,
                                               const MemberAssignment& assignment) {
  // Membership by binary search in sorted copies (a member of a large group
  // owns thousands); the lists keep the order they were given in.
  auto sorted = [](std::vector<TopicPartition> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  const auto assigned = sorted(assignment.partitions);
  const auto had = sorted(owned);
  AssignmentOutcome o;
  for (const auto& tp : owned)
    if (!std::binary_search(assigned.begin(), assigned.end(), tp)) o.revoke.push_back(tp);
  for (const auto& tp : assignment.partitions)
    if (!std::binary_search(had.begin(), had.end(), tp)) o.add.push_back(tp);
  return o;
}

}  // namespace rsim::protocols::classic
