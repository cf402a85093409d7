#include "protocols/assignors/server.hpp"

#include "protocols/assignors/java_order.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace rsim::protocols {

namespace {

// Throws unless every subscribed topic exists; returns the subscribed topics.
std::set<std::string> subscribed_topics(const GroupSnapshot& group) {
  std::set<std::string> out;
  for (const auto& m : group.members)
    for (const auto& t : m.topics) {
      if (group.topics.count(t) == 0)
        throw AssignorError("Members are subscribed to topic " + t + " which doesn't exist in the topic metadata.");
      out.insert(t);
    }
  return out;
}

bool homogeneous(const GroupSnapshot& group) {
  if (group.members.empty()) return true;
  const std::set<std::string> first(group.members[0].topics.begin(), group.members[0].topics.end());
  return std::all_of(group.members.begin(), group.members.end(), [&](const MemberSubscription& m) {
    return std::set<std::string>(m.topics.begin(), m.topics.end()) == first;
  });
}

// A member's current target assignment by topic, topics in the order they
// first appear, partitions ascending (a HashSet<Integer> of small ints).
std::vector<std::pair<std::string, std::vector<int>>> by_topic(const std::vector<TopicPartition>& owned) {
  std::vector<std::pair<std::string, std::vector<int>>> out;
  for (const auto& tp : owned) {
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == tp.topic.name(); });
    if (it == out.end()) {
      out.emplace_back(tp.topic.name(), std::vector<int>{});
      it = out.end() - 1;
    }
    it->second.push_back(tp.partition);
  }
  for (auto& [t, ps] : out) std::sort(ps.begin(), ps.end());
  return out;
}

GroupAssignment homogeneous_uniform(const GroupSnapshot& group) {
  GroupAssignment out;
  const std::set<std::string> subscribed(group.members[0].topics.begin(), group.members[0].topics.end());
  if (subscribed.empty()) return out;
  std::set<TopicPartition> assigned;
  for (const auto& m : group.members)
    for (const auto& tp : m.owned) assigned.insert(tp);
  // Unassigned partitions, topics in id-set order.
  std::vector<TopicPartition> unassigned;
  int total = 0;
  for (const auto& t : topic_id_order(group, {subscribed.begin(), subscribed.end()})) {
    const int n = group.topics.at(t);
    const Topic topic(t);
    for (int p = 0; p < n; ++p)
      if (assigned.count(TopicPartition{topic, p}) == 0) unassigned.push_back(TopicPartition{topic, p});
    total += n;
  }
  const int members = static_cast<int>(group.members.size());
  const int min_quota = total / members;
  int extra = total % members;
  // Keep what fits the quota, in the member's topic order; the rest joins
  // the unassigned list. Unsubscribed topics are dropped.
  std::vector<std::pair<std::string, int>> unfilled;  // member, remaining quota
  for (const auto& m : group.members) {
    int quota = min_quota;
    if (extra > 0) {
      ++quota;
      --extra;
    }
    auto& mine = out[m.member_id];
    for (const auto& [t, partitions] : by_topic(m.owned)) {
      if (subscribed.count(t) == 0) continue;
      const Topic topic(t);
      if (static_cast<int>(partitions.size()) <= quota) {
        quota -= static_cast<int>(partitions.size());
        for (int p : partitions) mine.push_back(TopicPartition{topic, p});
        continue;
      }
      for (int p : partitions) {
        if (quota > 0) {
          --quota;
          mine.push_back(TopicPartition{topic, p});
        } else {
          unassigned.push_back(TopicPartition{topic, p});
        }
      }
    }
    if (quota > 0) unfilled.emplace_back(m.member_id, quota);
  }
  std::size_t next = 0;
  for (const auto& [member, quota] : unfilled)
    for (int i = 0; i < quota && next < unassigned.size(); ++i) out[member].push_back(unassigned[next++]);
  if (next < unassigned.size()) throw AssignorError("Partitions were left unassigned");
  return out;
}

// Heterogeneous subscriptions. Kafka's UniformHeterogeneousAssignmentBuilder
// is not ported; this keeps its principles (balance over stickiness): drop
// unsubscribed topics, keep the rest, give unassigned partitions to the
// least-loaded subscriber (topics by partitions per subscriber, descending,
// then subscriber count, then id order), then move partitions from the most
// to the least loaded subscriber of each topic while they differ by two or
// more. Its exact results differ from Kafka's.
GroupAssignment heterogeneous_uniform(const GroupSnapshot& group, const std::set<std::string>& subscribed) {
  const std::size_t n = group.members.size();
  std::vector<std::vector<TopicPartition>> lists(n);
  std::map<TopicPartition, std::size_t> owner;
  std::map<std::string, std::vector<std::size_t>> subscribers;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& t : group.members[i].topics) subscribers[t].push_back(i);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& m = group.members[i];
    for (const auto& tp : m.owned) {
      if (std::find(m.topics.begin(), m.topics.end(), tp.topic.name()) == m.topics.end()) continue;
      if (tp.partition >= group.topics.at(tp.topic.name()) || owner.count(tp) != 0) continue;
      owner[tp] = i;
      lists[i].push_back(tp);
    }
  }
  const auto ids = topic_id_order(group, {subscribed.begin(), subscribed.end()});
  std::vector<std::string> topics = ids;
  auto rank = [&](const std::string& t) { return std::find(ids.begin(), ids.end(), t) - ids.begin(); };
  std::stable_sort(topics.begin(), topics.end(), [&](const std::string& a, const std::string& b) {
    const double pa = static_cast<double>(group.topics.at(a)) / static_cast<double>(subscribers[a].size());
    const double pb = static_cast<double>(group.topics.at(b)) / static_cast<double>(subscribers[b].size());
    if (pa != pb) return pa > pb;
    if (subscribers[a].size() != subscribers[b].size()) return subscribers[a].size() < subscribers[b].size();
    return rank(a) < rank(b);
  });
  auto least = [&](const std::vector<std::size_t>& subs) {
    return *std::min_element(subs.begin(), subs.end(), [&](std::size_t a, std::size_t b) {
      return lists[a].size() != lists[b].size() ? lists[a].size() < lists[b].size() : a < b;
    });
  };
  for (const auto& t : topics) {
    const Topic topic(t);
    for (int p = 0; p < group.topics.at(t); ++p) {
      const TopicPartition tp{topic, p};
      if (owner.count(tp) != 0) continue;
      const std::size_t to = least(subscribers[t]);
      owner[tp] = to;
      lists[to].push_back(tp);
    }
  }
  for (int round = 0; round < 16; ++round) {
    bool moved = false;
    for (const auto& t : topics) {
      const Topic topic(t);
      for (;;) {
        const auto& subs = subscribers[t];
        const std::size_t to = least(subs);
        // The most loaded subscriber that holds a partition of this topic.
        std::size_t from = n;
        for (std::size_t s : subs) {
          const bool holds = std::any_of(lists[s].begin(), lists[s].end(), [&](const TopicPartition& x) { return x.topic == topic; });
          if (holds && (from == n || lists[s].size() > lists[from].size())) from = s;
        }
        if (from == n || lists[from].size() < lists[to].size() + 2) break;
        auto it = std::find_if(lists[from].rbegin(), lists[from].rend(), [&](const TopicPartition& x) { return x.topic == topic; });
        const TopicPartition tp = *it;
        lists[from].erase(std::next(it).base());
        lists[to].push_back(tp);
        moved = true;
      }
    }
    if (!moved) break;
  }
  GroupAssignment out;
  for (std::size_t i = 0; i < n; ++i) out[group.members[i].member_id] = std::move(lists[i]);
  return out;
}

}  // namespace

std::vector<std::string> topic_id_order(const GroupSnapshot& group, const std::vector<std::string>& subscribed) {
  std::vector<std::string> out;
  if (!group.topic_order.empty()) {
    for (const auto& t : group.topic_order)
      if (std::find(subscribed.begin(), subscribed.end(), t) != subscribed.end()) out.push_back(t);
    for (const auto& t : subscribed)  // any the given order leaves out, by name
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    return out;
  }
  std::vector<std::int32_t> hashes;
  for (const auto& t : subscribed) hashes.push_back(java::string_hash(t));
  for (auto i : java::iteration_order(hashes, java::capacity_for(subscribed.size()))) out.push_back(subscribed[i]);
  return out;
}

GroupAssignment UniformAssignor::assign(const GroupSnapshot& group) const {
  const auto subscribed = subscribed_topics(group);
  if (group.members.empty()) return {};
  GroupAssignment out = homogeneous(group) ? homogeneous_uniform(group) : heterogeneous_uniform(group, subscribed);
  for (auto& [m, list] : out) std::sort(list.begin(), list.end());
  return out;
}

GroupAssignment ServerRangeAssignor::assign(const GroupSnapshot& group) const {
  const auto subscribed = subscribed_topics(group);
  GroupAssignment out;
  for (const auto& m : group.members) out[m.member_id];
  const auto sorted = sorted_members(group);  // instance ids first, then member ids
  for (const auto& t : subscribed) {
    std::vector<const MemberSubscription*> subs;
    for (const auto* m : sorted)
      if (std::find(m->topics.begin(), m->topics.end(), t) != m->topics.end()) subs.push_back(m);
    if (subs.empty()) continue;
    const int partitions = group.topics.at(t);
    const int k = static_cast<int>(subs.size());
    const int quota = partitions / k, extra = partitions % k;
    const Topic topic(t);
    int next = 0;
    for (int i = 0; i < k; ++i) {
      const int count = quota + (i < extra ? 1 : 0);
      for (int p = 0; p < count; ++p) out[subs[static_cast<std::size_t>(i)]->member_id].push_back(TopicPartition{topic, next++});
    }
  }
  return out;
}

std::unique_ptr<Assignor> make_consumer_assignor(std::string_view name) {
  if (name == "uniform") return std::make_unique<UniformAssignor>();
  if (name == "range") return std::make_unique<ServerRangeAssignor>();
  return nullptr;
}

}  // namespace rsim::protocols
