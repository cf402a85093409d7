#include "protocols/assignors/assignor.hpp"

#include "protocols/assignors/connect.hpp"
#include "protocols/assignors/cooperative_sticky.hpp"
#include "protocols/assignors/range.hpp"
#include "protocols/assignors/roundrobin.hpp"
#include "protocols/assignors/sticky.hpp"

#include <boost/sort/pdqsort/pdqsort.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

namespace rsim::protocols {

std::vector<const MemberSubscription*> sorted_members(const GroupSnapshot& group) {
  return sorted_by_instance_then_member(group.members);
}

namespace {

using PackedKeys = std::vector<std::pair<std::uint64_t, std::size_t>>;  // 8 bytes of a key, its position

// The length of the prefix keys [begin, end) share, at least the `depth`
// bytes they are known to share (or to tie on, padded with zeros).
std::size_t shared_prefix(const std::vector<std::string_view>& keys, PackedKeys::const_iterator begin,
                          PackedKeys::const_iterator end, std::size_t depth) {
  const std::string_view first = keys[begin->second];
  std::size_t shared = first.size();
  for (auto it = begin + 1; it != end && shared > depth; ++it) {
    const std::string_view k = keys[it->second];
    const std::size_t limit = std::min(shared, k.size());
    if (limit <= depth) return depth;
    const auto at = static_cast<std::ptrdiff_t>(depth);  // a short loop: ids share a few bytes (a call cost more)
    const auto diff = std::mismatch(first.begin() + at, first.begin() + static_cast<std::ptrdiff_t>(limit), k.begin() + at);
    shared = static_cast<std::size_t>(diff.first - first.begin());
  }
  return std::max(shared, depth);
}

// Bytes from..from+7 of a key big-endian (as unsigned chars, as std::string
// compares them), zeros past its end: packed keys in order are keys in
// order wherever they differ.
std::uint64_t packed_bytes(std::string_view key, std::size_t from) {
  std::uint64_t v = 0;
  if (from + 8 <= key.size()) {
    std::memcpy(&v, key.data() + from, 8);  // one load
    if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
    return v;
  }
  // A short tail (ids numbered after a prefix end in a few digits): shifted
  // in byte by byte; a memcpy of a variable length was a call, and half
  // of packing 1,000 ids (issue 16).
  int shift = 56;
  for (std::size_t i = from; i < key.size(); ++i, shift -= 8)
    v |= std::uint64_t{static_cast<unsigned char>(key[i])} << shift;
  return v;
}

// Sorts by the packed bytes alone (ties in any order): a radix sort, a
// pass per byte that varies, where that beats a comparison sort (ids
// numbered after a shared prefix vary in a few bytes: 10,000 of them took
// 4 passes, half pdqsort's time); pdqsort otherwise. Member ids numbered in
// order ("member0" .. "member9999") pack into a pattern on which
// std::sort's introsort fell back to heap sort, 3.5x slower at 10,000 ids
// (issue 16).
void sort_by_packed(PackedKeys::iterator begin, PackedKeys::iterator end) {
  const auto n = static_cast<std::size_t>(end - begin);
  std::uint64_t all = ~std::uint64_t{0}, any = 0;
  for (auto it = begin; it != end; ++it) {
    all &= it->first;
    any |= it->first;
  }
  const std::uint64_t varying = all ^ any;  // a bit set where two keys differ
  int passes = 0;
  for (int shift = 0; shift < 64; shift += 8) passes += ((varying >> shift) & 0xff) != 0 ? 1 : 0;
  // Measured: a pass costs about 1.5 comparisons per key; pdqsort log2(n).
  if (n < 256 || 3 * passes >= 2 * static_cast<int>(std::bit_width(n))) {
    boost::sort::pdqsort(begin, end, [](const auto& a, const auto& b) { return a.first < b.first; });
    return;
  }
  PackedKeys scratch(n);
  auto* from = &*begin;
  auto* to = scratch.data();
  for (int shift = 0; shift < 64; shift += 8) {
    if (((varying >> shift) & 0xff) == 0) continue;
    std::array<std::size_t, 257> at{};  // where each byte value's keys go
    for (std::size_t i = 0; i < n; ++i) ++at[((from[i].first >> shift) & 0xff) + 1];
    std::partial_sum(at.begin(), at.end(), at.begin());
    for (std::size_t i = 0; i < n; ++i) to[at[(from[i].first >> shift) & 0xff]++] = from[i];
    std::swap(from, to);
  }
  if (passes % 2 != 0) std::copy(from, from + n, &*begin);  // the last pass wrote the scratch
}

// Past this many bytes, ties are left to string compares: keys that tie
// that far (trailing zero bytes, or equal keys) are not worth a level each.
constexpr std::size_t kPackedDepth = 64;

// Sorts [begin, end), keys sharing (or tying on) their first `depth` bytes,
// by the 8 bytes after the prefix they all share, then each run of equal
// packed bytes by the next 8 (a multikey sort, 8 bytes a level). Equal
// keys end up adjacent, in any order.
void sort_packed(const std::vector<std::string_view>& keys, PackedKeys::iterator begin, PackedKeys::iterator end,
                 std::size_t depth) {
  if (end - begin < 2) return;
  if (depth >= kPackedDepth) {
    std::sort(begin, end, [&](const auto& a, const auto& b) { return keys[a.second] < keys[b.second]; });
    return;
  }
  const std::size_t shared = shared_prefix(keys, begin, end, depth);
  for (auto it = begin; it != end; ++it) it->first = packed_bytes(keys[it->second], shared);
  sort_by_packed(begin, end);
  for (auto run = begin; run != end;) {
    const auto run_end = std::find_if(run + 1, end, [&](const auto& p) { return p.first != run->first; });
    if (run_end - run > 1) sort_packed(keys, run, run_end, shared + 8);
    run = run_end;
  }
}

}  // namespace

std::optional<std::vector<std::size_t>> distinct_string_order(const std::vector<std::string_view>& keys) {
  PackedKeys packed(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) packed[i] = {0, i};
  sort_packed(keys, packed.begin(), packed.end(), 0);
  for (std::size_t i = 1; i < packed.size(); ++i)  // equal keys tie at every level: their last packed bytes too
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
