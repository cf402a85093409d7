#include "protocols/assignors/roundrobin.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>

namespace rsim::protocols {

GroupAssignment RoundRobinAssignor::assign(const GroupSnapshot& group) const {
  GroupAssignment out;
  const auto list_of = add_empty_lists(group, out);
  const auto members = sorted_members(group);
  if (members.empty()) return out;
  // Every topic somebody subscribes to, by name; subscribed[i][k]: member i
  // (in MemberInfo order) subscribes to topic k.
  const SubscriptionIndex index = index_subscriptions(members);
  if (index.distinct.size() == 1) {
    // Everybody subscribes to the same topics: the circular iterator gives
    // the partition at position p of all of them (topics by name) to member
    // p mod n, so each member's list is written in one go.
    PartitionSequence all;
    for (const auto& t : index.topics)
      if (auto it = group.topics.find(t); it != group.topics.end()) all.add(Topic(t), it->second);
    std::vector<std::vector<TopicPartition>*> lists;  // in MemberInfo order
    for (const auto* m : members) lists.push_back(list_of[static_cast<std::size_t>(m - group.members.data())]);
    all.deal(lists);
    return out;
  }
  std::vector<std::vector<char>> distinct(index.distinct.size(), std::vector<char>(index.topics.size(), 0));
  for (std::size_t d = 0; d < index.distinct.size(); ++d)
    for (std::size_t k : index.distinct[d]) distinct[d][k] = 1;
  std::vector<const std::vector<char>*> subscribed;
  std::vector<std::vector<TopicPartition>*> lists;
  for (std::size_t i = 0; i < members.size(); ++i) {
    subscribed.push_back(&distinct[static_cast<std::size_t>(index.of_member[i] - index.distinct.data())]);
    lists.push_back(list_of[static_cast<std::size_t>(members[i] - group.members.data())]);
  }
  // An upper bound of each member's share, so each list is allocated once.
  std::size_t total = 0;
  for (const auto& t : index.topics)
    if (auto it = group.topics.find(t); it != group.topics.end()) total += static_cast<std::size_t>(it->second);
  for (auto* list : lists) list->reserve(total / members.size() + index.topics.size());
  std::size_t next = 0;  // the circular iterator's position
  for (std::size_t k = 0; k < index.topics.size(); ++k) {
    auto it = group.topics.find(index.topics[k]);
    const Topic topic(index.topics[k]);
    if (it == group.topics.end()) continue;
    for (int p = 0; p < it->second; ++p) {
      // Someone subscribes to this topic, so the scan ends within one turn.
      std::size_t guard = 0;
      while (!(*subscribed[next])[k]) {
        if (++next == members.size()) next = 0;
        assert(++guard <= members.size());
      }
      lists[next]->push_back(TopicPartition{topic, p});
      if (++next == members.size()) next = 0;
    }
  }
  return out;
}

}  // namespace rsim::protocols
