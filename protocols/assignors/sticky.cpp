#include "protocols/assignors/sticky.hpp"

#include "protocols/assignors/java_order.hpp"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <deque>
#include <map>
#include <set>

namespace rsim::protocols {

namespace {

constexpr int kDefaultGeneration = -1;
using Partitions = std::vector<TopicPartition>;

void erase_one(Partitions& list, const TopicPartition& tp) {
  auto it = std::find(list.begin(), list.end(), tp);
  if (it != list.end()) list.erase(it);
}

bool contains(const std::vector<Topic>& list, Topic t) { return std::find(list.begin(), list.end(), t) != list.end(); }

// Dense ids for the partitions of the subscribed topics: topics by name,
// partitions in order, so id order is (topic, partition) order. Lookups go
// through a table indexed by topic handle: one load per partition.
class PartitionIds {
 public:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  PartitionIds() = default;
  explicit PartitionIds(const std::map<Topic, int>& partitions_per_topic)
      : base_(Topic::count(), kNone), count_(Topic::count(), 0), rank_(Topic::count(), 0) {
    std::uint32_t rank = 0;
    for (const auto& [t, n] : partitions_per_topic) {
      base_[t.id()] = total_;
      count_[t.id()] = n;
      rank_[t.id()] = rank++;
      total_ += static_cast<std::size_t>(n);
    }
  }
  std::size_t size() const { return total_; }
  std::size_t id(const TopicPartition& tp) const { return base_[tp.topic.id()] + static_cast<std::size_t>(tp.partition); }
  // Whether tp is a partition of one of the subscribed topics.
  bool valid(const TopicPartition& tp) const {
    const auto t = tp.topic.id();
    return t < base_.size() && base_[t] != kNone && tp.partition >= 0 && tp.partition < count_[t];
  }
  // The topic's position among the subscribed topics by name.
  std::uint32_t rank(Topic t) const { return rank_[t.id()]; }

 private:
  std::vector<std::size_t> base_;
  std::vector<int> count_;
  std::vector<std::uint32_t> rank_;
  std::size_t total_ = 0;
};

// What every sticky run starts from (Kafka's allSubscriptionsEqual).
struct Input {
  // The Java HashMap iteration order of the subscriptions; `members` and
  // `owned` are parallel to it.
  std::vector<const std::string*> consumers;
  std::vector<const MemberSubscription*> members;
  std::vector<std::uint32_t> by_id;             // positions in member id order
  std::vector<Partitions> owned;                // valid owned partitions per consumer
  std::map<Topic, int> partitions_per_topic;    // subscribed topics that exist
  PartitionIds ids;                             // of partitions_per_topic
  std::set<TopicPartition> multiple_owners;     // claimed twice in one generation
  int max_generation = kDefaultGeneration;
  bool all_equal = true;
  int total = 0;
};

std::vector<std::string> as_set(const std::vector<std::string>& topics) {
  std::vector<std::string> s = topics;
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

Input prepare(const GroupSnapshot& group) {
  Input in;
  std::vector<std::int32_t> hashes;
  hashes.reserve(group.members.size());
  for (const auto& m : group.members) hashes.push_back(java::string_hash(m.member_id));
  std::vector<std::uint32_t> position(group.members.size());  // snapshot index -> HashMap position
  for (std::size_t i : java::iteration_order(hashes, java::capacity_for(group.members.size()))) {
    position[i] = static_cast<std::uint32_t>(in.consumers.size());
    in.consumers.push_back(&group.members[i].member_id);
    in.members.push_back(&group.members[i]);
  }
  // Positions by member id. Snapshots usually list members by id already
  // (the simulator builds them from ordered maps): then this is one check.
  auto by_member_id = [](const MemberSubscription& a, const MemberSubscription& b) { return a.member_id < b.member_id; };
  if (std::is_sorted(group.members.begin(), group.members.end(), by_member_id)) {
    in.by_id = position;
  } else {
    in.by_id.resize(group.members.size());
    for (std::uint32_t c = 0; c < in.by_id.size(); ++c) in.by_id[c] = c;
    std::sort(in.by_id.begin(), in.by_id.end(),
              [&](std::uint32_t a, std::uint32_t b) { return *in.consumers[a] < *in.consumers[b]; });
  }
  // Subscriptions: nearly always the same list member after member, so each
  // list is looked at once and compared to the one before it.
  const TopicNames* previous = nullptr;  // compared by pointer first: members subscribing alike share a list
  std::vector<std::string> first_set;
  for (const MemberSubscription* m : in.members) {
    if (previous != nullptr && *previous == m->topics) continue;
    if (previous == nullptr) first_set = as_set(m->topics);
    else if (in.all_equal && as_set(m->topics) != first_set) in.all_equal = false;
    previous = &m->topics;
    for (const auto& t : m->topics)
      if (auto it = group.topics.find(t); it != group.topics.end()) in.partitions_per_topic.emplace(Topic(t), it->second);
  }
  for (const auto& [t, n] : in.partitions_per_topic) in.total += n;

  in.ids = PartitionIds(in.partitions_per_topic);
  const PartitionIds& ids = in.ids;
  constexpr std::uint32_t kNobody = static_cast<std::uint32_t>(-1);
  in.owned.resize(in.members.size());
  for (const MemberSubscription* m : in.members) in.max_generation = std::max(in.max_generation, m->generation);
  const bool anything_owned =
      std::any_of(in.members.begin(), in.members.end(), [](const MemberSubscription* m) { return !m->owned.empty(); });
  if (!anything_owned) return in;
  std::vector<std::uint32_t> previous_owner(ids.size(), kNobody);
  for (std::size_t c = 0; c < in.members.size(); ++c) {
    const MemberSubscription& s = *in.members[c];
    const int generation = s.generation;
    Partitions& owned = in.owned[c];
    owned.reserve(s.owned.size());
    for (const auto& tp : s.owned) {
      if (!ids.valid(tp)) continue;
      std::uint32_t& other = previous_owner[ids.id(tp)];
      if (other == kNobody) {
        owned.push_back(tp);
        other = static_cast<std::uint32_t>(c);
        continue;
      }
      const int other_generation = in.members[other]->generation;
      if (generation == other_generation) {
        // Two members of one generation claim it: neither keeps it.
        in.multiple_owners.insert(tp);
        erase_one(in.owned[other], tp);
        other = static_cast<std::uint32_t>(c);
      } else if (generation > other_generation) {
        owned.push_back(tp);
        erase_one(in.owned[other], tp);
        other = static_cast<std::uint32_t>(c);
      }
    }
  }
  return in;
}

// ------------------------------------------------------------------ constrained

StickyResult constrained(const Input& in) {
  StickyResult out;
  out.transferring.emplace();
  auto& transferring = *out.transferring;
  const int n = static_cast<int>(in.consumers.size());
  const int min_quota = in.total / n;
  const int max_quota = (in.total + n - 1) / n;
  const int expected_over_min = in.total % n;
  int current_over_min = 0;
  const PartitionIds& ids = in.ids;
  // Per partition id: kept by its owner, taken from its owner, claimed twice.
  enum : char { kFree = 0, kAssigned = 1, kRevoked = 2, kMultiple = 4 };
  std::vector<char> state(ids.size(), kFree);
  for (const auto& tp : in.multiple_owners) state[ids.id(tp)] |= kMultiple;
  // Whether any partition is kept, and whether any is taken from its owner.
  bool any_kept = false;
  bool any_taken_away = !in.multiple_owners.empty();
  auto mark = [&](char flag, Partitions::const_iterator from, Partitions::const_iterator to) {
    if (from == to) return;
    (flag == kAssigned ? any_kept : any_taken_away) = true;
    for (auto it = from; it != to; ++it) state[ids.id(*it)] |= flag;
  };
  // Members by position in the HashMap order (in.consumers).
  std::vector<Partitions> assignment(in.consumers.size());
  // unfilledMembersWithUnderMinQuotaPartitions and
  // unfilledMembersWithExactlyMinQuotaPartitions.
  std::vector<std::uint32_t> under_min, exactly_min;

  // Owners keep what they own up to their quota (in HashMap order: the
  // first owners of maxQuota keep that many while more may).
  Partitions owned;
  for (std::size_t c = 0; c < in.consumers.size(); ++c) {
    const auto member = static_cast<std::uint32_t>(c);
    Partitions& mine = assignment[c];
    mine.reserve(static_cast<std::size_t>(max_quota));
    if (in.owned[c].empty() && min_quota > 0) {  // the common case of a new member
      under_min.push_back(member);
      continue;
    }
    owned = in.owned[c];
    std::stable_sort(owned.begin(), owned.end(), [&](const TopicPartition& a, const TopicPartition& b) {
      return a.partition != b.partition ? a.partition < b.partition : ids.rank(a.topic) < ids.rank(b.topic);
    });
    if (!in.multiple_owners.empty())
      owned.erase(std::remove_if(owned.begin(), owned.end(),
                                 [&](const TopicPartition& tp) { return (state[ids.id(tp)] & kMultiple) != 0; }),
                  owned.end());
    const int size = static_cast<int>(owned.size());
    if (size < min_quota) {
      mine.insert(mine.end(), owned.begin(), owned.end());
      mark(kAssigned, owned.begin(), owned.end());
      under_min.push_back(member);
    } else if (size >= max_quota && current_over_min < expected_over_min) {
      if (++current_over_min == expected_over_min) exactly_min.clear();
      mine.insert(mine.end(), owned.begin(), owned.begin() + max_quota);
      mark(kAssigned, owned.begin(), owned.begin() + max_quota);
      mark(kRevoked, owned.begin() + max_quota, owned.end());
    } else {
      mine.insert(mine.end(), owned.begin(), owned.begin() + min_quota);
      mark(kAssigned, owned.begin(), owned.begin() + min_quota);
      mark(kRevoked, owned.begin() + min_quota, owned.end());
      if (current_over_min < expected_over_min) exactly_min.push_back(member);
    }
  }

  // Both lists sorted by member id: the members in id order, filtered.
  const std::vector<std::uint32_t>& by_id = in.by_id;
  auto in_id_order = [&](std::vector<std::uint32_t>& list) {
    if (list.size() < 2) return;
    std::vector<char> listed(in.consumers.size(), 0);
    for (std::uint32_t c : list) listed[c] = 1;
    list.clear();
    for (std::uint32_t c : by_id)
      if (listed[c] != 0) list.push_back(c);
  };
  in_id_order(under_min);
  in_id_order(exactly_min);

  // Kafka then deals the unassigned partitions, in (topic, partition) order,
  // round-robin over the members under minQuota (a member reaching minQuota
  // leaves that list for the back of exactly_min), and once none is under
  // minQuota, one each to the members of exactly_min, front first.
  //
  // The deal has a closed form, which lets each member's list be written in
  // one go instead of one partition per member in turn (which made the walk
  // memory-bound): a member needing n partitions takes part in passes
  // 0..n-1, pass r is the members needing more than r, in id order, and it
  // deals the next |pass r| unassigned partitions in that order. Every
  // member under minQuota reaches it before the partitions run out (kept +
  // needed <= P), and reaches it in pass need-1, so exactly_min grows by
  // them ordered by (need, id).
  // When nobody keeps anything (a fresh group) the unassigned partitions are
  // all of them, and the one at a position is computed instead of read: the
  // deal reads each member's positions with a stride of the pass size, which
  // costs a cache miss per partition when they come from a list.
  // (Only when nothing is taken from an owner either: those partitions are
  // recorded as transferring as they are dealt.)
  const bool all_unassigned = !any_kept && !any_taken_away;
  Partitions unassigned;
  if (!all_unassigned) {
    unassigned.reserve(ids.size());
    std::size_t id = 0;
    for (const auto& [topic, count] : in.partitions_per_topic)
      for (int p = 0; p < count; ++p, ++id)
        if ((state[id] & kAssigned) == 0) unassigned.push_back(TopicPartition{topic, p});
  }
  const std::size_t unassigned_count = all_unassigned ? ids.size() : unassigned.size();
  // Every partition, for the computed case.
  PartitionSequence all;
  if (all_unassigned)
    for (const auto& [topic, count] : in.partitions_per_topic) all.add(topic, count);
  std::vector<std::size_t> needs(in.consumers.size(), 0);
  for (std::uint32_t c : under_min) needs[c] = static_cast<std::size_t>(min_quota) - assignment[c].size();
  std::size_t passes = 0;
  for (std::uint32_t c : under_min) passes = std::max(passes, needs[c]);
  // Pass r has the members needing more than r: a histogram of the needs,
  // summed from the top, gives the passes' sizes, and their sums the starts.
  std::vector<std::size_t> start(passes + 1, 0);  // where pass r starts in `unassigned`
  {
    std::vector<std::size_t> with_need(passes + 1, 0);
    for (std::uint32_t c : under_min) ++with_need[needs[c]];
    std::size_t size = 0;  // members needing more than r
    std::vector<std::size_t> pass_size(passes, 0);
    for (std::size_t r = passes; r-- > 0;) pass_size[r] = (size += with_need[r + 1]);
    for (std::size_t r = 0; r < passes; ++r) start[r + 1] = start[r] + pass_size[r];
  }
  assert(start[passes] <= unassigned_count);

  auto take = [&](std::uint32_t c, std::size_t pos) {
    const TopicPartition& tp = unassigned[pos];
    assignment[c].push_back(tp);
    if (any_taken_away && (state[ids.id(tp)] & (kRevoked | kMultiple)) != 0) transferring[tp] = *in.consumers[c];
  };
  std::vector<std::size_t> before(passes, 0);  // members of pass r dealt so far
  const bool equal_needs =
      std::all_of(under_min.begin(), under_min.end(), [&](std::uint32_t c) { return needs[c] == needs[under_min[0]]; });
  if (all_unassigned && equal_needs) {
    // The fresh group: every pass is every member, so the k-th member in id
    // order takes positions k, k + n, k + 2n, ...
    const std::size_t stride = under_min.size();
    for (std::size_t k = 0; k < under_min.size(); ++k) {
      const std::uint32_t c = under_min[k];
      all.append_strided(assignment[c], k, stride, needs[c]);
    }
  } else if (all_unassigned) {
    // Nothing is taken from anyone: no transfers.
    for (std::uint32_t c : under_min)
      for (std::size_t r = 0; r < needs[c]; ++r) assignment[c].push_back(all.at(start[r] + before[r]++));
  } else {
    for (std::uint32_t c : under_min) {
      for (std::size_t r = 0; r < needs[c]; ++r) take(c, start[r] + before[r]++);
    }
  }
  std::stable_sort(under_min.begin(), under_min.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return needs[a] < needs[b]; });
  exactly_min.insert(exactly_min.end(), under_min.begin(), under_min.end());
  std::size_t next = start[passes];
  for (std::uint32_t c : exactly_min) {
    if (next == unassigned_count) break;
    if (all_unassigned) {
      assignment[c].push_back(all.at(next++));
    } else {
      take(c, next++);
    }
  }
  assert(next == unassigned_count && "no more unfilled consumers to be assigned");
  for (std::uint32_t c : by_id) out.assignment.emplace_hint(out.assignment.end(), *in.consumers[c], std::move(assignment[c]));
  return out;
}

// ------------------------------------------------------------------ racks

// Kafka's AbstractStickyAssignor.RackInfo for one run. The racks are kept
// only when rack-aware assignment is useful
// (AbstractPartitionAssignor.useRackAwareAssignment); otherwise no consumer
// has a rack here and nothing is rack-aware.
class RackInfo {
 public:
  RackInfo() = default;
  RackInfo(const GroupSnapshot& group, const Input& in) {
    std::vector<std::string> consumer_racks;
    for (const MemberSubscription* m : in.members)
      if (m->rack && !m->rack->empty()) consumer_racks.push_back(*m->rack);
    if (consumer_racks.empty()) return;
    // Every partition of the subscribed topics gets its (possibly empty)
    // set of replica racks, as soon as some consumer has a rack.
    std::vector<std::vector<std::string>> racks;
    std::vector<std::string> all;
    racks.reserve(in.ids.size());
    for (const auto& [topic, count] : in.partitions_per_topic) {
      const auto it = group.partition_racks.find(topic.name());
      for (int p = 0; p < count; ++p) {
        std::vector<std::string> r;
        if (it != group.partition_racks.end() && static_cast<std::size_t>(p) < it->second.size())
          r = as_set(it->second[static_cast<std::size_t>(p)]);
        all.insert(all.end(), r.begin(), r.end());
        racks.push_back(std::move(r));
      }
    }
    if (!use_rack_aware_assignment(consumer_racks, all, racks, group.prefer_rack_aware)) return;
    aware_ = true;
    consumer_rack_.resize(in.members.size(), nullptr);
    for (std::size_t c = 0; c < in.members.size(); ++c) {
      const auto& rack = in.members[c]->rack;
      if (rack && !rack->empty()) consumer_rack_[c] = &*rack;
    }
    // numConsumersByPartition: consumers whose rack holds a replica.
    std::map<std::string, int> consumers_on;
    for (const auto& r : consumer_racks) ++consumers_on[r];
    consumers_on_racks_.reserve(racks.size());
    for (const auto& r : racks) {
      int n = 0;
      for (const auto& rack : r)
        if (auto it = consumers_on.find(rack); it != consumers_on.end()) n += it->second;
      consumers_on_racks_.push_back(n);
    }
    partition_racks_ = std::move(racks);
  }

  bool aware() const { return aware_; }
  const std::string* rack_of(std::size_t consumer) const { return aware_ ? consumer_rack_[consumer] : nullptr; }
  // RackInfo.racksMismatch: the consumer has a rack and no replica is on it.
  bool mismatch(std::size_t consumer, std::size_t partition_id) const {
    const std::string* rack = rack_of(consumer);
    return rack != nullptr && !on_rack(partition_id, *rack);
  }
  bool on_rack(std::size_t partition_id, const std::string& rack) const {
    const auto& r = partition_racks_[partition_id];
    return std::binary_search(r.begin(), r.end(), rack);
  }
  int consumers_on_racks(std::size_t partition_id) const { return consumers_on_racks_[partition_id]; }
  // RackInfo.nextRackConsumer: the first position from `first` on, going
  // round the list, of a consumer on one of the partition's racks; -1: none.
  template <class List>
  long next_rack_consumer(std::size_t partition_id, const List& consumers, std::size_t first) const {
    if (partition_racks_[partition_id].empty()) return -1;
    for (std::size_t i = 0; i < consumers.size(); ++i) {
      const std::size_t index = (first + i) % consumers.size();
      const std::string* rack = rack_of(consumers[index]);
      if (rack != nullptr && on_rack(partition_id, *rack)) return static_cast<long>(index);
    }
    return -1;
  }

 private:
  bool aware_ = false;
  std::vector<const std::string*> consumer_rack_;        // parallel to Input::consumers
  std::vector<std::vector<std::string>> partition_racks_;  // by partition id, sorted
  std::vector<int> consumers_on_racks_;                  // by partition id
};

// ------------------------------------------------------- constrained, by rack

// Kafka's ConstrainedAssignmentBuilder when rack-aware: owners keep only
// owned partitions on their rack; the rest is first dealt round-robin among
// consumers on a replica's rack within the quotas
// (assignRackAwareRoundRobin), and only then without racks
// (assignRoundRobin). A direct port: the closed-form deal of constrained()
// does not hold once racks pick the consumer.
class RackAwareConstrained {
 public:
  RackAwareConstrained(const Input& in, const RackInfo& racks)
      : in_(in),
        racks_(racks),
        n_(static_cast<int>(in.consumers.size())),
        min_quota_(in.total / n_),
        max_quota_((in.total + n_ - 1) / n_),
        expected_over_min_(in.total % n_),
        assignment_(in.consumers.size()),
        kept_(in.ids.size(), 0),
        multiple_(in.ids.size(), 0),
        maybe_revoked_(in.ids.size(), kNobody) {
    for (const auto& tp : in.multiple_owners) multiple_[in.ids.id(tp)] = 1;
  }

  StickyResult build() {
    out_.transferring.emplace();
    assign_owned();
    by_member_id(under_min_);
    by_member_id(exactly_min_);
    Partitions unassigned = sorted_by_rack_consumers(unassigned_partitions());
    unassigned = assign_rack_aware_round_robin(unassigned);
    assign_round_robin(unassigned);
    for (std::uint32_t c : in_.by_id)
      out_.assignment.emplace_hint(out_.assignment.end(), *in_.consumers[c], std::move(assignment_[c]));
    return std::move(out_);
  }

 private:
  static constexpr std::uint32_t kNobody = static_cast<std::uint32_t>(-1);

  // assignOwnedPartitions: as constrained(), but an owned partition with no
  // replica on its owner's rack is not kept (it may go to someone else).
  void assign_owned() {
    for (std::uint32_t c = 0; c < in_.consumers.size(); ++c) {
      Partitions owned;
      for (const auto& tp : in_.owned[c]) {
        const std::size_t id = in_.ids.id(tp);
        if (racks_.mismatch(c, id)) maybe_revoked_[id] = c;
        else if (multiple_[id] == 0) owned.push_back(tp);
      }
      std::stable_sort(owned.begin(), owned.end(), [&](const TopicPartition& a, const TopicPartition& b) {
        return a.partition != b.partition ? a.partition < b.partition : in_.ids.rank(a.topic) < in_.ids.rank(b.topic);
      });
      keep_owned(c, owned);
    }
  }

  void keep_owned(std::uint32_t c, const Partitions& owned) {
    const int size = static_cast<int>(owned.size());
    int keep = size;
    if (size < min_quota_) {
      under_min_.push_back(c);
    } else if (size >= max_quota_ && current_over_min_ < expected_over_min_) {
      if (++current_over_min_ == expected_over_min_) exactly_min_.clear();
      keep = max_quota_;
    } else {
      keep = min_quota_;
      if (current_over_min_ < expected_over_min_) exactly_min_.push_back(c);
    }
    for (int i = 0; i < size; ++i) {
      const std::size_t id = in_.ids.id(owned[static_cast<std::size_t>(i)]);
      if (i < keep) {
        assignment_[c].push_back(owned[static_cast<std::size_t>(i)]);
        kept_[id] = 1;
      } else {
        maybe_revoked_[id] = c;
      }
    }
  }

  template <class List>
  void by_member_id(List& list) const {
    std::sort(list.begin(), list.end(), [&](std::uint32_t a, std::uint32_t b) { return *in_.consumers[a] < *in_.consumers[b]; });
  }

  // getUnassignedPartitions: by topic name, then partition.
  Partitions unassigned_partitions() const {
    Partitions out;
    std::size_t id = 0;
    for (const auto& [topic, count] : in_.partitions_per_topic)
      for (int p = 0; p < count; ++p, ++id)
        if (kept_[id] == 0) out.push_back(TopicPartition{topic, p});
    return out;
  }

  // RackInfo.sortPartitionsByRackConsumers: partitions with fewer consumers
  // on their racks first (a stable sort), so they get those consumers.
  Partitions sorted_by_rack_consumers(Partitions partitions) const {
    std::stable_sort(partitions.begin(), partitions.end(), [&](const TopicPartition& a, const TopicPartition& b) {
      return racks_.consumers_on_racks(in_.ids.id(a)) < racks_.consumers_on_racks(in_.ids.id(b));
    });
    return partitions;
  }

  // assignRackAwareRoundRobin: returns the partitions it could not place.
  Partitions assign_rack_aware_round_robin(const Partitions& unassigned) {
    Partitions left;
    std::size_t next = 0;  // nextUnfilledConsumerIndex
    for (const auto& tp : unassigned) {
      const std::size_t id = in_.ids.id(tp);
      std::uint32_t consumer = kNobody;
      if (const long index = racks_.next_rack_consumer(id, under_min_, next); index >= 0) {
        consumer = under_min_[static_cast<std::size_t>(index)];
        next = static_cast<std::size_t>(index);
        if (fill_under_min(consumer, next)) ++next;
        next = under_min_.empty() ? 0 : next % under_min_.size();
      } else if (!exactly_min_.empty()) {
        consumer = take_exactly_min_on_rack(id);
      }
      if (consumer == kNobody) {
        left.push_back(tp);
      } else {
        assign_new(tp, consumer);
      }
    }
    return left;
  }

  // A member under minQuota about to get one more: it leaves the list when
  // that reaches minQuota (and may wait for one more among those at
  // minQuota). Returns whether it stays at `index`.
  bool fill_under_min(std::uint32_t consumer, std::size_t index) {
    const int count = static_cast<int>(assignment_[consumer].size()) + 1;
    if (count < min_quota_) return true;
    under_min_.erase(under_min_.begin() + static_cast<long>(index));
    if (count < max_quota_ && current_over_min_ < expected_over_min_) exactly_min_.push_back(consumer);
    return false;
  }

  // A member at minQuota on one of the partition's racks, if any, takes it
  // and reaches maxQuota; kNobody otherwise.
  std::uint32_t take_exactly_min_on_rack(std::size_t partition_id) {
    const long index = racks_.next_rack_consumer(partition_id, exactly_min_, 0);
    if (index < 0) return kNobody;
    const std::uint32_t consumer = exactly_min_[static_cast<std::size_t>(index)];
    if (static_cast<int>(assignment_[consumer].size()) + 1 == max_quota_) {
      exactly_min_.erase(exactly_min_.begin() + index);
      if (++current_over_min_ == expected_over_min_) exactly_min_.clear();
    }
    return consumer;
  }

  // assignRoundRobin: members under minQuota in turn (a Java iterator over
  // the list, restarted when it runs out), then those at minQuota in order.
  void assign_round_robin(const Partitions& unassigned) {
    std::size_t next = 0;  // the iterator: the position of its next element
    for (const auto& tp : unassigned) {
      std::uint32_t consumer;
      if (next < under_min_.size()) {
        consumer = under_min_[next++];
      } else if (!under_min_.empty()) {
        next = 0;
        consumer = under_min_[next++];
      } else {
        assert(!exactly_min_.empty() && "no more unfilled consumers to be assigned");
        consumer = exactly_min_.front();
        exactly_min_.pop_front();
      }
      const int count = assign_new(tp, consumer);
      if (count == min_quota_) {
        under_min_.erase(under_min_.begin() + static_cast<long>(--next));
        exactly_min_.push_back(consumer);
      } else if (count == max_quota_) {
        ++current_over_min_;
      }
    }
  }

  // assignNewPartition: a partition some other member owned (or two members
  // claimed) transfers ownership.
  int assign_new(const TopicPartition& tp, std::uint32_t consumer) {
    assignment_[consumer].push_back(tp);
    const std::size_t id = in_.ids.id(tp);
    if ((maybe_revoked_[id] != kNobody && maybe_revoked_[id] != consumer) || multiple_[id] != 0)
      (*out_.transferring)[tp] = *in_.consumers[consumer];
    return static_cast<int>(assignment_[consumer].size());
  }

  const Input& in_;
  const RackInfo& racks_;
  const int n_, min_quota_, max_quota_, expected_over_min_;
  int current_over_min_ = 0;
  std::vector<Partitions> assignment_;          // by position in Input::consumers
  std::vector<char> kept_, multiple_;           // by partition id
  std::vector<std::uint32_t> maybe_revoked_;    // by partition id: the owner that let it go
  std::vector<std::uint32_t> under_min_;        // unfilledMembersWithUnderMinQuotaPartitions
  std::deque<std::uint32_t> exactly_min_;       // unfilledMembersWithExactlyMinQuotaPartitions
  StickyResult out_;
};

// ------------------------------------------------------------------ general

struct ConsumerPair {
  std::string src, dst;
  bool operator<(const ConsumerPair& o) const { return src != o.src ? src < o.src : dst < o.dst; }
};

// A java.util.HashSet<TopicPartition>, for the one place Kafka takes "any"
// element of it: the first in Java's iteration order.
class JavaPartitionSet {
 public:
  void add(const TopicPartition& tp) {
    if (std::any_of(items_.begin(), items_.end(), [&](const auto& i) { return i.first == tp; })) return;
    items_.emplace_back(tp, seq_++);
    capacity_ = std::max(capacity_, java::capacity_for(items_.size()));
  }
  void remove(const TopicPartition& tp) {
    items_.erase(std::remove_if(items_.begin(), items_.end(), [&](const auto& i) { return i.first == tp; }), items_.end());
  }
  bool empty() const { return items_.empty(); }
  TopicPartition first() const {
    assert(!items_.empty());
    auto bucket = [&](const TopicPartition& tp) { return java::spread(java::topic_partition_hash(tp)) & (capacity_ - 1); };
    return std::min_element(items_.begin(), items_.end(), [&](const auto& a, const auto& b) {
             const auto ba = bucket(a.first), bb = bucket(b.first);
             return ba != bb ? ba < bb : a.second < b.second;
           })->first;
  }

 private:
  std::vector<std::pair<TopicPartition, std::uint64_t>> items_;
  std::uint64_t seq_ = 0;
  std::size_t capacity_ = 16;
};

// Kafka's PartitionMovements: where partitions moved during this run, so a
// move back is preferred to a new move.
class PartitionMovements {
 public:
  TopicPartition actual_partition_to_move(const TopicPartition& partition, std::string old_consumer,
                                          const std::string& new_consumer) const {
    auto topic = by_topic_.find(partition.topic);
    if (topic == by_topic_.end()) return partition;
    if (auto it = movements_.find(partition); it != movements_.end()) old_consumer = it->second.src;
    auto reverse = topic->second.find(ConsumerPair{new_consumer, old_consumer});
    if (reverse == topic->second.end()) return partition;
    return reverse->second.first();
  }

  void move(const TopicPartition& partition, const std::string& old_consumer, const std::string& new_consumer) {
    if (auto it = movements_.find(partition); it != movements_.end()) {
      const ConsumerPair existing = it->second;
      remove_record(partition);
      if (existing.src != new_consumer) add_record(partition, ConsumerPair{existing.src, new_consumer});
    } else {
      add_record(partition, ConsumerPair{old_consumer, new_consumer});
    }
  }

 private:
  void remove_record(const TopicPartition& partition) {
    const ConsumerPair pair = movements_.at(partition);
    movements_.erase(partition);
    auto& topic = by_topic_.at(partition.topic);
    topic.at(pair).remove(partition);
    if (topic.at(pair).empty()) topic.erase(pair);
    if (topic.empty()) by_topic_.erase(partition.topic);
  }
  void add_record(const TopicPartition& partition, const ConsumerPair& pair) {
    movements_[partition] = pair;
    by_topic_[partition.topic][pair].add(partition);
  }

  std::map<TopicPartition, ConsumerPair> movements_;
  std::map<Topic, std::map<ConsumerPair, JavaPartitionSet>> by_topic_;
};

class General {
 public:
  General(const Input& in, const RackInfo& racks) : in_(in), racks_(racks) {
    for (std::size_t c = 0; c < in_.consumers.size(); ++c) {
      consumers_.push_back(*in_.consumers[c]);
      current_[consumers_.back()] = in_.owned[c];
      subscription_[consumers_.back()] = in_.members[c];
      if (racks_.aware()) position_[consumers_.back()] = c;
    }
    for (const auto& [t, n] : in_.partitions_per_topic) topic_consumers_[t];
    for (const auto& consumer : consumers_) {
      auto& topics = consumer_topics_[consumer];
      for (const auto& name : subscription_.at(consumer)->topics) {
        const Topic t(name);
        if (in_.partitions_per_topic.count(t) == 0) continue;
        topics.push_back(t);
        topic_consumers_[t].push_back(consumer);
      }
      current_[consumer];
    }
    for (const auto& [consumer, list] : current_)
      for (const auto& tp : list) partition_consumer_[tp] = consumer;
    std::vector<Topic> topics;
    for (const auto& [t, consumers] : topic_consumers_) topics.push_back(t);
    std::stable_sort(topics.begin(), topics.end(), [&](Topic a, Topic b) {
      const auto na = topic_consumers_.at(a).size(), nb = topic_consumers_.at(b).size();
      return na != nb ? na < nb : a < b;
    });
    for (const auto& t : topics)
      for (int p = 0; p < in_.partitions_per_topic.at(t); ++p) sorted_all_.push_back(TopicPartition{t, p});
  }

  GroupAssignment build() {
    prepopulate_previous();
    Partitions assigned = assign_owned();
    std::set<TopicPartition> taken(assigned.begin(), assigned.end());
    Partitions unassigned;
    for (const auto& tp : sorted_all_)
      if (taken.count(tp) == 0) unassigned.push_back(tp);
    for (const auto& [consumer, list] : current_) sorted_.insert({list.size(), consumer});
    balance(unassigned);
    GroupAssignment out;
    for (auto& [consumer, list] : current_) out[consumer] = std::move(list);
    return out;
  }

 private:
  struct Previous {
    std::string consumer;
    int generation;
  };

  void prepopulate_previous() {
    for (const auto& consumer : consumers_) {
      const MemberSubscription& s = *subscription_.at(consumer);
      if (s.generation >= in_.max_generation) continue;
      for (const auto& tp : s.owned) {
        auto it = previous_.find(tp);
        if (it == previous_.end()) previous_.emplace(tp, Previous{consumer, s.generation});
        else if (s.generation > it->second.generation) it->second = Previous{consumer, s.generation};
      }
    }
  }

  Partitions assign_owned() {
    Partitions assigned;
    for (const auto& consumer : consumers_) {
      Partitions& list = current_.at(consumer);
      const auto& topics = consumer_topics_.at(consumer);
      Partitions kept;
      for (const auto& tp : list) {
        if (topic_consumers_.count(tp.topic) == 0) {
          partition_consumer_.erase(tp);
        } else if (!contains(topics, tp.topic) || mismatch(consumer, tp)) {
          // GeneralAssignmentBuilder.assignOwnedPartitions: an owned
          // partition off its owner's rack is given up like one of a topic
          // it left.
          revocation_required_ = true;
        } else {
          kept.push_back(tp);
          assigned.push_back(tp);
        }
      }
      list = std::move(kept);
    }
    return assigned;
  }

  std::size_t size_of(const std::string& c) const { return current_.at(c).size(); }
  void unsort(const std::string& c) { sorted_.erase({size_of(c), c}); }
  void resort(const std::string& c) { sorted_.insert({size_of(c), c}); }
  bool subscribed(const std::string& c, Topic topic) const { return contains(consumer_topics_.at(c), topic); }
  bool mismatch(const std::string& c, const TopicPartition& tp) const {
    return racks_.aware() && racks_.mismatch(position_.at(c), in_.ids.id(tp));
  }

  int max_assignment_size(const std::string& consumer) const {
    const auto& topics = consumer_topics_.at(consumer);
    if (topics.size() == in_.partitions_per_topic.size()) return in_.total;
    int n = 0;
    for (const auto& t : topics) n += in_.partitions_per_topic.at(t);
    return n;
  }

  bool balanced() const {
    const std::size_t min = sorted_.begin()->first, max = sorted_.rbegin()->first;
    if (min + 1 >= max) return true;
    std::map<TopicPartition, std::string> owner;
    for (const auto& [c, list] : current_)
      for (const auto& tp : list) owner[tp] = c;
    for (const auto& [count, consumer] : sorted_) {
      if (static_cast<int>(count) == max_assignment_size(consumer)) continue;
      const Partitions& mine = current_.at(consumer);
      for (const auto& topic : consumer_topics_.at(consumer)) {
        for (int p = 0; p < in_.partitions_per_topic.at(topic); ++p) {
          const TopicPartition tp{topic, p};
          if (std::find(mine.begin(), mine.end(), tp) != mine.end()) continue;
          auto other = owner.find(tp);
          if (other == owner.end()) continue;
          if (count + 1 < size_of(other->second)) return false;
        }
      }
    }
    return true;
  }

  // maybeAssignPartition; `on_rack`: only to a consumer whose rack holds a
  // replica (or that has no rack).
  bool assign_to_least_loaded(const TopicPartition& tp, bool on_rack) {
    for (const auto& [count, consumer] : sorted_) {
      if (!subscribed(consumer, tp.topic) || (on_rack && mismatch(consumer, tp))) continue;
      const std::string c = consumer;  // the set entry is about to go
      unsort(c);
      current_.at(c).push_back(tp);
      partition_consumer_[tp] = c;
      resort(c);
      return true;
    }
    return false;
  }

  bool topic_can_move(Topic topic) const { return topic_consumers_.at(topic).size() >= 2; }

  bool consumer_can_move(const std::string& consumer) const {
    const Partitions& mine = current_.at(consumer);
    if (static_cast<int>(mine.size()) < max_assignment_size(consumer)) return true;
    return std::any_of(mine.begin(), mine.end(), [&](const TopicPartition& tp) { return topic_can_move(tp.topic); });
  }

  static int balance_score(const std::map<std::string, Partitions>& a) {
    std::vector<int> sizes;
    for (const auto& [c, l] : a) sizes.push_back(static_cast<int>(l.size()));
    int score = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      for (std::size_t j = i + 1; j < sizes.size(); ++j) score += std::abs(sizes[i] - sizes[j]);
    return score;
  }

  void balance(Partitions& unassigned) {
    const bool initializing = current_.at(sorted_.rbegin()->second).empty();
    // GeneralAssignmentBuilder.balance: when rack-aware, first to the least
    // loaded consumer on a replica's rack, then the rest to anyone.
    const Partitions off_rack = racks_.aware() ? assign_on_racks(unassigned) : Partitions{};
    for (const auto& tp : racks_.aware() ? off_rack : unassigned)
      if (!topic_consumers_.at(tp.topic).empty()) assign_to_least_loaded(tp, false);

    // Only partitions of topics with two or more potential consumers, and
    // only consumers that could take or give something, take part.
    auto fixed_partition = [&](const TopicPartition& tp) { return !topic_can_move(tp.topic); };
    sorted_all_.erase(std::remove_if(sorted_all_.begin(), sorted_all_.end(), fixed_partition), sorted_all_.end());
    unassigned.erase(std::remove_if(unassigned.begin(), unassigned.end(), fixed_partition), unassigned.end());
    std::map<std::string, Partitions> fixed;
    for (const auto& [consumer, topics] : consumer_topics_) {
      if (consumer_can_move(consumer)) continue;
      unsort(consumer);
      fixed[consumer] = std::move(current_.at(consumer));
      current_.erase(consumer);
    }

    const auto before = current_;
    const auto before_owners = partition_consumer_;
    if (!revocation_required_) reassign(unassigned);
    const bool performed = reassign(sorted_all_);
    if (!initializing && performed && balance_score(current_) >= balance_score(before)) {
      for (const auto& [c, l] : current_) sorted_.erase({l.size(), c});
      current_ = before;
      partition_consumer_ = before_owners;
      for (const auto& [c, l] : current_) sorted_.insert({l.size(), c});
    }
    for (auto& [consumer, list] : fixed) {
      current_[consumer] = std::move(list);
      resort(consumer);
    }
  }

  // The partitions no consumer on a replica's rack could take.
  Partitions assign_on_racks(const Partitions& unassigned) {
    Partitions left;
    for (const auto& tp : unassigned)
      if (topic_consumers_.at(tp.topic).empty() || !assign_to_least_loaded(tp, true)) left.push_back(tp);
    return left;
  }

  // Kafka's performReassignments first looks for a better-loaded consumer
  // on the partition's rack, then for any: both searches end in the same
  // move (to the least loaded subscriber), so only the second is ported.
  //
  // Kafka's loop ends when a pass moves nothing; a move for stickiness
  // (PartitionMovements.getTheActualPartitionToBeMoved) may take a partition
  // from another consumer than the overloaded one, and two such moves can
  // undo each other pass after pass, for ever (swarm seeds 123221, 126325:
  // the leader hung in its assignment). A pass budget far above what a
  // converging run needs ends that; Kafka's leader would never finish the
  // assignment (a simplification).
  bool reassign(const Partitions& reassignable) {
    bool performed = false;
    bool modified;
    std::size_t passes = 0;
    const std::size_t budget = 4 * (reassignable.size() + current_.size()) + 16;
    do {
      modified = false;
      for (auto it = reassignable.begin(); it != reassignable.end() && !balanced(); ++it) {
        const TopicPartition& tp = *it;
        const std::string consumer = partition_consumer_.at(tp);
        if (auto prev = previous_.find(tp);
            prev != previous_.end() && current_.count(prev->second.consumer) != 0 &&
            size_of(consumer) > size_of(prev->second.consumer) + 1) {
          move_partition(tp, prev->second.consumer);
          performed = modified = true;
          continue;
        }
        for (const auto& other : topic_consumers_.at(tp.topic)) {
          if (current_.count(other) == 0) continue;
          if (size_of(consumer) > size_of(other) + 1) {
            move_to_least_loaded(tp);
            performed = modified = true;
            break;
          }
        }
      }
    } while (modified && ++passes < budget);
    return performed;
  }

  void move_to_least_loaded(const TopicPartition& tp) {
    for (const auto& [count, consumer] : sorted_) {
      if (subscribed(consumer, tp.topic)) {
        const std::string target = consumer;
        move_partition(tp, target);
        return;
      }
    }
    assert(false && "a reassignable partition has a potential consumer");
  }

  void move_partition(const TopicPartition& tp, const std::string& new_consumer) {
    const std::string& consumer = partition_consumer_.at(tp);
    const TopicPartition actual = movements_.actual_partition_to_move(tp, consumer, new_consumer);
    const std::string old_consumer = partition_consumer_.at(actual);
    unsort(old_consumer);
    unsort(new_consumer);
    movements_.move(actual, old_consumer, new_consumer);
    erase_one(current_.at(old_consumer), actual);
    current_.at(new_consumer).push_back(actual);
    partition_consumer_[actual] = new_consumer;
    resort(new_consumer);
    resort(old_consumer);
  }

  const Input& in_;
  const RackInfo& racks_;
  std::map<std::string, std::size_t> position_;  // in Input::consumers; only when rack-aware
  std::vector<std::string> consumers_;  // in_.consumers
  std::map<std::string, Partitions> current_;
  std::map<Topic, std::vector<std::string>> topic_consumers_;  // consumers in subscription order
  std::map<std::string, std::vector<Topic>> consumer_topics_;
  std::map<std::string, const MemberSubscription*> subscription_;
  std::map<TopicPartition, std::string> partition_consumer_;
  std::map<TopicPartition, Previous> previous_;
  Partitions sorted_all_;
  std::set<std::pair<std::size_t, std::string>> sorted_;  // by (assigned count, member id)
  PartitionMovements movements_;
  bool revocation_required_ = false;
};

}  // namespace

StickyResult StickyAssignor::assign_detailed(const GroupSnapshot& group) const {
  StickyResult out;
  if (group.members.empty()) return out;
  const Input in = prepare(group);
  const RackInfo racks(group, in);
  if (in.all_equal) return racks.aware() ? RackAwareConstrained(in, racks).build() : constrained(in);
  out.assignment = General(in, racks).build();
  return out;
}

}  // namespace rsim::protocols
