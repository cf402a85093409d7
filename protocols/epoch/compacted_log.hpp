// The coordinator's log as Kafka's compacted __consumer_offsets topic keeps
// it: the latest record per key (the group epoch, the target epoch, and per
// member its metadata, its target and its current assignment); a member's
// tombstone removes its earlier records. Replaying what survives, in write
// order, gives the image that replaying every record written gives
// (epoch::replay), in memory bounded by the group's size instead of by the
// run's length (a 1,000-member group kept every assignment it ever had,
// issue 16).
#pragma once

#include "protocols/epoch/records.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rsim::protocols::epoch {

template <class T>
class CompactedLog {
 public:
  using Current = CurrentAssignment<typename T::Assignment>;
  using Position = std::size_t*;  // a key's entry: its record's slot; see append

  void append(Record<T> r) {
    append(std::move(r), [](const Record<T>&, const Current*) {});
  }

  // Appends r, first telling `replacing(r, before)` the member's current
  // assignment that a current-assignment record or a tombstone replaces
  // (null: none): the lookup that finds the key's earlier record answers
  // both (two lookups per record were a twentieth of a 10,000-member
  // group's rolling bounce, issue 16). `replacing` must not read the log.
  //
  // `position`, when given for a current-assignment record, is where the
  // member's current record is found without hashing its id: null the first
  // time (append sets it), then kept by the caller until the member's
  // tombstone or assign(), which end it. A heartbeat writes its member's
  // current assignment at every group epoch, and the lookup by id was a
  // twenty-fifth of a 10,000-member group's rolling bounce (issue 16).
  template <class Replacing>
  void append(Record<T> r, Replacing&& replacing, Position* position = nullptr) {
    if (position != nullptr && *position != nullptr && r.index() == kCurrent)
      return replace_at(**position, std::move(r), replacing);
    Key key = key_of(r);
    if (std::holds_alternative<MemberTombstone>(r)) {
      replacing(std::as_const(r), current_of(key.second));
      for (std::size_t kind : {kMetadata, kTarget, kCurrent}) drop({kind, key.second});
    }
    // One lookup: the key's earlier record (if any) is dropped and its entry
    // pointed at the new one.
    auto [it, fresh] = where_.try_emplace(std::move(key), slots_.size());
    if (position != nullptr && r.index() == kCurrent) *position = &it->second;
    if (!fresh) return replace_at(it->second, std::move(r), replacing);
    if (r.index() == kCurrent) replacing(std::as_const(r), nullptr);
    push(std::move(r));
  }

  // The member's current-assignment record at `position` (as append set
  // it) written again, `update` given its epochs and state: a new write at
  // the end of the log, its units moved over from the record it replaces
  // rather than copied, compared and counted. For a caller that knows the
  // units are unchanged; no `replacing` is told, as nothing it counts moved.
  template <class Update>
  const Record<T>& rewrite_current(Position position, Update&& update) {
    std::size_t& slot = *position;
    Record<T> r = std::move(*slots_[slot]);
    slots_[slot].reset();
    --live_;
    update(std::get<CurrentAssignmentRecord<T>>(r).current);
    slot = slots_.size();
    push(std::move(r));
    return *slots_.back();
  }

  // The record appended last.
  const Record<T>& back() const { return *slots_.back(); }

  // The member's latest current assignment, if one was written since its
  // last tombstone.
  const CurrentAssignment<typename T::Assignment>* current_of(const std::string& member_id) const {
    const auto it = where_.find(Key{kCurrent, member_id});
    if (it == where_.end()) return nullptr;
    return &current_in(it->second);
  }
  // The same through a position append set (not null).
  const CurrentAssignment<typename T::Assignment>& current_at(Position position) const { return current_in(*position); }

  // Every member's latest current assignment, in write order.
  template <class F>
  void for_each_current(F&& f) const {
    for (const auto& s : slots_)
      if (s)
        if (const auto* c = std::get_if<CurrentAssignmentRecord<T>>(&*s)) f(c->member_id, c->current);
  }

  // What survives, in write order.
  std::vector<Record<T>> records() const {
    std::vector<Record<T>> out;
    out.reserve(live_);
    for (const auto& s : slots_)
      if (s) out.push_back(*s);
    return out;
  }

  void assign(const std::vector<Record<T>>& log) {
    slots_.clear();
    where_.clear();
    live_ = 0;
    for (const auto& r : log) append(r);
  }

 private:
  using Key = std::pair<std::size_t, std::string>;  // the record's kind (variant index), its member id
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept { return std::hash<std::string>{}(k.second) * 8 + k.first; }
  };
  // Variant indexes of Record<T>'s per-member kinds.
  static constexpr std::size_t kMetadata = 1, kTarget = 2, kCurrent = 4;

  static Key key_of(const Record<T>& r) {
    return std::visit(
        [&r](const auto& x) -> Key {
          using R = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<R, MemberMetadataRecord<T>>) return {r.index(), x.metadata.member_id};
          else if constexpr (std::is_same_v<R, GroupEpochRecord<T>> || std::is_same_v<R, TargetEpochRecord>) return {r.index(), ""};
          else return {r.index(), x.member_id};
        },
        r);
  }

  // The key's earlier record, at `slot`, gives way to r: `slot` is then r's.
  template <class Replacing>
  void replace_at(std::size_t& slot, Record<T> r, Replacing& replacing) {
    if (r.index() == kCurrent) replacing(std::as_const(r), &current_in(slot));
    slots_[slot].reset();
    --live_;
    slot = slots_.size();
    push(std::move(r));
  }

  void push(Record<T> r) {
    slots_.push_back(std::move(r));
    ++live_;
    if (slots_.size() > 4 * live_ + 64) compact();  // linear in what is live; rarely
  }

  const Current& current_in(std::size_t slot) const {
    return std::get<CurrentAssignmentRecord<T>>(*slots_[slot]).current;
  }

  void drop(const Key& key) {
    auto it = where_.find(key);
    if (it == where_.end()) return;
    slots_[it->second].reset();
    where_.erase(it);
    --live_;
  }

  // In place: the vector keeps its capacity, so appends after a compaction
  // do not grow it again (a fresh vector of exactly the live records grew
  // twice per compaction, each time moving every record into newly mapped
  // memory: 7.7% of a 10,000-member group's rolling bounce, issue 16).
  void compact() {
    std::size_t kept = 0;
    for (auto& s : slots_)
      if (s) {
        where_[key_of(*s)] = kept;
        if (&slots_[kept] != &s) slots_[kept] = std::move(s);
        ++kept;
      }
    slots_.erase(slots_.begin() + static_cast<std::ptrdiff_t>(kept), slots_.end());
  }

  std::vector<std::optional<Record<T>>> slots_;  // in write order; empty where a later record replaced it
  // key -> its slot; looked up at every record a heartbeat writes, never
  // iterated: hashed, as a tree compared member ids a dozen times a lookup
  // in a 10,000-member group (issue 16).
  std::unordered_map<Key, std::size_t, KeyHash> where_;
  std::size_t live_ = 0;
};

}  // namespace rsim::protocols::epoch
