#include "protocols/assignors/server.hpp"

#include "protocols/assignors/java_order.hpp"

#include <boost/smart_ptr/make_local_shared.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <numeric>
#include <set>
#include <string_view>

namespace rsim::protocols {

namespace {

// The members' subscriptions, a list equal to the member's before it
// counted once: most groups subscribe alike, and comparing a member's
// 1,000-topic list at every question was most of an assignment over 1,000
// topics (issue 16).
struct Subscriptions {
  std::vector<const std::vector<Topic>*> lists;  // in member order
  std::vector<std::size_t> of;                   // member index -> its entry in lists
};

Subscriptions subscriptions_of(const GroupSpec& group) {
  Subscriptions s;
  s.of.reserve(group.members.size());
  static const std::vector<Topic> none;  // a member built without a list subscribes to nothing
  for (const auto& m : group.members) {
    const auto* list = m.topics != nullptr ? m.topics.get() : &none;
    if (s.lists.empty() || (list != s.lists.back() && *list != *s.lists.back())) s.lists.push_back(list);
    s.of.push_back(s.lists.size() - 1);
  }
  return s;
}

// Sorts a list that is a few ascending runs (what a member keeps, then what
// it is dealt) by merging them; sorting those from scratch was a third of a
// 1,000 x 100,000 assignment (issue 16). Equal entries are equal values, so
// the result is std::sort's.
template <class Less>
void sort_runs(std::vector<TopicPartition>& list, Less less) {
  constexpr std::size_t kMaxRuns = 8;  // more: sort
  std::vector<std::size_t> starts;     // of the runs after the first
  for (std::size_t i = 1; i < list.size(); ++i)
    if (less(list[i], list[i - 1]) && starts.size() <= kMaxRuns) starts.push_back(i);
  if (starts.size() > kMaxRuns) {
    std::sort(list.begin(), list.end(), less);
    return;
  }
  constexpr std::size_t kFewAfter = 8;  // a kept list and a few dealt: insert them, no merge buffer
  if (starts.size() == 1 && list.size() - starts[0] <= kFewAfter) {
    for (auto at = list.begin() + static_cast<std::ptrdiff_t>(starts[0]); at != list.end(); ++at)
      std::rotate(std::upper_bound(list.begin(), at, *at, less), at, at + 1);
    return;
  }
  for (std::size_t r = 0; r < starts.size(); ++r) {
    const std::size_t end = r + 1 < starts.size() ? starts[r + 1] : list.size();
    std::inplace_merge(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(starts[r]),
                       list.begin() + static_cast<std::ptrdiff_t>(end), less);
  }
}

// Sorts a short list in place, without the buffers std::stable_sort and
// inplace_merge allocate: a fresh deal over 1,000 topics of a few partitions
// gives each member a short list of many topics, and merging those was
// half of such a call (issue 16). Equal entries are equal values, so the
// result is std::sort's.
constexpr std::size_t kInsertionSorted = 32;
template <class Less>
void insertion_sort(std::vector<TopicPartition>& list, Less less) {
  for (auto at = list.begin(); at != list.end(); ++at) std::rotate(std::upper_bound(list.begin(), at, *at, less), at, at + 1);
}

// Puts a member's list in TopicPartition order (topic name, then
// partition), comparing topics by their rank among the metadata's names
// (already in name order) instead of comparing the names; the builders read
// the metadata's topics by rank through it.
class ListOrder {
 public:
  explicit ListOrder(const GroupSpec& group)
      : metadata_(group.topics != nullptr ? *group.topics : none()), rank_(metadata_.ranks_by_id().data()),
        ranks_(metadata_.ranks_by_id().size()) {}
  const TopicMetadata& metadata() const { return metadata_; }
  // The metadata's topics (handle, partition count), in name order: by rank.
  const std::vector<std::pair<Topic, int>>& topics() const { return metadata_.topics(); }
  bool known(const TopicPartition& tp) const { return rank(tp.topic) >= 0; }
  int rank(Topic t) const { return t.id() < ranks_ ? rank_[t.id()] : -1; }
  int rank_of_name(std::string_view name) const { return metadata_.rank_of_name(name); }
  bool before(const TopicPartition& a, const TopicPartition& b) const {
    if (a.topic == b.topic) return a.partition < b.partition;  // most neighbours: no rank lookups
    return rank(a.topic) < rank(b.topic);
  }
  // Whether every partition's topic is in the metadata and the list is in
  // order: one pass, ranks looked up where topics change.
  bool in_order(const std::vector<TopicPartition>& list) const {
    if (list.empty()) return true;
    Topic topic = list[0].topic;
    int last = rank(topic), partition = list[0].partition;
    if (last < 0) return false;
    for (std::size_t i = 1; i < list.size(); ++i) {
      const auto& tp = list[i];
      if (tp.topic == topic) {
        if (tp.partition < partition) return false;
      } else {
        const int r = rank(tp.topic);
        if (r < 0 || r < last) return false;
        topic = tp.topic;
        last = r;
      }
      partition = tp.partition;
    }
    return true;
  }
  void sort(std::vector<TopicPartition>& list) const {
    if (in_order(list)) return;  // the usual case: one cheap pass
    const bool all_known = std::all_of(list.begin(), list.end(), [&](const TopicPartition& tp) { return known(tp); });
    const auto less = [&](const TopicPartition& a, const TopicPartition& b) { return before(a, b); };
    if (!all_known) std::sort(list.begin(), list.end());
    else if (list.size() <= kInsertionSorted) insertion_sort(list, less);
    else sort_runs(list, less);
  }
  SharedPartitions sorted(std::vector<TopicPartition> list) const {
    sort(list);
    return std::make_shared<const std::vector<TopicPartition>>(std::move(list));
  }

 private:
  static const TopicMetadata& none() {  // a spec built without metadata holds no topics
    static const TopicMetadata empty({});
    return empty;
  }
  const TopicMetadata& metadata_;
  const int* rank_;  // metadata_'s table, held here: ranks are looked up per partition
  std::size_t ranks_;
};

// A subscribed topic's rank in the metadata; a topic the metadata does not
// hold fails the assignment (Kafka's PartitionAssignorException).
int subscribed_rank(Topic t, const ListOrder& order) {
  const int rank = order.rank(t);
  if (rank < 0) throw AssignorError("Members are subscribed to topic " + t.name() + " which doesn't exist in the topic metadata.");
  return rank;
}

// A subscription as a set: its topics' handles, sorted, each once.
std::vector<std::uint32_t> topic_set(const std::vector<Topic>& list) {
  std::vector<std::uint32_t> ids;
  ids.reserve(list.size());
  for (Topic t : list) ids.push_back(t.id());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool homogeneous(const Subscriptions& subscriptions) {
  if (subscriptions.lists.empty()) return true;
  const auto& first_list = *subscriptions.lists[0];
  const auto first = topic_set(first_list);
  return std::all_of(subscriptions.lists.begin(), subscriptions.lists.end(), [&](const std::vector<Topic>* list) {
    return *list == first_list || topic_set(*list) == first;
  });
}

// A member's current target assignment by topic, of the topics `kept`
// accepts (by rank), topics in the order they first appear, partitions
// ascending (a HashSet<Integer> of small ints). `slot` (by rank, all -1)
// finds a topic's entry; left all -1.
template <class Kept>
std::vector<std::pair<Topic, std::vector<int>>> by_topic(const std::vector<TopicPartition>& owned, const ListOrder& order,
                                                         Kept kept, std::vector<int>& slot) {
  std::vector<std::pair<Topic, std::vector<int>>> out;
  std::vector<int> ranks;  // of the entries of out
  for (const auto& tp : owned) {
    const int rank = order.rank(tp.topic);
    if (rank < 0 || !kept(rank)) continue;
    int& at = slot[static_cast<std::size_t>(rank)];
    if (at < 0) {
      at = static_cast<int>(out.size());
      out.emplace_back(tp.topic, std::vector<int>{});
      ranks.push_back(rank);
    }
    out[static_cast<std::size_t>(at)].second.push_back(tp.partition);
  }
  for (int rank : ranks) slot[static_cast<std::size_t>(rank)] = -1;
  for (auto& [t, ps] : out)
    if (!std::is_sorted(ps.begin(), ps.end())) std::sort(ps.begin(), ps.end());  // usually is: the last target
  return out;
}

// Owned partitions of the subscribed topics as a flag per partition, in
// one table (each topic's partitions and one slot past them, which catches
// partitions outside the topic and is never read as a partition): a set of
// them, rebuilt at every target, was most of a large group's run, a name
// lookup per partition the most of what remained, and a table per topic
// most of a small call over many topics (issue 16). Only subscribed topics
// have flags, so the table is no larger than the answer (a topic of ten
// million partitions nobody subscribes to costs nothing). Members are marked
// one by one (`mark`), each list read once.
class OwnedFlags {
 public:
  // `subscribed`: by rank.
  OwnedFlags(const ListOrder& order, const std::vector<char>& subscribed)
      : order_(order), slots_(order.topics().size()), touched_(order.topics().size(), 0) {
    std::size_t at = 0;
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      if (subscribed[k] == 0) continue;
      const int n = std::max(order.topics()[k].second, 0);  // a negative count: none
      slots_[k] = Slot{at, n};
      at += static_cast<std::size_t>(n) + 1;
    }
    size_ = at;  // allocated at the first mark: a fresh group owns nothing
  }
  // Appends the partitions nobody owns of the topic of rank k to `out`.
  template <class Runs>
  void append_unowned(int k, Runs& out) const {
    const auto [t, partitions] = order_.topics()[static_cast<std::size_t>(k)];
    if (partitions <= 0) return;
    if (touched_[static_cast<std::size_t>(k)] == 0) {
      out.push(TopicPartition{t, 0}, partitions);
      return;
    }
    const char* const begin = flags_.data() + slots_[static_cast<std::size_t>(k)].offset;
    const char* const end = begin + partitions;
    for (const char* at = begin; at < end;) {  // memchr: glibc's is vectorized, std::find is not
      const char* first = find(at, end, 0);     // flags are 0 or 1
      at = find(first, end, 1);
      if (at > first) out.push(TopicPartition{t, static_cast<int>(first - begin)}, static_cast<int>(at - first));
    }
  }

  // Flags a member's partitions, a run of one topic's at a time (the tables
  // looked up once per run, not per partition); returns whether the list
  // is in order with every topic subscribed, found in the same pass. The
  // inner loop has no branch but its end: it was most of a call after a
  // member leaves (issue 16). The tables are read through locals, and a
  // topic's place and size from one slot: a flag is a char, whose store
  // may alias anything, so each table read through a member was read again
  // after every flag (5% of a call after one of 1,000 members leaves).
  bool mark(const std::vector<TopicPartition>& owned) {
    if (owned.empty()) return true;
    if (flags_.empty()) flags_.assign(size_, 0);
    const std::vector<int>& ranks = order_.metadata().ranks_by_id();
    const int* const rank_of = ranks.data();
    const std::size_t ids = ranks.size();
    const Slot* const slots = slots_.data();
    char* const touched = touched_.data();
    char* const flags = flags_.data();
    bool as_is = true;
    int last_rank = -1;
    const TopicPartition* at = owned.data();
    const TopicPartition* const end = at + owned.size();
    while (at < end) {
      const Topic topic = at->topic;
      const int rank = topic.id() < ids ? rank_of[topic.id()] : -1;
      if (rank < 0 || slots[rank].offset == kNone) {  // not in the metadata, or not subscribed
        as_is = false;
        while (at < end && at->topic == topic) ++at;
        continue;
      }
      const Slot slot = slots[rank];
      as_is = as_is && rank > last_rank;
      last_rank = rank;
      touched[rank] = 1;
      char* const f = flags + slot.offset;  // slot n catches what is outside the topic
      const int n = slot.partitions;
      int last = at->partition;
      bool ascending = true;
      for (; at < end && at->topic == topic; ++at) {
        const int p = at->partition;
        ascending &= p >= last;
        last = p;
        f[static_cast<unsigned>(p) < static_cast<unsigned>(n) ? p : n] = 1;
      }
      as_is = as_is && ascending;
    }
    return as_is;
  }

 private:
  static const char* find(const char* from, const char* end, char flag) {
    const void* at = std::memchr(from, flag, static_cast<std::size_t>(end - from));
    return at != nullptr ? static_cast<const char*>(at) : end;
  }

  static constexpr std::size_t kNone = SIZE_MAX;
  // A topic's flags (its partitions and one slot past them, which catches
  // partitions outside the topic and is never read as a partition).
  struct Slot {
    std::size_t offset = kNone;  // where they start; kNone: not subscribed
    int partitions = 0;
  };
  const ListOrder& order_;
  std::vector<Slot> slots_;  // by rank
  std::size_t size_ = 0;     // of flags_
  std::vector<char> flags_;
  std::vector<char> touched_;  // by rank: some partition flagged
};

// Partitions to deal, in order, as runs of consecutive partitions of a topic:
// a topic nobody owns is one run, so dealing writes lists without reading
// a list of every partition (issue 16).
class PartitionRuns {
 public:
  void push(TopicPartition first, int count) {
    if (count <= 0) return;
    if (!runs_.empty()) {
      auto& [last, n] = runs_.back();
      if (last.topic == first.topic && std::int64_t{last.partition} + n == first.partition) {
        n += count;
        size_ += static_cast<std::size_t>(count);
        return;
      }
    }
    runs_.emplace_back(first, count);
    size_ += static_cast<std::size_t>(count);
  }
  // Moves the next `count` partitions (at most what is left) to `out`.
  void take(std::size_t count, std::vector<TopicPartition>& out) {
    take_runs(count, [&](const MemberAssignment::Run& run) {
      const std::size_t at = out.size();
      out.resize(at + static_cast<std::size_t>(run.count));  // then written in place: push_back was most of a fresh deal
      TopicPartition* to = out.data() + at;
      for (int j = 0; j < run.count; ++j) to[j] = TopicPartition{run.topic, run.first + j};
    });
  }
  // The same, as the runs they came from, each given to `write`.
  template <class Write>
  void take_runs(std::size_t count, Write write) {
    while (count > 0 && next_run_ < runs_.size()) {
      const auto& [first, n] = runs_[next_run_];
      const int k = static_cast<int>(std::min(count, static_cast<std::size_t>(n - used_)));
      write(MemberAssignment::Run{first.topic, first.partition + used_, k});
      count -= static_cast<std::size_t>(k);
      taken_ += static_cast<std::size_t>(k);
      used_ += k;
      if (used_ == n) {
        ++next_run_;
        used_ = 0;
      }
    }
  }
  bool all_taken() const { return taken_ == size_; }

 private:
  std::vector<std::pair<TopicPartition, int>> runs_;  // first partition, count
  std::size_t size_ = 0, taken_ = 0, next_run_ = 0;
  int used_ = 0;  // of runs_[next_run_]
};

// A member that keeps exactly its quota, all of subscribed topics, in
// order, gets its current list back, shared (as Kafka's builder returns the
// member's own assignment object); the others get new lists.
// The subscribed topics' ranks in the order Kafka iterates their ids (a
// Java HashSet; topic_id_order), from their ranks in name order: a topic
// the given order names twice comes twice.
std::vector<int> ranks_in_id_order(const GroupSpec& group, const ListOrder& order, const std::vector<int>& subscribed) {
  std::vector<int> out;
  if (group.topic_order.empty()) {  // the names' Java hashes, computed with the metadata
    if (subscribed.size() == order.topics().size()) return order.metadata().ranks_in_id_order();  // all of them
    std::vector<std::int32_t> hashes;
    hashes.reserve(subscribed.size());
    for (int k : subscribed) hashes.push_back(order.metadata().id_hash(k));
    for (auto i : java::iteration_order(hashes, java::capacity_for(subscribed.size()))) out.push_back(subscribed[i]);
    return out;
  }
  std::vector<std::string> names;
  for (int k : subscribed) names.push_back(order.topics()[static_cast<std::size_t>(k)].first.name());
  for (const auto& t : topic_id_order(group.topic_order, names)) out.push_back(order.rank_of_name(t));
  return out;
}

// Puts runs [begin, end) of a member, dealt in topic id order, in list
// order (topic name, then partition) by their first partitions; false when
// two of them overlap, which no order of runs can put in list order.
bool in_list_order(MemberAssignment::Runs& runs, std::uint32_t begin, const ListOrder& order) {
  using Run = MemberAssignment::Run;
  if (runs.size() - begin < 2) return true;  // most members of a fresh deal: one run, no sort to call
  const auto first = runs.begin() + begin;
  std::sort(first, runs.end(), [&](const Run& a, const Run& b) {
    return order.before(TopicPartition{a.topic, a.first}, TopicPartition{b.topic, b.first});
  });
  return std::adjacent_find(first, runs.end(), [](const Run& a, const Run& b) {
           return a.topic == b.topic && a.first + a.count > b.first;
         }) == runs.end();
}

// GCC 12 at -O2 dropped __builtin_prefetch from the loop below (no
// prefetch instruction in the object; why was not found): on x86-64 the
// instruction is written out.
void prefetch(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

// Each member's target is a list of its own on the heap, read through a
// shared pointer: two cache misses per member in a large group (the list,
// then its partitions), which a walk over every member's target pays in
// turn. Fetching the list two members ahead and the partitions one ahead
// overlaps them (the whole consumer stretch spent 11% of its time in this
// assignor, most of it this walk; issue 16).
void prefetch_owned(const std::vector<GroupSpec::Member>& members, std::size_t i) {
  if (i + 2 < members.size()) {
    const void* list = members[i + 2].assignment.get();
    if (list != nullptr) prefetch(list);
  }
  if (i + 1 < members.size()) {
    const auto* list = members[i + 1].assignment.get();
    if (list != nullptr && !list->empty()) prefetch(list->data());
  }
}

// `subscribed`: the ranks of the topics every member subscribes to, as
// listed (all in the metadata).
TargetAssignment homogeneous_uniform(const GroupSpec& group, const ListOrder& order, std::vector<int> subscribed) {
  TargetAssignment out(group.members.size());  // no partitions
  {  // name order, each once: flags by rank, not a sort
    std::vector<char> listed(order.topics().size(), 0);
    for (int k : subscribed) listed[static_cast<std::size_t>(k)] = 1;
    subscribed.clear();
    for (std::size_t k = 0; k < listed.size(); ++k)
      if (listed[k] != 0) subscribed.push_back(static_cast<int>(k));
  }
  if (subscribed.empty()) return out;
  std::vector<char> is_subscribed(order.topics().size(), 0);  // by rank
  for (int k : subscribed) is_subscribed[static_cast<std::size_t>(k)] = 1;
  OwnedFlags assigned(order, is_subscribed);
  std::vector<int> slot;  // by_topic's, sized when first needed
  const auto subscribed_to = [&](int rank) { return is_subscribed[static_cast<std::size_t>(rank)] != 0; };
  std::vector<char> as_is(group.members.size());  // in order, every topic subscribed
  for (std::size_t i = 0; i < group.members.size(); ++i) {
    prefetch_owned(group.members, i);
    as_is[i] = assigned.mark(group.members[i].owned());
  }
  // Unassigned partitions, topics in id-set order.
  PartitionRuns unassigned;
  int total = 0;  // over the id order, as before: a topic it names twice counts twice
  for (int k : ranks_in_id_order(group, order, subscribed)) {
    assigned.append_unowned(k, unassigned);
    total += order.topics()[static_cast<std::size_t>(k)].second;
  }
  const int members = static_cast<int>(group.members.size());
  const int min_quota = total / members;
  int extra = total % members;
  // Keep what fits the quota, in the member's topic order; the rest joins
  // the unassigned list. Unsubscribed topics are dropped.
  // The lists written, for the members that need one: most keep theirs
  // after a member leaves, and none is written in a fresh deal (runs), so
  // a list per member was a thousand vectors made and freed for nothing
  // (6% of a call after one of 1,000 members leaves, 18% of a fresh one).
  constexpr std::uint32_t kNoList = UINT32_MAX;
  std::vector<std::vector<TopicPartition>> lists;
  std::vector<std::uint32_t> list_of(group.members.size(), kNoList);
  const auto list = [&](std::size_t i) -> std::vector<TopicPartition>& {  // made at the first use
    if (list_of[i] == kNoList) {
      list_of[i] = static_cast<std::uint32_t>(lists.size());
      lists.emplace_back();
    }
    return lists[list_of[i]];
  };
  // Dealt: kept nothing, answered as the runs dealt (a fresh deal writes no
  // partition; MemberAssignment); Merge: kept all (in order) and dealt
  // more, merged in order; Kept: the first of its list, in order.
  enum class Answer : char { Shared, Sort, Dealt, Merge, Kept };
  boost::local_shared_ptr<MemberAssignment::Runs> dealt_runs;  // made at the first Dealt
  std::vector<Answer> answer(group.members.size(), Answer::Shared);
  std::vector<std::pair<std::size_t, int>> unfilled;  // member, remaining quota
  unfilled.reserve(group.members.size());             // growing it was 3% of a fresh call
  for (std::size_t i = 0; i < group.members.size(); ++i) {
    const auto& m = group.members[i];
    int quota = min_quota;
    if (extra > 0) {
      ++quota;
      --extra;
    }
    const auto& owned = m.owned();
    if (static_cast<int>(owned.size()) == quota && as_is[i]) {
      if (m.assignment) out[i] = m.assignment;
      continue;
    }
    if (as_is[i] && !owned.empty() && static_cast<int>(owned.size()) < quota) {  // keeps it all, in order
      answer[i] = Answer::Merge;
      unfilled.emplace_back(i, quota - static_cast<int>(owned.size()));
      continue;
    }
    if (as_is[i] && static_cast<int>(owned.size()) > quota) {
      // In order, each topic's partitions one ascending run: what the walk
      // by topic below keeps is the list's first `quota`, and what it gives
      // up the rest, in order. Grouping by topic and sorting the members
      // that give up one partition after another joins was most of such a
      // call over many topics (issue 16).
      answer[i] = Answer::Kept;
      list(i).assign(owned.begin(), owned.begin() + quota);
      for (auto at = owned.begin() + quota; at != owned.end(); ++at) unassigned.push(*at, 1);
      continue;
    }
    answer[i] = Answer::Sort;
    if (owned.empty()) {  // keeping nothing, it is dealt runs
      if (quota > 0) unfilled.emplace_back(i, quota);
      continue;
    }
    auto& mine = list(i);  // no other list is made while this one is written
    mine.reserve(static_cast<std::size_t>(quota));
    if (slot.empty()) slot.assign(order.topics().size(), -1);
    for (const auto& [topic, partitions] : by_topic(owned, order, subscribed_to, slot)) {
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
          unassigned.push(TopicPartition{topic, p}, 1);
        }
      }
    }
    if (quota > 0) unfilled.emplace_back(i, quota);
  }
  std::vector<TopicPartition> dealt;
  for (const auto& [i, quota] : unfilled) {
    if (answer[i] == Answer::Merge) {
      dealt.clear();
      unassigned.take(static_cast<std::size_t>(quota), dealt);
      order.sort(dealt);
      const auto& owned = group.members[i].owned();
      auto& merged = list(i);
      merged.reserve(owned.size() + dealt.size());
      std::merge(owned.begin(), owned.end(), dealt.begin(), dealt.end(), std::back_inserter(merged),
                 [&](const TopicPartition& a, const TopicPartition& b) { return order.before(a, b); });
      continue;
    }
    if (list_of[i] != kNoList && !lists[list_of[i]].empty()) {
      unassigned.take(static_cast<std::size_t>(quota), lists[list_of[i]]);
      continue;
    }
    if (dealt_runs == nullptr) {  // a run per member dealt, and one more where a topic's partitions end
      dealt_runs = boost::make_local_shared<MemberAssignment::Runs>();
      dealt_runs->reserve(unfilled.size() + subscribed.size());
    }
    const auto begin = static_cast<std::uint32_t>(dealt_runs->size());
    unassigned.take_runs(static_cast<std::size_t>(quota), [&](const MemberAssignment::Run& run) { dealt_runs->push_back(run); });
    if (in_list_order(*dealt_runs, begin, order)) {
      answer[i] = Answer::Dealt;  // the table grows after: the assignment holds places, not pointers
      const auto end = static_cast<std::uint32_t>(dealt_runs->size());
      if (begin < end) out[i] = MemberAssignment(dealt_runs, begin, end);
      continue;
    }
    // Runs that overlap (a given topic order naming a topic twice deals it
    // twice): a sorted list, as before runs.
    auto& mine = list(i);
    for (auto r = dealt_runs->begin() + begin; r != dealt_runs->end(); ++r)
      for (int p = 0; p < r->count; ++p) mine.push_back(TopicPartition{r->topic, r->first + p});
    dealt_runs->resize(begin);
  }
  if (!unassigned.all_taken()) throw AssignorError("Partitions were left unassigned");
  for (std::size_t i = 0; i < group.members.size(); ++i) {
    if (answer[i] == Answer::Merge || answer[i] == Answer::Kept)
      out[i] = std::make_shared<const std::vector<TopicPartition>>(std::move(list(i)));
    else if (answer[i] == Answer::Sort) out[i] = order.sorted(std::move(list(i)));
  }
  return out;
}

// Each subscribed topic's place in topic id order (Uuid.compareTo), by rank
// (`subscribed`: flags by rank): the snapshot's `topic_uuid_order` first, as
// given (a name given twice takes its last place), then the rest by the
// simulator's ids, the names' Java string hashes, ties in name order.
// Ranks, not sets of names: those were a third of a heterogeneous call over
// 1,000 topics (issue 16).
std::vector<std::size_t> uuid_places(const GroupSpec& group, const ListOrder& order, const std::vector<char>& subscribed) {
  constexpr std::size_t kUnplaced = SIZE_MAX;
  std::vector<std::size_t> place(subscribed.size(), kUnplaced);
  std::size_t next = 0;
  for (const auto& t : group.topic_uuid_order)
    if (const int r = order.rank_of_name(t); r >= 0 && subscribed[static_cast<std::size_t>(r)]) place[static_cast<std::size_t>(r)] = next++;
  std::vector<std::pair<std::int32_t, std::size_t>> rest;  // (hash, rank): ties in name order
  for (std::size_t r = 0; r < subscribed.size(); ++r)
    if (subscribed[r] && place[r] == kUnplaced) rest.emplace_back(order.metadata().id_hash(static_cast<int>(r)), r);
  std::sort(rest.begin(), rest.end());
  for (const auto& [hash, r] : rest) place[r] = next++;
  return place;
}

// Heterogeneous subscriptions: Kafka's UniformHeterogeneousAssignmentBuilder.
// Balance over stickiness: drop unsubscribed topics, keep the rest, deal
// unassigned partitions topic by topic (most partitions per subscriber
// first) to the least-loaded subscriber, then move partitions from the most
// to the least loaded subscribers of each topic, round after round, until no
// topic can improve (at most 16 rounds).
//
// Topics are indices into handles_ (name order) and members indices into
// the snapshot: the builder once looked topics up by name in maps per
// partition and wrote the answer with a pass over every partition per member,
// seconds at 1,000 members x 50,000 partitions (issue 16).
class HeterogeneousBuilder {
 public:
  // `subscriptions`: each distinct subscription's topics by rank, as listed;
  // `subscription_of`: each member's entry in it.
  HeterogeneousBuilder(const GroupSpec& group, const std::vector<std::size_t>& subscription_of,
                       const std::vector<std::vector<int>>& subscriptions, const ListOrder& order)
      : group_(group), order_(order), subscription_of_(subscription_of), sizes_(group.members.size(), 0), changed_(group.members.size(), 0) {
    std::vector<char> subscribed(order.topics().size(), 0);  // by rank
    for (const auto& list : subscriptions)
      for (int r : list) subscribed[static_cast<std::size_t>(r)] = 1;
    std::vector<int> index(order.topics().size(), -1);  // rank -> index in handles_
    std::vector<int> ranks;                              // index in handles_ -> rank
    for (std::size_t r = 0; r < subscribed.size(); ++r)
      if (subscribed[r]) {
        index[r] = static_cast<int>(handles_.size());
        ranks.push_back(static_cast<int>(r));
        add_topic(order.topics()[r]);
      }
    for (const auto& list : subscriptions) {
      subscriptions_.emplace_back();
      for (int r : list) subscriptions_.back().push_back(index[static_cast<std::size_t>(r)]);
    }
    share_subscribers();
    // By handle, up to the largest subscribed one: one lookup per owned
    // partition (through the rank, two were 7% of an assignment after one
    // member joins 10,000 x 500,000 over 1,000 topics).
    std::uint32_t ids = 0;
    for (const Topic t : handles_) ids = std::max(ids, t.id() + 1);
    topic_index_.assign(ids, -1);
    for (std::size_t k = 0; k < handles_.size(); ++k) topic_index_[handles_[k].id()] = static_cast<int>(k);
    const auto places = uuid_places(group, order, subscribed);
    for (int r : ranks) id_rank_.push_back(places[static_cast<std::size_t>(r)]);
    scratch_start_.assign(group.members.size() + 1, -1);
    scratch_end_.assign(group.members.size() + 1, 0);
  }

  TargetAssignment build() {
    TargetAssignment out(group_.members.size());  // no partitions
    if (handles_.empty()) return out;
    keep_owned();
    // Deal the unassigned partitions.
    std::vector<int> with_unassigned;
    for (int k = 0; k < static_cast<int>(handles_.size()); ++k)
      if (std::count(owners(k).begin(), owners(k).end(), -1) > 0) with_unassigned.push_back(k);
    Balancer balancer(*this);
    std::vector<int> picks;
    for (int k : sorted(with_unassigned)) {
      auto& o = owners(k);
      const auto unowned = static_cast<std::size_t>(std::count(o.begin(), o.end(), -1));
      const bool few = least_loaded_few(subscribers(k), unowned, picks);
      if (!few) balancer.initialize(subscribers(k));
      auto pick = picks.begin();
      for (std::size_t p = 0; p < o.size(); ++p)
        if (o[p] == -1) assign(k, static_cast<int>(p), few ? *pick++ : balancer.next_least_loaded());
    }
    balance();
    write(out);
    return out;
  }

 private:
  // Ranges of members sorted by load: the least loaded range grows rightwards
  // as it is filled, the most loaded leftwards as it gives partitions up.
  class Balancer {
   public:
    explicit Balancer(HeterogeneousBuilder& b) : b_(b) {}
    void initialize(const std::vector<int>& members) {
      sort_by_size(members);
      least_end_ = 0;
      least_count_ = size(0) - 1;
      next_least_ = 0;
      most_start_ = most_end_ = static_cast<int>(sorted_.size());
      most_count_ = size(most_end_ - 1) + 1;
      next_most_ = most_end_ - 1;
    }
    int next_least_loaded() {
      if (next_least_ >= least_end_) {
        ++least_count_;
        while (least_end_ < static_cast<int>(sorted_.size()) && size(least_end_) == least_count_) ++least_end_;
        next_least_ = 0;
      }
      return sorted_[static_cast<std::size_t>(next_least_++)];
    }
    int next_most_loaded() {
      if (next_most_ < most_start_) {
        if (most_end_ <= most_start_ && most_start_ > 0) most_count_ = size(most_start_ - 1);
        else --most_count_;
        while (most_start_ > 0 && size(most_start_ - 1) == most_count_) --most_start_;
        next_most_ = most_end_ - 1;
      }
      if (next_most_ < 0) return -1;
      return sorted_[static_cast<std::size_t>(next_most_--)];
    }
    void exclude_most_loaded() {
      std::swap(sorted_[static_cast<std::size_t>(next_most_ + 1)], sorted_[static_cast<std::size_t>(most_end_ - 1)]);
      --most_end_;
    }
    bool balanced() const { return most_count_ - least_count_ <= 1; }

   private:
    // sorted_ = members by (size, member). Once per topic, a sort of 1,000
    // subscribers through the sizes table was most of a call over 1,000
    // topics (issue 16): members come in ascending order and sizes within
    // a narrow range, so a counting sort by size keeps the member order;
    // otherwise integers packing (size, member) are sorted.
    void sort_by_size(const std::vector<int>& members) {
      const auto size_of = [&](int x) { return b_.sizes_[static_cast<std::size_t>(x)]; };
      sorted_.resize(members.size());
      if (members.empty()) return;
      const auto [lo, hi] = std::minmax_element(members.begin(), members.end(), [&](int x, int y) { return size_of(x) < size_of(y); });
      const std::int64_t low = size_of(*lo), range = std::int64_t{size_of(*hi)} - low + 1;
      if (range <= static_cast<std::int64_t>(members.size()) && std::is_sorted(members.begin(), members.end())) {
        starts_.assign(static_cast<std::size_t>(range) + 1, 0);
        for (int x : members) ++starts_[static_cast<std::size_t>(size_of(x) - low) + 1];
        for (std::size_t i = 1; i < starts_.size(); ++i) starts_[i] += starts_[i - 1];
        for (int x : members) sorted_[starts_[static_cast<std::size_t>(size_of(x) - low)]++] = x;
        return;
      }
      keys_.clear();
      for (int x : members)  // offset: a negative size would still sort first
        keys_.push_back(static_cast<std::uint64_t>(std::int64_t{size_of(x)} + INT32_MAX + 1) << 32 | static_cast<std::uint32_t>(x));
      std::sort(keys_.begin(), keys_.end());
      for (std::size_t i = 0; i < keys_.size(); ++i) sorted_[i] = static_cast<int>(keys_[i] & 0xffffffffu);
    }
    int size(int position) const { return b_.sizes_[static_cast<std::size_t>(sorted_[static_cast<std::size_t>(position)])]; }
    HeterogeneousBuilder& b_;
    std::vector<std::uint64_t> keys_;    // sort_by_size's
    std::vector<std::size_t> starts_;    // sort_by_size's
    std::vector<int> sorted_;
    int least_end_ = 0, least_count_ = -1, next_least_ = 0;
    int most_start_ = 0, most_end_ = 0, most_count_ = 1, next_most_ = -1;
  };

  // The Balancer's first `count` picks when no more than the least loaded
  // members take them: those members in order (sizes read before any is
  // dealt a partition, as the Balancer reads them), found in one pass.
  // Sorting every topic's subscribers to deal a few partitions was most of
  // a call over 1,000 topics (issue 16). False when more are needed (the
  // Balancer then sorts them). `members` ascending, as subscribers() are.
  bool least_loaded_few(const std::vector<int>& members, std::size_t count, std::vector<int>& picks) const {
    int least = INT_MAX;
    std::size_t at_least = 0;
    picks.clear();
    for (int x : members) {
      const int size = sizes_[static_cast<std::size_t>(x)];
      if (size > least) continue;
      if (size < least) {
        least = size;
        at_least = 0;
        picks.clear();
      }
      ++at_least;
      if (picks.size() < count) picks.push_back(x);
    }
    return count <= at_least;
  }

  void add_topic(const std::pair<Topic, int>& topic) {
    handles_.push_back(topic.first);
    partitions_.push_back(topic.second);
    owners_.emplace_back(static_cast<std::size_t>(partitions_.back()), -1);
  }
  std::vector<int>& owners(int k) { return owners_[static_cast<std::size_t>(k)]; }
  const std::vector<int>& subscribers(int k) const { return shared_[static_cast<std::size_t>(list_of_[static_cast<std::size_t>(k)])]; }

  // Each topic's subscribers (member indices, ascending; a member listing
  // the topic twice comes twice), one list per set of subscriptions naming
  // the topic: topics subscribed alike share it. A list per topic was a
  // quarter of a call over 1,000 topics, and 8 MB at 10,000 members (issue 16).
  void share_subscribers() {
    std::vector<std::vector<std::size_t>> naming(handles_.size());  // per topic: the subscriptions naming it, once per listing
    for (std::size_t s = 0; s < subscriptions_.size(); ++s)
      for (int k : subscriptions_[s]) naming[static_cast<std::size_t>(k)].push_back(s);
    std::map<std::vector<std::size_t>, int> lists;
    std::vector<int> listings(subscriptions_.size(), 0);
    for (auto& by : naming) {
      auto [at, added] = lists.try_emplace(std::move(by), static_cast<int>(shared_.size()));
      list_of_.push_back(at->second);
      if (!added) continue;
      for (auto s : at->first) ++listings[s];
      auto& members = shared_.emplace_back();
      for (std::size_t i = 0; i < group_.members.size(); ++i)
        members.insert(members.end(), static_cast<std::size_t>(listings[subscription_of_[i]]), static_cast<int>(i));
      for (auto s : at->first) listings[s] = 0;
    }
    spread_.assign(shared_.size(), {-1, 0});
  }

  // Keep what members own of topics they still subscribe to (a partition
  // claimed twice goes to the later claimant; both count it, as Kafka's
  // builder does with a double claim in its input).
  void keep_owned() {
    std::vector<char> subscribed(handles_.size(), 0);
    std::size_t flagged = subscriptions_.size();  // the subscription `subscribed` holds
    for (std::size_t i = 0; i < group_.members.size(); ++i) {
      const auto& m = group_.members[i];
      if (m.owned().empty()) continue;
      if (flagged != subscription_of_[i]) {
        flagged = subscription_of_[i];
        std::fill(subscribed.begin(), subscribed.end(), 0);
        for (int k : subscriptions_[flagged]) subscribed[static_cast<std::size_t>(k)] = 1;
      }
      for (const auto& tp : m.owned()) {
        const int k = tp.topic.id() < topic_index_.size() ? topic_index_[tp.topic.id()] : -1;
        if (k < 0 || !subscribed[static_cast<std::size_t>(k)]) {
          changed_[i] = 1;
          continue;
        }
        auto& o = owners(k);
        if (tp.partition < 0 || tp.partition >= static_cast<int>(o.size())) {
          changed_[i] = 1;
          continue;
        }
        int& owner = o[static_cast<std::size_t>(tp.partition)];
        if (owner != -1) changed_[static_cast<std::size_t>(owner)] = changed_[i] = 1;  // claimed twice: both lists change
        owner = static_cast<int>(i);
        ++sizes_[i];
      }
    }
  }

  // Each member's list in TopicPartition order. A member that kept all it
  // owned and got nothing more gets its own list back, shared, when that is
  // in order (as Kafka's builders hand back an unchanged assignment): after
  // one member joins, writing every member's list again was most of a call
  // (issue 16). The others' lists are written from the owners tables
  // (topics in name order: sorted() finds them in order), reserved to the
  // member's size, which can exceed the list (a partition claimed twice
  // counts for both claimants), never fall short of it.
  void write(TargetAssignment& out) {
    for (std::size_t i = 0; i < group_.members.size(); ++i) {
      const auto& own = group_.members[i].assignment;
      if (changed_[i] || own == nullptr || own->empty()) continue;
      if (order_.in_order(*own)) out[i] = own;
      else changed_[i] = 1;
    }
    std::vector<std::vector<TopicPartition>> lists(group_.members.size());
    for (std::size_t i = 0; i < lists.size(); ++i)
      if (changed_[i]) lists[i].reserve(static_cast<std::size_t>(std::max(sizes_[i], 0)));
    for (std::size_t k = 0; k < handles_.size(); ++k)
      for (std::size_t p = 0; p < owners_[k].size(); ++p)
        if (const int o = owners_[k][p]; o >= 0 && changed_[static_cast<std::size_t>(o)])
          lists[static_cast<std::size_t>(o)].push_back(TopicPartition{handles_[k], static_cast<int>(p)});
    for (std::size_t i = 0; i < group_.members.size(); ++i)
      if (!lists[i].empty()) out[i] = order_.sorted(std::move(lists[i]));  // else as set above, or no partitions
  }

  // Partitions per subscriber, descending; subscribers, ascending; topic id.
  std::vector<int> sorted(std::vector<int> topics) const {
    std::stable_sort(topics.begin(), topics.end(), [&](int a, int b) {
      const auto sa = subscribers(a).size(), sb = subscribers(b).size();
      const double pa = static_cast<double>(partitions_[static_cast<std::size_t>(a)]) / static_cast<double>(sa);
      const double pb = static_cast<double>(partitions_[static_cast<std::size_t>(b)]) / static_cast<double>(sb);
      if (pa != pb) return pa > pb;
      if (sa != sb) return sa < sb;
      return id_rank_[static_cast<std::size_t>(a)] < id_rank_[static_cast<std::size_t>(b)];
    });
    return topics;
  }

  void assign(int k, int partition, int member) {
    ++moves_;
    int& owner = owners(k)[static_cast<std::size_t>(partition)];
    if (owner != -1) {
      --sizes_[static_cast<std::size_t>(owner)];
      changed_[static_cast<std::size_t>(owner)] = 1;
    }
    changed_[static_cast<std::size_t>(member)] = 1;
    owner = member;
    ++sizes_[static_cast<std::size_t>(member)];
  }

  void balance() {
    std::vector<int> movable;
    for (int k = 0; k < static_cast<int>(handles_.size()); ++k)
      if (subscribers(k).size() >= 2) movable.push_back(k);
    if (movable.empty()) return;
    const auto order = sorted(movable);
    int last_rebalanced = -1;
    Balancer balancer(*this);
    for (int round = 0; round < 16; ++round) {
      for (int i = 0; i < static_cast<int>(order.size()); ++i) {
        if (i == last_rebalanced) return;  // a whole loop without a move
        const int moved = balance_topic(order[static_cast<std::size_t>(i)], balancer);
        if (moved > 0 || last_rebalanced == -1) last_rebalanced = i;
      }
    }
  }

  // The most loaded member's load less the least loaded one's.
  int spread(const std::vector<int>& members) const {
    if (members.empty()) return 0;
    int lo = sizes_[static_cast<std::size_t>(members[0])], hi = lo;
    for (int x : members) {
      lo = std::min(lo, sizes_[static_cast<std::size_t>(x)]);
      hi = std::max(hi, sizes_[static_cast<std::size_t>(x)]);
    }
    return hi - lo;
  }

  // spread() of topic k's subscribers, computed again only after a move.
  int spread_of(int k) {
    const auto list = static_cast<std::size_t>(list_of_[static_cast<std::size_t>(k)]);
    if (spread_[list].first != moves_) spread_[list] = {moves_, spread(shared_[list])};
    return spread_[list].second;
  }

  int balance_topic(int k, Balancer& balancer) {
    int moved = 0;
    if (spread_of(k) <= 1) return moved;  // balanced: no need to order them (most topics, most rounds)
    balancer.initialize(subscribers(k));
    const auto& o = owners(k);
    // The topic's partitions grouped by owner (ascending, unowned first),
    // each owner's ascending, and each owner's range [start, end) in that
    // order: scratch tables indexed by owner + 1 (-1: unowned), reset
    // below for the owners this topic touched. A counting sort by owner
    // (a stable sort of the partitions was 7% of a call after one member
    // joins a heterogeneous group; issue 16).
    std::vector<int> touched;
    for (const int owner : o) {  // scratch_end_ counts first
      const auto slot = static_cast<std::size_t>(owner + 1);
      if (scratch_end_[slot]++ == 0) touched.push_back(static_cast<int>(slot));
    }
    std::sort(touched.begin(), touched.end());
    int start = 0;
    for (const int slot : touched) {
      const auto at = static_cast<std::size_t>(slot);
      scratch_start_[at] = start;
      start += scratch_end_[at];
      scratch_end_[at] = scratch_start_[at];  // then is the place the next partition goes
    }
    std::vector<int> partitions(o.size());
    for (std::size_t p = 0; p < o.size(); ++p)
      partitions[static_cast<std::size_t>(scratch_end_[static_cast<std::size_t>(o[p] + 1)]++)] = static_cast<int>(p);
    while (!balancer.balanced()) {
      int most = -1;
      for (;;) {
        most = balancer.next_most_loaded();
        if (most == -1) break;
        const auto slot = static_cast<std::size_t>(most + 1);
        if (scratch_start_[slot] == -1 || scratch_end_[slot] - scratch_start_[slot] <= 0) {
          balancer.exclude_most_loaded();
          continue;
        }
        break;
      }
      if (most == -1) break;
      const auto slot = static_cast<std::size_t>(most + 1);
      const int partition = partitions[static_cast<std::size_t>(scratch_end_[slot] - 1)];
      --scratch_end_[slot];
      const int least = balancer.next_least_loaded();
      if (balancer.balanced()) break;
      assign(k, partition, least);
      ++moved;
    }
    for (int slot : touched) {
      scratch_start_[static_cast<std::size_t>(slot)] = -1;
      scratch_end_[static_cast<std::size_t>(slot)] = 0;
    }
    return moved;
  }

  const GroupSpec& group_;
  const ListOrder& order_;
  std::vector<Topic> handles_;                    // the subscribed topics, in name order
  std::vector<int> partitions_;                   // ... their partition counts
  std::vector<std::vector<int>> shared_;          // subscriber lists: member indices, ascending
  std::vector<int> list_of_;                      // topic -> its list in shared_
  std::vector<std::pair<std::int64_t, int>> spread_;  // per list: (moves_ when computed, spread), -1: never
  std::int64_t moves_ = 0;                        // assign() calls so far
  std::vector<std::vector<int>> owners_;          // partition -> member index or -1
  std::vector<std::size_t> id_rank_;              // topic id ascending
  std::vector<int> topic_index_;                  // Topic::id() -> index in handles_, or -1
  std::vector<std::vector<int>> subscriptions_;   // distinct consecutive topic lists, as indices
  std::vector<std::size_t> subscription_of_;      // member -> its entry in subscriptions_
  std::vector<int> sizes_;
  std::vector<char> changed_;  // per member: lost or gained a partition, or its list is not kept as is
  std::vector<int> scratch_start_, scratch_end_;  // balance_topic's per-owner ranges
};

// Each topic's subscribers for the broker-side range assignor: their
// places in sorted order (instance ids first, then member ids; `place`
// gives a member's), ascending. Places rather than member indices: the
// answer's runs are laid out in that order, so a block's are written one
// after another instead of scattered over a table of megabytes (issue
// 16). Built per subscription
// rather than per member and topic: a group subscribing alike shares one
// list for every topic. Topics are the metadata's, by their rank in the
// ListOrder (name order): maps keyed by name, a few per topic, made a
// 1,000-topic assignment slower than Kafka's (issue 16).
class RangeSubscribers {
 public:
  using Members = std::vector<std::uint32_t>;

  RangeSubscribers(const GroupSpec& group, const ListOrder& order, const Subscriptions& subscriptions)
      : order_(order), lists_(subscriptions.lists.size()), place_(group.members.size()),
        subscriptions_of_(order.topics().size()) {
    std::uint32_t place = 0;
    for (const auto* m : sorted_by_instance_then_member(group.members)) {
      const auto i = static_cast<std::uint32_t>(m - group.members.data());
      place_[i] = place;
      lists_[subscriptions.of[i]].push_back(place++);
    }
    for (std::size_t s = 0; s < subscriptions.lists.size(); ++s)
      for (const Topic t : *subscriptions.lists[s]) {
        const int k = subscribed_rank(t, order);
        auto& of = subscriptions_of_[static_cast<std::size_t>(k)];
        if (of.empty() || of.back() != s) of.push_back(s);
      }
  }

  // The metadata's topics (handle, partition count), in name order.
  const std::vector<std::pair<Topic, int>>& topics() const { return order_.topics(); }

  // The subscribers of the metadata's k-th topic: their places, ascending.
  const Members& of(std::size_t k) const {
    const auto& subscriptions = subscriptions_of_[k];
    if (subscriptions.empty()) return none_;
    if (subscriptions.size() == 1) return lists_[subscriptions.front()];
    auto [merged, added] = merged_.try_emplace(subscriptions);
    if (added) merged->second = merge(subscriptions);
    return merged->second;
  }

  // Member i's place in sorted order.
  std::uint32_t place(std::size_t i) const { return place_[i]; }

 private:
  // Subscribers from several subscriptions, ascending.
  Members merge(const std::vector<std::size_t>& subscriptions) const {
    Members out;
    for (auto s : subscriptions) out.insert(out.end(), lists_[s].begin(), lists_[s].end());
    std::sort(out.begin(), out.end());
    return out;
  }

  const ListOrder& order_;
  std::vector<Members> lists_;  // per subscription: its members' places, ascending
  Members place_;               // member index -> place
  std::vector<std::vector<std::size_t>> subscriptions_of_;  // per metadata topic: the subscriptions naming it
  mutable std::map<std::vector<std::size_t>, Members> merged_;  // by the subscriptions merged
  Members none_;
};

}  // namespace

TopicMetadata::TopicMetadata(const std::map<std::string, int>& partitions_by_topic) {
  topics_.reserve(partitions_by_topic.size());
  for (const auto& [name, n] : partitions_by_topic) topics_.emplace_back(Topic(name), n);
  rank_.assign(Topic::count(), -1);  // interned above, before the table is sized
  hashes_.reserve(topics_.size());
  for (std::size_t k = 0; k < topics_.size(); ++k) {
    rank_[topics_[k].first.id()] = static_cast<int>(k);
    hashes_.push_back(java::string_hash(topics_[k].first.name()));
  }
  for (auto k : java::iteration_order(hashes_, java::capacity_for(topics_.size()))) id_order_.push_back(static_cast<int>(k));
}

int TopicMetadata::rank_of_name(std::string_view name) const {
  const auto at = std::lower_bound(topics_.begin(), topics_.end(), name,
                                   [](const std::pair<Topic, int>& t, std::string_view n) { return t.first.name() < n; });
  return at != topics_.end() && at->first.name() == name ? static_cast<int>(at - topics_.begin()) : -1;
}

std::shared_ptr<const std::vector<Topic>> topic_handles(const std::vector<std::string>& names) {
  return std::make_shared<const std::vector<Topic>>(names.begin(), names.end());
}

std::vector<std::string> topic_id_order(const std::vector<std::string>& given_order, const std::vector<std::string>& subscribed) {
  std::vector<std::string> out;
  if (!given_order.empty()) {  // looked up in sets: a vector file may name many topics
    const std::set<std::string_view> wanted(subscribed.begin(), subscribed.end());
    std::set<std::string_view> placed;
    for (const auto& t : given_order)
      if (wanted.count(t) != 0) {
        out.push_back(t);
        placed.insert(t);
      }
    for (const auto& t : subscribed)  // any the given order leaves out, in their order
      if (placed.insert(t).second) out.push_back(t);
    return out;
  }
  std::vector<std::int32_t> hashes;
  for (const auto& t : subscribed) hashes.push_back(java::string_hash(t));
  for (auto i : java::iteration_order(hashes, java::capacity_for(subscribed.size()))) out.push_back(subscribed[i]);
  return out;
}

MemberAssignment::MemberAssignment(SharedPartitions list) : list_(std::move(list)) {}

const SharedPartitions& MemberAssignment::none() {
  static const SharedPartitions empty = std::make_shared<const std::vector<TopicPartition>>();
  return empty;
}

const SharedPartitions& MemberAssignment::shared() const {
  if (list_ == nullptr) {
    if (runs_ == nullptr) return none();
    std::vector<TopicPartition> list(size());  // written in place: push_back cost a third more
    TopicPartition* to = list.data();
    for (auto r = begin_; r < end_; ++r) {
      const Run& run = (*runs_)[r];
      for (int p = 0; p < run.count; ++p) *to++ = TopicPartition{run.topic, run.first + p};
    }
    list_ = std::make_shared<const std::vector<TopicPartition>>(std::move(list));
  }
  return list_;
}

std::size_t MemberAssignment::size() const {
  if (list_ != nullptr) return list_->size();
  if (runs_ == nullptr) return 0;
  std::size_t n = 0;
  for (auto r = begin_; r < end_; ++r) n += static_cast<std::size_t>((*runs_)[r].count);
  return n;
}

GroupSpec group_spec(GroupSnapshot group) {
  GroupSpec spec;
  spec.topics = std::make_shared<const TopicMetadata>(group.topics);
  spec.topic_order = std::move(group.topic_order);
  spec.topic_uuid_order = std::move(group.topic_uuid_order);
  spec.members.reserve(group.members.size());
  const TopicNames* last = nullptr;  // the last member's list (compared by pointer first)
  for (auto& m : group.members) {
    GroupSpec::Member s{std::move(m.member_id), std::move(m.instance_id), nullptr, nullptr};
    s.topics = last != nullptr && *last == m.topics ? spec.members.back().topics : topic_handles(m.topics);
    last = &m.topics;
    if (!m.owned.empty()) s.assignment = std::make_shared<const std::vector<TopicPartition>>(std::move(m.owned));
    spec.members.push_back(std::move(s));
  }
  spec.homogeneous = subscribed_alike(spec);
  return spec;
}

bool subscribed_alike(const GroupSpec& spec) { return homogeneous(subscriptions_of(spec)); }

GroupAssignment ServerAssignor::assign(const GroupSnapshot& group) const {
  const auto spec = group_spec(group);
  const auto target = assign(spec);
  GroupAssignment out;
  for (std::size_t i = 0; i < spec.members.size(); ++i) {
    auto& list = out[spec.members[i].member_id];
    const auto& mine = *target[i];
    if (list.empty()) {
      list = mine;
    } else {  // a member id given twice (a spec's are unique): both lists, in order
      list.insert(list.end(), mine.begin(), mine.end());
      std::sort(list.begin(), list.end());
    }
  }
  return out;
}

TargetAssignment UniformAssignor::assign(const GroupSpec& group) const {
  const auto subscriptions = subscriptions_of(group);
  const ListOrder order(group);
  std::vector<std::vector<int>> ranks(subscriptions.lists.size());  // each subscription's topics by rank, as listed
  for (std::size_t s = 0; s < subscriptions.lists.size(); ++s)     // by rank: no sets of names to build
    for (const Topic t : *subscriptions.lists[s]) {
      ranks[s].push_back(subscribed_rank(t, order));
    }
  if (group.members.empty()) return {};
  if (group.homogeneous) return homogeneous_uniform(group, order, std::move(ranks[0]));
  return HeterogeneousBuilder(group, subscriptions.of, ranks, order).build();
}

TargetAssignment ServerRangeAssignor::assign(const GroupSpec& group) const {
  const auto subscriptions = subscriptions_of(group);
  const ListOrder order(group);
  const RangeSubscribers subscribers(group, order, subscriptions);  // throws on a topic not in the metadata
  // Each topic's range: subscriber i of k gets count(i) partitions from first(i).
  struct Range {
    Topic topic;
    const RangeSubscribers::Members* subs;
    int quota, extra, getting;  // getting: the rest get nothing of this topic
    int count(int i) const { return quota + (i < extra ? 1 : 0); }
    int first(int i) const { return i * quota + std::min(i, extra); }
  };
  std::vector<Range> ranges;
  const auto max_getting = [](std::vector<Range>::const_iterator begin, std::vector<Range>::const_iterator end) {
    return std::max_element(begin, end, [](const Range& a, const Range& b) { return a.getting < b.getting; })->getting;
  };
  for (std::size_t t = 0; t < subscribers.topics().size(); ++t) {  // the subscribed ones, in name order
    const auto& subs = subscribers.of(t);
    if (subs.empty()) continue;
    const auto [topic, partitions] = subscribers.topics()[t];
    const int k = static_cast<int>(subs.size());
    const int quota = partitions / k, extra = partitions % k;
    ranges.push_back({topic, &subs, quota, extra, quota > 0 ? k : extra});
  }
  // A run per member and topic it gets partitions of (Kafka's RangeSet),
  // each member's runs together in one table, members in sorted order:
  // counted, then written.
  // Topics one after another with the same subscribers (all of them, when
  // subscriptions are homogeneous) are a block, walked member by member.
  using Run = MemberAssignment::Run;
  std::vector<std::uint32_t> ends(group.members.size() + 1, 0);  // ends[p + 1]: the runs of the member at place p, then their end
  std::vector<std::pair<std::vector<Range>::const_iterator, std::vector<Range>::const_iterator>> blocks;
  for (auto block = ranges.cbegin(); block != ranges.cend();) {
    const auto end = std::find_if(block, ranges.cend(), [&](const Range& r) { return r.subs != block->subs; });
    blocks.emplace_back(block, end);
    // Subscriber i gets a run of each topic of the block with more than i
    // getting some: counted once per subscriber, not once per topic.
    std::vector<int> runs_of(static_cast<std::size_t>(max_getting(block, end)) + 1, 0);  // by subscriber
    for (auto r = block; r != end; ++r) ++runs_of[static_cast<std::size_t>(r->getting)];
    int count = static_cast<int>(end - block);
    for (std::size_t i = 0; i + 1 < runs_of.size(); ++i) {
      count -= runs_of[i];
      ends[(*block->subs)[i] + 1] += static_cast<std::uint32_t>(count);
    }
    block = end;
  }
  std::partial_sum(ends.begin(), ends.end(), ends.begin());
  auto runs = boost::make_local_shared<MemberAssignment::Runs>();
  if (blocks.size() == 1) {
    // One block (every subscribed topic has the same subscribers, as in a
    // homogeneous group): its subscribers' places ascend, so
    // its runs come in the table's order and are appended, not written
    // into a table zeroed first (the zeroing was 6% of a 100-member call).
    // Appended to a local vector, moved in after: through the shared
    // pointer, every push stored the vector's end back to memory.
    MemberAssignment::Runs appended;
    appended.reserve(ends.back());
    const auto [block, end] = blocks.front();
    for (int i = 0, getting = max_getting(block, end); i < getting; ++i)
      for (auto r = block; r != end; ++r)
        if (i < r->getting) appended.push_back(Run{r->topic, r->first(i), r->count(i)});
    *runs = std::move(appended);
  } else {
    runs->resize(ends.back());
    std::vector<std::uint32_t> at(ends.begin(), ends.end() - 1);
    for (const auto& [block, end] : blocks) {
      const int getting = max_getting(block, end);
      for (int i = 0; i < getting; ++i) {
        auto& to = at[(*block->subs)[static_cast<std::size_t>(i)]];
        for (auto r = block; r != end; ++r)
          if (i < r->getting) (*runs)[to++] = Run{r->topic, r->first(i), r->count(i)};
      }
    }
  }
  const MemberAssignment::SharedRuns table = std::move(runs);
  TargetAssignment out;
  out.reserve(group.members.size());
  for (std::size_t i = 0; i < group.members.size(); ++i) {  // topics in name order, partitions ascending
    const auto p = subscribers.place(i);
    if (ends[p] == ends[p + 1]) out.emplace_back();
    else out.emplace_back(table, ends[p], ends[p + 1]);
  }
  return out;
}

std::unique_ptr<Assignor> make_consumer_assignor(std::string_view name) {
  if (name == "uniform") return std::make_unique<UniformAssignor>();
  if (name == "range") return std::make_unique<ServerRangeAssignor>();
  return nullptr;
}

}  // namespace rsim::protocols
