#include "protocols/assignors/range.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <optional>

namespace rsim::protocols {

namespace {

// One topic's progress (Kafka's TopicAssignmentState): its subscribers in
// MemberInfo order, what is still unassigned, and the per-member quota
// `per_member` plus one for the first `extra` members to exceed it.
struct TopicState {
  Topic topic;
  std::vector<const MemberSubscription*> consumers;
  std::vector<std::vector<std::string>> racks;  // per partition; empty: no rack information
  bool rack_aware = false;
  std::vector<bool> assigned;
  std::size_t first_unassigned = 0;  // every partition before it is assigned
  std::map<std::string, int> count;
  int per_member = 0;
  int extra = 0;

  int max_assignable(const std::string& member) const {
    return std::max(0, per_member + (extra > 0 ? 1 : 0) - count.at(member));
  }
  bool racks_match(const MemberSubscription& m, int p) const {
    if (!m.rack || m.rack->empty()) return true;
    if (racks.empty()) return false;
    const auto& r = racks[static_cast<std::size_t>(p)];
    return std::find(r.begin(), r.end(), *m.rack) != r.end();
  }
  void on_assigned(const std::string& member, const std::vector<int>& partitions) {
    int& n = count[member];
    n += static_cast<int>(partitions.size());
    if (n > per_member) --extra;
    for (int p : partitions) assigned[static_cast<std::size_t>(p)] = true;
    while (first_unassigned < assigned.size() && assigned[first_unassigned]) ++first_unassigned;
  }
  bool has_unassigned() const { return first_unassigned < assigned.size(); }
};

template <class MayAssign>
void assign_ranges(TopicState& t, MayAssign may_assign, GroupAssignment& out) {
  for (const auto* c : t.consumers) {
    if (!t.has_unassigned()) break;
    std::vector<int> take;
    const int limit = t.max_assignable(c->member_id);
    for (int p = static_cast<int>(t.first_unassigned); p < static_cast<int>(t.assigned.size()) && static_cast<int>(take.size()) < limit; ++p)
      if (!t.assigned[static_cast<std::size_t>(p)] && may_assign(*c, p)) take.push_back(p);
    if (take.empty()) continue;
    for (int p : take) out[c->member_id].push_back(TopicPartition{t.topic, p});
    t.on_assigned(c->member_id, take);
  }
}

// Topics with the same subscribers and partition count are co-partitioned:
// partition p of all of them goes to the first remaining consumer whose rack
// matches p in every one of them and that still has quota in every one.
void assign_copartitioned(std::vector<TopicState*>& states, GroupAssignment& out) {
  std::vector<const MemberSubscription*> remaining = states.front()->consumers;
  const int partitions = static_cast<int>(states.front()->racks.size());
  for (int p = 0; p < partitions && !remaining.empty(); ++p) {
    auto match = std::find_if(remaining.begin(), remaining.end(), [&](const MemberSubscription* c) {
      return std::all_of(states.begin(), states.end(), [&](const TopicState* t) {
        return t->racks_match(*c, p) && t->max_assignable(c->member_id) > 0;
      });
    });
    if (match == remaining.end()) continue;
    const MemberSubscription* c = *match;
    for (TopicState* t : states) {
      out[c->member_id].push_back(TopicPartition{t->topic, p});
      t->on_assigned(c->member_id, {p});
    }
    if (std::none_of(states.begin(), states.end(), [&](const TopicState* t) { return t->max_assignable(c->member_id) > 0; }))
      remaining.erase(match);
  }
}

}  // namespace

GroupAssignment RangeAssignor::assign(const GroupSnapshot& group) const {
  GroupAssignment out;
  const auto list_of = add_empty_lists(group, out);
  const auto members = sorted_members(group);
  // Subscribers per topic, in MemberInfo order, found in one pass.
  const SubscriptionIndex index = index_subscriptions(members);
  std::vector<std::vector<std::size_t>> subscribers_of(index.topics.size());  // topic id -> member positions
  for (std::size_t i = 0; i < members.size(); ++i)
    for (std::size_t t : *index.of_member[i]) subscribers_of[t].push_back(i);
  std::map<std::string, std::vector<const MemberSubscription*>> subscribers;
  const bool any_rack = std::any_of(group.members.begin(), group.members.end(),
                                    [](const MemberSubscription& m) { return m.rack && !m.rack->empty(); });
  if (!any_rack) {
    // Without racks the algorithm is the plain one: contiguous ranges, the
    // first P % C subscribers taking one extra.
    std::vector<std::vector<TopicPartition>*> lists;
    for (const auto* m : members) lists.push_back(list_of[static_cast<std::size_t>(m - group.members.data())]);
    struct Share {
      std::size_t topic;
      int partitions;
    };
    std::vector<Share> shares;
    for (std::size_t t = 0; t < index.topics.size(); ++t) {
      auto it = group.topics.find(index.topics[t]);
      if (it != group.topics.end() && it->second > 0) shares.push_back({t, it->second});
    }
    // Sizes first, so each member's list is allocated once.
    std::vector<std::size_t> sizes(members.size(), 0);
    for (const auto& [t, partitions] : shares) {
      const auto& consumers = subscribers_of[t];
      for (std::size_t i = 0; i < consumers.size(); ++i)
        sizes[consumers[i]] += static_cast<std::size_t>(partitions) / consumers.size() +
                               (i < static_cast<std::size_t>(partitions) % consumers.size() ? 1 : 0);
    }
    for (std::size_t i = 0; i < members.size(); ++i) lists[i]->reserve(sizes[i]);
    for (const auto& [t, partitions] : shares) {
      const auto& consumers = subscribers_of[t];
      const int count = static_cast<int>(consumers.size());
      const int per_member = partitions / count;
      const int extra = partitions % count;
      const Topic topic(index.topics[t]);
      int next = 0;
      for (int i = 0; i < count; ++i) {
        const int take = per_member + (i < extra ? 1 : 0);
        auto& list = *lists[consumers[static_cast<std::size_t>(i)]];
        for (int k = 0; k < take; ++k) list.push_back(TopicPartition{topic, next++});
      }
      assert(next == partitions);
    }
    return out;
  }
  for (std::size_t t = 0; t < index.topics.size(); ++t)
    for (std::size_t i : subscribers_of[t]) subscribers[index.topics[t]].push_back(members[i]);
  std::vector<TopicState> states;
  for (const auto& [topic, partitions] : group.topics) {
    if (partitions <= 0) continue;
    TopicState t;
    t.topic = topic;
    if (auto it = subscribers.find(topic); it != subscribers.end()) t.consumers = it->second;
    t.assigned.assign(static_cast<std::size_t>(partitions), false);
    for (const auto* c : t.consumers) t.count[c->member_id] = 0;
    if (!t.consumers.empty()) {
      t.per_member = partitions / static_cast<int>(t.consumers.size());
      t.extra = partitions % static_cast<int>(t.consumers.size());
    }
    std::vector<std::string> consumer_racks, partition_racks;
    for (const auto* c : t.consumers)
      if (c->rack && !c->rack->empty()) consumer_racks.push_back(*c->rack);
    if (!consumer_racks.empty()) {
      // Kafka records replica racks (possibly none) for every partition as
      // soon as some subscriber has a rack.
      if (auto it = group.partition_racks.find(topic); it != group.partition_racks.end()) t.racks = it->second;
      t.racks.resize(static_cast<std::size_t>(partitions));
      for (const auto& r : t.racks) partition_racks.insert(partition_racks.end(), r.begin(), r.end());
    }
    t.rack_aware = use_rack_aware_assignment(consumer_racks, partition_racks, t.racks, group.prefer_rack_aware);
    states.push_back(std::move(t));
  }
  const bool rack_aware = std::any_of(states.begin(), states.end(), [](const TopicState& t) { return t.rack_aware; });
  if (rack_aware) {
    // Group topics by (subscribers, partition count). Each topic's quota is
    // its own, so the order in which groups are handled does not matter.
    std::map<std::pair<std::vector<std::string>, std::size_t>, std::vector<TopicState*>> groups;
    for (auto& t : states) {
      std::vector<std::string> key;
      for (const auto* c : t.consumers) key.push_back(c->member_id + "\x1f" + c->rack.value_or(""));
      groups[{key, t.racks.size()}].push_back(&t);  // Kafka groups by partitionRacks.size()
    }
    for (auto& [key, copartitioned] : groups) {
      if (copartitioned.size() > 1) {
        assign_copartitioned(copartitioned, out);
      } else if (copartitioned.front()->rack_aware) {
        TopicState& t = *copartitioned.front();
        assign_ranges(t, [&t](const MemberSubscription& c, int p) { return t.racks_match(c, p); }, out);
      }
    }
  }
  for (auto& t : states) assign_ranges(t, [](const MemberSubscription&, int) { return true; }, out);
  if (rack_aware)
    for (auto& [member, list] : out) std::sort(list.begin(), list.end());
  return out;
}

}  // namespace rsim::protocols
