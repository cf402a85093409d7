// A member's current assignment and Kafka's CurrentAssignmentBuilder: how far
// a member may move towards its target now. Generic over what is assigned:
// EpochGroup<Partitions> (consumer groups, a set of topic-partitions) now,
// EpochGroup<StreamsTasks> (active / standby / warm-up task sets) later.
//
// A traits type `T` describes the assignment:
//   T::Assignment   what a member is given (value type, ==, default = nothing)
//   T::Owned        what a member reports owning in its heartbeat
//   T::Unit, T::units(assignment)
//                   one assigned thing, and the sorted list of them a
//                   heartbeat's answer carries
//   T::step(assigned, target, held_elsewhere) -> Step<T::Assignment>
//                   keep / revoke / add, and whether some of the target is
//                   withheld because `held_elsewhere(unit)`
//   T::unreleased(other, asker, unit)
//                   whether member `other` still holds `unit` in a way that
//                   keeps it from member `asker` (Kafka's isUnreleased
//                   predicates: for partitions, `other` has it assigned or
//                   pending revocation; for Streams tasks it depends on the
//                   role and on the two members' process ids: an active
//                   task held anywhere, or a copy of the task on the
//                   asker's process)
//   T::empty(assignment)
//   T::owns_any(owned, revoking), T::within(owned, assigned, revoking)
//   T::merge(keep, add)
// `split` below is the per-set step, for a traits type to apply to each of
// its sets (one for partitions; one per task role for Streams).
#pragma once

#include "protocols/epoch/member_state.hpp"

#include <optional>

namespace rsim::protocols::epoch {

template <class A>
struct CurrentAssignment {
  int epoch = 0, previous_epoch = -1;
  MemberState state = MemberState::Stable;
  A assigned;  // what it may own at its epoch
  A revoking;  // what it must give up (still its own until it stops reporting it)
  friend bool operator==(const CurrentAssignment&, const CurrentAssignment&) = default;
};

template <class A>
struct Step {
  A keep, revoke, add;
  bool withheld = false;  // part of the target still held by another member
};

// computeNextAssignment for one set: keep = assigned ∩ target, revoke =
// assigned − target, add = target − assigned minus what another member has
// not released yet (UNRELEASED: its owner has not let go).
template <class Set, class HeldElsewhere>
Step<Set> split(const Set& assigned, const Set& target, const HeldElsewhere& held_elsewhere) {
  // Both sets are sorted: one merge walk, each output appended at its end.
  Step<Set> s;
  const auto less = assigned.key_comp();
  auto a = assigned.begin();
  for (const auto& unit : target) {
    for (; a != assigned.end() && less(*a, unit); ++a) s.revoke.insert(s.revoke.end(), *a);
    if (a != assigned.end() && !less(unit, *a)) {
      s.keep.insert(s.keep.end(), *a++);
      continue;
    }
    if (held_elsewhere(unit)) s.withheld = true;
    else s.add.insert(s.add.end(), unit);
  }
  for (; a != assigned.end(); ++a) s.revoke.insert(s.revoke.end(), *a);
  return s;
}

// CurrentAssignmentBuilder.ownsRevokedPartitions: a member that did not send
// what it owns is taken to still own every one of `revoking`.
template <class T>
bool owns_any(const std::optional<typename T::Owned>& owned, const typename T::Assignment& revoking) {
  return !owned || T::owns_any(*owned, revoking);
}

// next_assignment's answer when the target is what the member has: all kept,
// at the target epoch, Stable; taken in place. Whether anything changed.
template <class A>
bool settle_at(CurrentAssignment<A>& current, int target_epoch) {
  const bool changed = current.epoch != target_epoch || current.previous_epoch != current.epoch ||
                       current.state != MemberState::Stable || !(current.revoking == A{});
  current.previous_epoch = current.epoch;
  current.epoch = target_epoch;
  current.state = MemberState::Stable;
  current.revoking = A{};
  return changed;
}

// The member's next current assignment towards `target` at `target_epoch`:
// it revokes first (UNREVOKED, epoch unchanged) while it still owns what it
// must give up; otherwise it moves to the target epoch with what is free
// (UNRELEASED while some of its target is still another member's).
template <class T, class HeldElsewhere>
CurrentAssignment<typename T::Assignment> next_assignment(const CurrentAssignment<typename T::Assignment>& current,
                                                          const typename T::Assignment& target, int target_epoch,
                                                          const std::optional<typename T::Owned>& owned,
                                                          const HeldElsewhere& held_elsewhere) {
  CurrentAssignment<typename T::Assignment> next;
  next.epoch = current.epoch;
  next.previous_epoch = current.previous_epoch;
  if (current.assigned == target) {
    // The step's answer without taking it: all kept, nothing to revoke or
    // add (at a new epoch most members' targets did not change, issue 16).
    next = current;
    settle_at(next, target_epoch);
    return next;
  }
  auto step = T::step(current.assigned, target, held_elsewhere);
  if (!T::empty(step.revoke) && owns_any<T>(owned, step.revoke)) {
    next.state = MemberState::UnrevokedPartitions;
    next.assigned = std::move(step.keep);
    next.revoking = std::move(step.revoke);
    return next;
  }
  next.previous_epoch = current.epoch;
  next.epoch = target_epoch;
  next.assigned = T::merge(std::move(step.keep), step.add);
  next.state = step.withheld ? MemberState::UnreleasedPartitions : MemberState::Stable;
  return next;
}

}  // namespace rsim::protocols::epoch
