#include "protocols/assignors/assignor.hpp"

#include "protocols/assignors/connect.hpp"
#include "protocols/assignors/cooperative_sticky.hpp"
#include "protocols/assignors/range.hpp"
#include "protocols/assignors/roundrobin.hpp"
#include "protocols/assignors/sticky.hpp"

#include <boost/sort/pdqsort/pdqsort.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <map>
#include <set>

namespace rsim::protocols {

std::vector<const MemberSubscription*> sorted_members(const GroupSnapshot& group) {
  return sorted_by_instance_then_member(group.members);
}

std::optional<std::vector<std::size_t>> distinct_string_order(const std::vector<std::string_view>& keys) {
  std::size_t shared = keys.empty() ? 0 : keys[0].size();
  for (const auto& k : keys) {
    const auto diff = std::mismatch(keys[0].begin(), keys[0].begin() + static_cast<std::ptrdiff_t>(shared), k.begin(), k.end());
    shared = static_cast<std::size_t>(diff.first - keys[0].begin());
  }
  // Bytes shared..shared+7 big-endian (as unsigned chars, as std::string
  // compares them), zeros past the end: packed keys in order are keys in
  // order wherever they differ.
  std::vector<std::pair<std::uint64_t, std::size_t>> packed(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < 8; ++b) {
      const std::size_t at = shared + b;
      v = (v << 8) | (at < keys[i].size() ? static_cast<unsigned char>(keys[i][at]) : 0u);
    }
    packed[i] = {v, i};
  }
  // pdqsort: member ids numbered in order ("member0" .. "member9999") pack
  // into a pattern on which std::sort's introsort fell back to heap sort,
  // 3.5x slower at 10,000 ids (issue 16). A total order: the same answer.
  boost::sort::pdqsort(packed.begin(), packed.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    const int c = keys[a.second].substr(shared).compare(keys[b.second].substr(shared));
    return c != 0 ? c < 0 : a.second < b.second;
  });
  for (std::size_t i = 1; i < packed.size(); ++i)
    if (packed[i].first == packed[i - 1].first && keys[packed[i].second] == keys[packed[i - 1].second]) return std::nullopt;
  std::vector<std::size_t> out;
  out.reserve(packed.size());
  for (const auto& p : packed) out.push_back(p.second);
  return out;
}

bool use_rack_aware_assignment(const std::vector<std::string>& consumer_racks,
                               const std::vector<std::string>& partition_racks,
                               const std::vector<std::vector<std::string>>& racks_per_partition, bool prefer) {
  const std::set<std::string> consumers(consumer_racks.begin(), consumer_racks.end());
  const std::set<std::string> all(partition_racks.begin(), partition_racks.end());
  if (consumers.empty() || std::none_of(consumers.begin(), consumers.end(), [&](const auto& r) { return all.count(r) != 0; }))
    return false;
  if (prefer) return true;
  return !std::all_of(racks_per_partition.begin(), racks_per_partition.end(), [&](const auto& racks) {
    return std::set<std::string>(racks.begin(), racks.end()) == all;
  });
}

TopicPartition PartitionSequence::at(std::size_t pos) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end() - 1, pos,
                             [](std::size_t p, const auto& start) { return p < start.second; });
  --it;
  return TopicPartition{it->first, static_cast<int>(pos - it->second)};
}

// Written through a raw pointer, so that nothing but the cursors stays live
// in the loop (a push_back loop kept them in memory: 2 ns a partition).
void PartitionSequence::append_strided(std::vector<TopicPartition>& list, std::size_t first, std::size_t stride,
                                       std::size_t count) const {
  const std::size_t base = list.size();
  list.resize(base + count);
  TopicPartition* out = list.data() + base;
  TopicPartition* const end = out + count;
  const auto* topic = starts_.data();
  for (std::size_t pos = first; out != end; ++out, pos += stride) {
    while (topic[1].second <= pos) ++topic;
    *out = TopicPartition{topic->first, static_cast<int>(pos - topic->second)};
  }
}

void PartitionSequence::deal(const std::vector<std::vector<TopicPartition>*>& lists) const {
  const std::size_t n = lists.size();
  for (std::size_t k = 0; k < n && k < size(); ++k) append_strided(*lists[k], k, n, (size() - k + n - 1) / n);
}

std::vector<std::vector<TopicPartition>*> add_empty_lists(const GroupSnapshot& group, GroupAssignment& out) {
  std::vector<std::vector<TopicPartition>*> lists;
  lists.reserve(group.members.size());
  for (const auto& m : group.members)
    lists.push_back(&out.emplace_hint(out.end(), m.member_id, std::vector<TopicPartition>())->second);
  return lists;
}

SubscriptionIndex index_subscriptions(const std::vector<const MemberSubscription*>& members) {
  SubscriptionIndex index;
  // Distinct subscription lists, each resolved once.
  std::map<std::vector<std::string>, std::size_t> seen;
  std::vector<std::size_t> which;
  const TopicNames* previous = nullptr;  // compared by pointer first: members subscribing alike share a list
  for (const auto* m : members) {
    if (previous != nullptr && *previous == m->topics) {  // the common case: same as the member before
      which.push_back(which.back());
      continue;
    }
    previous = &m->topics;
    which.push_back(seen.emplace(m->topics, seen.size()).first->second);
  }
  std::set<std::string> all;
  for (const auto& [topics, i] : seen) all.insert(topics.begin(), topics.end());
  index.topics.assign(all.begin(), all.end());
  index.distinct.resize(seen.size());
  for (const auto& [topics, i] : seen) {
    for (const auto& t : topics)
      index.distinct[i].push_back(static_cast<std::size_t>(
          std::lower_bound(index.topics.begin(), index.topics.end(), t) - index.topics.begin()));
    std::sort(index.distinct[i].begin(), index.distinct[i].end());
    index.distinct[i].erase(std::unique(index.distinct[i].begin(), index.distinct[i].end()), index.distinct[i].end());
  }
  for (std::size_t w : which) index.of_member.push_back(&index.distinct[w]);
  return index;
}

namespace {
// Kafka Streams' HighAvailabilityTaskAssignor works on clients and tasks, run
// by the classic Streams leader (protocols/streams/classic_leader.hpp), not
// on a snapshot of partitions: here it is only a name.
class StreamsTaskAssignorName final : public Assignor {
 public:
  std::string_view name() const override { return "high-availability"; }
  GroupAssignment assign(const GroupSnapshot&) const override {
    throw std::logic_error("high-availability is run by the Streams leader, not on a partition snapshot");
  }
};
}  // namespace

std::unique_ptr<Assignor> make_classic_assignor(std::string_view name) {
  if (name == "high-availability") return std::make_unique<StreamsTaskAssignorName>();
  if (name == "range") return std::make_unique<RangeAssignor>();
  if (name == "roundrobin") return std::make_unique<RoundRobinAssignor>();
  if (name == "sticky") return std::make_unique<StickyAssignor>();
  if (name == "cooperative-sticky") return std::make_unique<CooperativeStickyAssignor>();
  if (name == "connect") return std::make_unique<connect::ConnectAssignor>();
  return nullptr;
}

}  // namespace rsim::protocols
