// Kafka's partition epochs, for the assignment types that opt in (a
// T::holder_key per unit): how many members' logged current assignments
// hold each unit, kept as the records are written, so that "does another
// member still hold it?" is a lookup instead of a walk over every member
// (EpochGroup::next_assignment asks it for every unit a member is to get).
#pragma once

#include "protocols/epoch/compacted_log.hpp"
#include "protocols/epoch/current_assignment.hpp"

#include <cassert>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <unordered_map>

namespace rsim::protocols::epoch {

template <class T>
inline constexpr bool kHolderCounts = requires(const typename T::Assignment& a) { T::holder_key(*a.begin()); };

template <class T>
class HolderCounts {
 public:
  using Assignment = typename T::Assignment;
  using Current = CurrentAssignment<Assignment>;

  // A member's record goes from `before` to `after` (null: none); the
  // member (null after its tombstone) is what other indexes key by.
  template <class Member>
  void record(const std::string&, const Member*, const Current* before, const Current* after) {
    static const Current kNone{};
    if (before == nullptr) before = &kNone;
    if (after == nullptr) after = &kNone;
    change(before->assigned, after->assigned);
    change(before->revoking, after->revoking);
  }

  template <class Members>
  void rebuild(const CompactedLog<T>& log, const Members&) {
    counts_.clear();
    log.for_each_current([this](const std::string&, const Current& c) {
      change({}, c.assigned);
      change({}, c.revoking);
    });
  }

  // The walk's answer from the counts: every member's logged current
  // assignment is its live one but the asker's, whose revocations were just
  // released and are not written yet; so its logged holding (`logged`) is
  // taken out of the count and its live one asked directly.
  template <class Member, class Unit>
  bool held_by_other(const Member& asker, const Current* logged, const Unit& unit) const {
    std::uint32_t mine = 0;
    if (logged != nullptr) mine = (T::holds(logged->assigned, unit) ? 1 : 0) + (T::holds(logged->revoking, unit) ? 1 : 0);
    const auto it = counts_.find(T::holder_key(unit));
    if (it != counts_.end() && it->second > mine) return true;
    return T::unreleased(asker, asker, unit);
  }

 private:
  // One merge walk over two sorted sets: only the units that differ touch
  // the counts (a member's record is rewritten at every epoch, mostly with
  // the same units).
  void change(const Assignment& before, const Assignment& after) {
    if (before == after) return;  // the common case, compared at memory speed
    auto b = before.begin();
    auto a = after.begin();
    while (b != before.end() || a != after.end()) {
      if (a == after.end() || (b != before.end() && *b < *a)) {
        auto it = counts_.find(T::holder_key(*b++));
        assert(it != counts_.end() && it->second > 0);  // counted when its record was written
        --it->second;  // kept at zero: a moved unit is counted again soon, without a node freed and made
      } else if (b == before.end() || *a < *b) {
        ++counts_[T::holder_key(*a++)];
      } else {
        ++a;
        ++b;
      }
    }
  }

  // Never iterated; a unit nobody holds may stay at zero (at most one entry
  // per unit ever held: linear in partitions).
  std::unordered_map<std::uint64_t, std::uint32_t> counts_;
};

// For the assignment types that do not opt in.
struct NoHolderCounts {};

// An assignment type's holder index: its own (T::HolderIndex, for rules
// that a count per unit cannot answer), counts per unit, or none.
template <class T>
struct HolderIndexOf {
  using type = NoHolderCounts;
};
template <class T>
  requires kHolderCounts<T>
struct HolderIndexOf<T> {
  using type = HolderCounts<T>;
};
template <class T>
  requires requires { typename T::HolderIndex; }
struct HolderIndexOf<T> {
  using type = typename T::HolderIndex;
};
template <class T>
inline constexpr bool kHolderIndex = !std::is_same_v<typename HolderIndexOf<T>::type, NoHolderCounts>;

}  // namespace rsim::protocols::epoch
