// EpochGroup's definitions, included only where a protocol instantiates the
// core (consumer/partitions.cpp: EpochGroup<Partitions>; later
// streams/tasks.cpp: EpochGroup<StreamsTasks>).
#pragma once

#include "protocols/epoch/group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace rsim::protocols::epoch {

template <class T>
EpochGroup<T>::EpochGroup(Kernel& kernel, Trace& trace, Duration session_timeout)
    : kernel_(kernel), trace_(trace), session_timeout_(session_timeout) {}

template <class T>
typename EpochGroup<T>::MemberView* EpochGroup<T>::find_member(std::string_view member_id) {
  return const_cast<MemberView*>(std::as_const(*this).find_member(member_id));
}

template <class T>
const typename EpochGroup<T>::MemberView* EpochGroup<T>::find_member(std::string_view member_id) const {
  const auto it = member_index_.find(member_id);
  if (it == member_index_.end()) return nullptr;
  last_found_ = const_cast<typename MemberIndex::value_type*>(&*it);
  return it->second.member;
}

template <class T>
typename EpochGroup<T>::MemberView* EpochGroup<T>::find_member(std::string_view member_id, std::uint32_t slot) {
  if (slot < slots_.size()) {
    auto* entry = slots_[slot];
    if (entry != nullptr && entry->first == member_id) {
      last_found_ = entry;
      return entry->second.member;
    }
  }
  return find_member(member_id);
}

template <class T>
std::uint32_t EpochGroup<T>::slot_of(const std::string& member_id) {
  const IndexedMember* entry = indexed(member_id);
  return entry != nullptr ? entry->slot : kNoMemberSlot;
}

template <class T>
void EpochGroup<T>::take_slot(typename MemberIndex::value_type& entry) {
  if (free_slots_.empty()) {
    entry.second.slot = static_cast<std::uint32_t>(slots_.size());
    slots_.push_back(&entry);
  } else {
    entry.second.slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[entry.second.slot] = &entry;
  }
}

// The member's index entry: the one find_member found last when that is
// the member's, the one lookup a heartbeat makes.
template <class T>
typename EpochGroup<T>::IndexedMember* EpochGroup<T>::indexed(const std::string& member_id) {
  if (last_found_ == nullptr || last_found_->first != member_id) find_member(member_id);
  if (last_found_ == nullptr || last_found_->first != member_id) return nullptr;
  return &last_found_->second;
}

template <class T>
const typename EpochGroup<T>::Current* EpochGroup<T>::logged_current(const std::string& member_id) {
  const IndexedMember* entry = indexed(member_id);
  if (entry != nullptr && entry->logged != nullptr) return &log_.current_at(entry->logged);
  return log_.current_of(member_id);
}

// The member's timers, created unarmed when it has none.
template <class T>
typename EpochGroup<T>::Timers& EpochGroup<T>::timers_of(const std::string& member_id) {
  IndexedMember* entry = indexed(member_id);
  if (entry == nullptr) return timers_.try_emplace(member_id, kernel_).first->second;  // no such member: by id alone
  if (entry->timers == nullptr) entry->timers = &timers_.try_emplace(member_id, kernel_).first->second;
  return *entry->timers;
}

// Erasing a member's timers cancels them and drops the index's pointer.
template <class T>
void EpochGroup<T>::erase_timers(const std::string& member_id) {
  if (const auto it = member_index_.find(member_id); it != member_index_.end()) it->second.timers = nullptr;
  timers_.erase(member_id);
}

template <class T>
typename EpochGroup<T>::MemberView& EpochGroup<T>::member_at(const std::string& member_id) {
  MemberView* m = find_member(member_id);
  if (m == nullptr) throw std::out_of_range("epoch group: no member " + member_id);
  return *m;
}

template <class T>
const typename EpochGroup<T>::Assignment* EpochGroup<T>::find_target(std::string_view member_id) const {
  const auto it = target_index_.find(member_id);
  return it == target_index_.end() ? nullptr : it->second;
}

template <class T>
typename EpochGroup<T>::MemberView& EpochGroup<T>::put_member(MemberView m) {
  if (const MemberView* replaced = find_member(m.member_id)) on_member_erasing(*replaced);
  const auto [it, inserted] = state_.members.insert_or_assign(m.member_id, std::move(m));
  auto& slot_entry = *member_index_.try_emplace(it->first).first;
  IndexedMember& entry = slot_entry.second;
  if (inserted || entry.member != &it->second || entry.client != it->second.client_id) {
    const Name client(it->second.client_id);
    if (entry.member != nullptr) drop_client_name(entry.client);  // replaced: its old client id goes
    client_names_.insert_by_text(client);
    const std::uint32_t slot = entry.slot;
    entry = {&it->second, client};
    entry.slot = slot;
  }
  if (entry.slot == kNoMemberSlot) take_slot(slot_entry);
  entry.answer.reset();  // put anew: its assignment may differ
  entry.at_target = false;
  entry.logged_units = false;
  on_member_stored(it->second);
  return it->second;
}

template <class T>
void EpochGroup<T>::drop_client_name(Name client) {
  if (!client_names_.erase_by_text(client)) throw std::logic_error("epoch group: client " + client.str() + " not listed");
}

namespace group_detail {
// A member's entry out of one of state_'s maps and out of its index, the
// index's first: its key views the node's.
template <class Map, class Index>
void erase_indexed(Map& map, Index& index, const std::string& member_id) {
  const auto it = map.find(member_id);
  if (it == map.end()) return;
  index.erase(std::string_view(it->first));
  map.erase(it);
}
}  // namespace group_detail

template <class T>
void EpochGroup<T>::erase_member(const std::string& member_id) {
  if (const auto it = member_index_.find(member_id); it != member_index_.end()) {
    on_member_erasing(*it->second.member);
    drop_client_name(it->second.client);
    slots_[it->second.slot] = nullptr;
    free_slots_.push_back(it->second.slot);
  }
  last_found_ = nullptr;
  group_detail::erase_indexed(state_.members, member_index_, member_id);
}

template <class T>
typename EpochGroup<T>::Assignment& EpochGroup<T>::target_slot(const std::string& member_id) {
  if (const auto known = target_index_.find(member_id); known != target_index_.end()) return *known->second;
  const auto [it, inserted] = state_.target.try_emplace(member_id);
  if (inserted) target_index_.emplace(it->first, &it->second);
  return it->second;
}

template <class T>
typename EpochGroup<T>::Assignment& EpochGroup<T>::set_target(const std::string& member_id, Assignment target) {
  Assignment& slot = target_slot(member_id);
  slot = std::move(target);
  if (const auto it = member_index_.find(member_id); it != member_index_.end()) it->second.at_target = false;
  target_lists_.erase(member_id);
  return slot;
}

template <class T>
void EpochGroup<T>::erase_target(const std::string& member_id) {
  group_detail::erase_indexed(state_.target, target_index_, member_id);
  target_lists_.erase(member_id);
}

template <class T>
const SharedList<typename EpochGroup<T>::Unit>& EpochGroup<T>::keep_target_list(const std::string& member_id,
                                                                             const Assignment& target) {
  return target_lists_.insert_or_assign(member_id, SharedList<Unit>(T::units(target))).first->second;
}

template <class T>
void EpochGroup<T>::reindex() {
  last_found_ = nullptr;
  member_index_.clear();
  slots_.clear();
  free_slots_.clear();
  target_index_.clear();
  target_lists_.clear();
  client_names_.clear();
  for (auto& [id, m] : state_.members) {
    const auto entry = member_index_.emplace(id, IndexedMember{&m, Name(m.client_id)}).first;  // timers found again when asked for
    take_slot(*entry);
    client_names_.emplace_back(m.client_id);
  }
  client_names_.sort_by_text();
  for (auto& [id, a] : state_.target) target_index_.emplace(id, &a);
  on_members_reloaded();
}

template <class T>
void EpochGroup<T>::emit(std::string kind, std::vector<TraceField> fields) {
  trace_.emit(kernel_.now(), "coordinator", std::move(kind), std::move(fields));
}

template <class T>
Error EpochGroup<T>::leave_heartbeat(const std::string& member_id, int member_epoch) {
  if (find_member(member_id) == nullptr) return Error::UnknownMemberId;
  leave(member_id, member_epoch == kStaticLeaveEpoch);
  return Error::None;
}

// Into the log, and (when asked) out as Kafka's records, batched by the
// coordinator operation (kernel event) that wrote them.
template <class T>
void EpochGroup<T>::append(Record<T> r, typename CompactedLog<T>::Position* position) {
  written(r);
  if (const auto* t = std::get_if<MemberTombstone>(&r))
    if (IndexedMember* entry = indexed(t->member_id)) {
      entry->logged = nullptr;  // the log drops its records
      entry->logged_units = false;
    }
  log_.append(
      std::move(r), [this](const Record<T>& record, const Current* before) { count_holders(record, before); }, position);
}

// What every record written costs besides the log: out as Kafka's records
// (when asked), and the group's convergence to be looked at again.
template <class T>
void EpochGroup<T>::written(const Record<T>& r) {
  if (records_out_) records_out_->write(micros(kernel_.now()), kernel_.executed(), coordinator_records(r, true));
  converged_.reset();
}

// Before the record replaces the member's last one (`before`): count what
// changed.
template <class T>
void EpochGroup<T>::count_holders(const Record<T>& r, const Current* before) {
  if constexpr (kHolderIndex<T>) {
    if (const auto* c = std::get_if<CurrentAssignmentRecord<T>>(&r)) {
      // Plain counts do not read the member: no lookup by id for them.
      const MemberView* member = nullptr;
      if constexpr (!std::is_same_v<typename HolderIndexOf<T>::type, HolderCounts<T>>) member = find_member(c->member_id);
      holders_.record(c->member_id, member, before, &c->current);
    } else if (const auto* t = std::get_if<MemberTombstone>(&r)) {
      holders_.record(t->member_id, static_cast<const MemberView*>(nullptr), before, nullptr);
    }
  }
}

template <class T>
void EpochGroup<T>::bump_group_epoch(const std::string& why) {
  ++state_.group_epoch;
  state_.subscribed_metadata = group_metadata();
  ++metadata_version_;
  append(GroupEpochRecord<T>{state_.group_epoch, state_.subscribed_metadata});
  emit("group-epoch", {{"epoch", state_.group_epoch}, {"reason", why}});
}

template <class T>
void EpochGroup<T>::write_member(const MemberView& m) {
  append(MemberMetadataRecord<T>{m});
}

template <class T>
void EpochGroup<T>::write_current(const MemberView& m) {
  IndexedMember* entry = indexed(m.member_id);
  if constexpr (kUnitsOnlyHolders)
    if (entry != nullptr && entry->logged_units && entry->logged != nullptr) return rewrite_current(m, entry->logged);
  append(CurrentAssignmentRecord<T>{m.member_id, m}, entry != nullptr ? &entry->logged : nullptr);
  if (entry != nullptr) entry->logged_units = true;
}

// The member's record at its new epoch when its units are the logged
// record's (most members at most epochs of a large group): the same record
// as write_current's, its sets moved over from the one it replaces. Copying
// them from the member and comparing the two for the holder counts read
// both sets at every epoch of every member (issue 16).
template <class T>
void EpochGroup<T>::rewrite_current(const MemberView& m, typename CompactedLog<T>::Position logged) {
  const Record<T>& r = log_.rewrite_current(logged, [&m](Current& c) {
    c.epoch = m.epoch;
    c.previous_epoch = m.previous_epoch;
    c.state = m.state;
  });
  written(r);
}

template <class T>
void EpochGroup<T>::units_changed(const std::string& member_id) {
  if (IndexedMember* entry = indexed(member_id)) entry->logged_units = false;
}

template <class T>
void EpochGroup<T>::write_target(const std::string& member_id, const Assignment& target) {
  append(TargetAssignmentRecord<T>{member_id, target});
}

template <class T>
std::string EpochGroup<T>::member_id_for(const std::string& requested, const std::string& client_id) {
  return requested.empty() ? fmt::format("{}-{}", client_id, next_member_number_++) : requested;
}

template <class T>
typename EpochGroup<T>::MemberView* EpochGroup<T>::static_member(const std::string& instance_id,
                                                               const std::string& except) {
  for (auto& [id, other] : state_.members)
    if (other.instance_id == instance_id && id != except) return &other;
  return nullptr;
}

// A static member's new process takes the old one's place: its assignment
// and target, under a new member id; the old member is gone.
template <class T>
typename EpochGroup<T>::MemberView& EpochGroup<T>::replace_static(MemberView& old, const std::string& new_id) {
  MemberView replacement = old;
  const std::string old_id = old.member_id;
  replacement.member_id = new_id;
  erase_member(old_id);
  erase_timers(old_id);
  append(MemberTombstone{old_id});
  MemberView& m = put_member(std::move(replacement));
  write_member(m);
  // The target moves to the new member id, in the log too, or a coordinator
  // that replays it loses that part of the target (Kafka writes the new
  // member's target assignment record with the replacement).
  if (const Assignment* old_target = find_target(old_id)) {
    Assignment& target = set_target(new_id, *old_target);
    erase_target(old_id);
    append(TargetAssignmentRecord<T>{new_id, target});
  }
  emit("member-replaced", {{"member", m.client_id}, {"member-id", m.member_id}, {"old-member-id", old_id}});
  return m;
}

template <class T>
typename EpochGroup<T>::MemberView* EpochGroup<T>::join_member(const std::string& requested_id,
                                                             const std::string& client_id, MemberView fresh) {
  if (fresh.instance_id) {
    if (MemberView* old = static_member(*fresh.instance_id, requested_id)) {
      if (old->epoch != kStaticLeaveEpoch) return nullptr;
      MemberView& m = replace_static(*old, member_id_for(requested_id, client_id));
      m.epoch = m.previous_epoch;  // where it left off; reconciliation moves it on
      write_current(m);
      return &m;
    }
  }
  if (!requested_id.empty() && find_member(requested_id) != nullptr) fence(requested_id, "rejoined with epoch 0");
  fresh.member_id = member_id_for(requested_id, client_id);
  MemberView& m = add_member(std::move(fresh));
  bump_group_epoch("member joined");
  return &m;
}

template <class T>
typename EpochGroup<T>::MemberView& EpochGroup<T>::add_member(MemberView m) {
  MemberView& slot = put_member(std::move(m));
  write_member(slot);
  emit("member-added", {{"member", slot.client_id}, {"member-id", slot.member_id}});
  return slot;
}

template <class T>
void EpochGroup<T>::fence(const std::string& member_id, const std::string& reason) {
  const MemberView* m = find_member(member_id);
  if (m == nullptr) return;
  emit("member-removed", {{"member", m->client_id}, {"member-id", member_id}, {"reason", reason}});
  erase_member(member_id);
  erase_target(member_id);
  erase_timers(member_id);
  append(MemberTombstone{member_id});
  bump_group_epoch(fmt::format("member {} removed: {}", member_id, reason));
  on_member_removed();
}

template <class T>
void EpochGroup<T>::leave(const std::string& member_id, bool static_leave) {
  MemberView& m = member_at(member_id);
  if (static_leave && m.instance_id) {
    m.previous_epoch = m.epoch;
    m.epoch = kStaticLeaveEpoch;
    m.revoking = {};
    units_changed(m.member_id);
    write_current(m);
    emit("member-left-static", {{"member", m.client_id}, {"member-id", m.member_id}});
    return;
  }
  fence(member_id, "left the group");
  update_group_state();
}

template <class T>
bool EpochGroup<T>::epoch_valid(const MemberView& m, int epoch, const std::optional<Owned>& owned) const {
  if (epoch == m.epoch) return true;
  // isSubset: a request without the owned field is not.
  return epoch == m.previous_epoch && owned && T::within(*owned, m.assigned, m.revoking);
}

template <class T>
typename EpochGroup<T>::MemberView& EpochGroup<T>::advance(const std::string& member_id,
                                                         const std::optional<Owned>& owned) {
  return advance(member_at(member_id), owned);
}

// The member stays where it is: a target computes, reconciles and records,
// it does not add or remove members.
template <class T>
typename EpochGroup<T>::MemberView& EpochGroup<T>::advance(MemberView& m, const std::optional<Owned>& owned) {
  compute_target();
  reconcile(m, owned);
  arm_session(m.member_id, session_timeout_of(m));
  update_group_state();
  return m;
}

// The target assignment is recomputed when the group epoch has moved past it
// (Kafka's lazy rule: only inside a heartbeat, not in the timer or leave
// that bumped the epoch); only the members whose target changed are written.
template <class T>
void EpochGroup<T>::compute_target() {
  if (state_.group_epoch <= state_.target_epoch || target_delayed()) return;
  std::optional<Targets> targets = assign();
  if (!targets) return;
  std::vector<CoordinatorRecord> batch;  // the design's one batch: changed members' targets, then the epoch
  auto add_to_batch = [&](const Record<T>& r) {
    for (auto& k : coordinator_records(r, false)) batch.push_back(std::move(k));
  };
  for (auto& [member_id, target] : *targets) {
    if (target) {
      Assignment& slot = target_slot(member_id);
      if (slot != *target) {
        set_target(member_id, std::move(*target));
        write_target(member_id, slot);
        add_to_batch(log_.back());
      }
    }
  }
  state_.target_epoch = state_.group_epoch;
  append(TargetEpochRecord{state_.target_epoch});
  add_to_batch(log_.back());
  const NameList& members = client_names_;  // the group's, whose targets these are
  const std::size_t bytes = batch_bytes(batch);
  emit("generation", {{"generation", state_.target_epoch},
                      {"members", members},
                      {"target-records", static_cast<std::int64_t>(batch.size())},
                      {"target-bytes", static_cast<std::int64_t>(bytes)}});
  flag_target_batch(bytes, batch.size(), members.size());
}

// The target assignment must be written atomically, in one batch no larger
// than the partition takes. Kafka fails that write (and the heartbeat); the
// simulator flags it and goes on, so the rest of the run can still be read.
template <class T>
void EpochGroup<T>::flag_target_batch(std::size_t bytes, std::size_t records, std::size_t members) {
  if (bytes <= max_batch_bytes_) return;
  emit("batch-too-large", {{"generation", state_.target_epoch},
                           {"bytes", static_cast<std::int64_t>(bytes)},
                           {"limit", static_cast<std::int64_t>(max_batch_bytes_)},
                           {"records", static_cast<std::int64_t>(records)},
                           {"members", static_cast<std::int64_t>(members)}});
}

// CurrentAssignmentBuilder.build: UNREVOKED waits until the member stops
// reporting what it must give up (then its rebalance timer ends); STABLE
// moves on when the target epoch did; UNRELEASED retries at every heartbeat.
template <class T>
void EpochGroup<T>::reconcile(MemberView& m, const std::optional<Owned>& owned) {
  if (m.epoch == kStaticLeaveEpoch) return;
  switch (m.state) {
    case MemberState::UnrevokedPartitions:
      if (owns_any<T>(owned, m.revoking)) return;
      m.revoking = {};  // released: free for their new owners
      units_changed(m.member_id);
      cancel_rebalance(m.member_id);
      next_assignment(m, owned);
      return;
    case MemberState::Stable:
      if (m.epoch == effective_target_epoch()) return;
      next_assignment(m, owned);
      return;
    case MemberState::UnreleasedPartitions:
      next_assignment(m, owned);
      return;
  }
}

template <class T>
void EpochGroup<T>::next_assignment(MemberView& m, const std::optional<Owned>& owned) {
  CurrentAssignment<Assignment>& current = m;
  IndexedMember* entry = indexed(m.member_id);
  const bool delayed = target_delayed();
  static const Assignment kNothing{};
  const Assignment* known = nullptr;  // the target, looked up only when the entry does not know the answer
  if (delayed) known = &kNothing;
  else if (entry == nullptr || !entry->at_target) known = &target_slot(m.member_id);
  if (known == nullptr || current.assigned == *known) {
    // Most members at a new epoch: the step's answer is their own
    // assignment, moved in place instead of copied and compared (issue 16).
    if (entry != nullptr && !delayed) entry->at_target = true;
    if (entry != nullptr && !T::empty(current.revoking)) entry->logged_units = false;  // settle_at drops them
    if (epoch::settle_at(current, effective_target_epoch())) write_current(m);
    return;
  }
  const Assignment& target = *known;
  // Only a step that moves something asks who holds what: the log's lookup
  // of the member's record stays off the common path above (it was a
  // twentieth of a 10,000-member group's rolling bounce, issue 16).
  const CurrentAssignment<Assignment>* logged = nullptr;
  if constexpr (kHolderIndex<T>) logged = logged_current(m.member_id);
  auto held = [&](const auto& unit) {
    if constexpr (kHolderIndex<T>) return holders_.held_by_other(m, logged, unit);
    else return unreleased_anywhere(m, unit);
  };
  auto next = epoch::next_assignment<T>(current, target, effective_target_epoch(), owned, held);
  const bool changed = !(next == current);
  current = std::move(next);
  if (current.state == MemberState::UnrevokedPartitions) arm_rebalance(m.member_id, m.epoch, m.rebalance_timeout);
  if (!changed) return;
  if (entry != nullptr) {  // the assignment may have moved
    entry->answer.reset();
    entry->at_target = false;
    entry->logged_units = false;
  }
  write_current(m);
}

template <class T>
SharedList<typename EpochGroup<T>::Unit> EpochGroup<T>::answer_of(const MemberView& m) {
  IndexedMember* entry = indexed(m.member_id);
  if (entry == nullptr) return T::units(m.assigned);
  if (!entry->answer) entry->answer = T::units(m.assigned);
  return *entry->answer;
}

template <class T>
int EpochGroup<T>::effective_target_epoch() const {
  return target_delayed() ? std::max(1, state_.target_epoch) : state_.target_epoch;
}

// Kafka's partition epochs (task process ids): a unit is not free while a
// member still holds it, the asker included (a unit it is still revoking
// comes back only once its record no longer lists it, as in Kafka, whose
// maps are those of the members' records). What "holds" means is the
// assignment type's.
template <class T>
bool EpochGroup<T>::unreleased_anywhere(const MemberView& asker, const auto& unit) const {
  for (const auto& [id, other] : state_.members)
    if (T::unreleased(other, asker, unit)) return true;
  return false;
}

template <class T>
void EpochGroup<T>::arm_session(const std::string& member_id) {
  const MemberView* m = find_member(member_id);
  arm_session(member_id, m != nullptr ? session_timeout_of(*m) : session_timeout_);
}

template <class T>
void EpochGroup<T>::arm_session(const std::string& member_id, Duration timeout) {
  timers_of(member_id).session.arm_in(timeout, [this, member_id] {
    fence(member_id, "session timeout expired");
    update_group_state();
  });
}

// A member that has not revoked what it must within its rebalance timeout
// is fenced.
template <class T>
void EpochGroup<T>::arm_rebalance(const std::string& member_id, int epoch, Duration timeout) {
  Timer& t = timers_of(member_id).rebalance;
  if (t.armed()) return;
  t.arm_in(timeout, [this, member_id, epoch] {
    const MemberView* m = find_member(member_id);
    if (m == nullptr || m->state != MemberState::UnrevokedPartitions || m->epoch != epoch) return;
    fence(member_id, "rebalance timeout expired");
    update_group_state();
  });
}

template <class T>
void EpochGroup<T>::cancel_rebalance(const std::string& member_id) {
  if (auto t = timers_.find(member_id); t != timers_.end()) t->second.rebalance.cancel();
}

template <class T>
bool EpochGroup<T>::member_converged(const MemberView& m) const {
  return m.epoch == kStaticLeaveEpoch || (m.epoch == state_.target_epoch && m.state == MemberState::Stable);
}

template <class T>
bool EpochGroup<T>::converged() const {
  if (converged_) return *converged_;
  const auto behind = [&](const auto& e) { return !member_converged(e.second); };
  const auto from = state_.members.lower_bound(behind_hint_);
  auto it = std::find_if(from, state_.members.end(), behind);
  if (it == state_.members.end()) {
    it = std::find_if(state_.members.begin(), from, behind);
    if (it == from) it = state_.members.end();
  }
  if (it != state_.members.end()) behind_hint_ = it->first;
  converged_ = it == state_.members.end();
  return *converged_;
}

// Empty; Assigning (the group epoch moved past the target: a new target is
// computed at the next heartbeat of any member); Reconciling (some member
// not yet at the target epoch); or Stable.
template <class T>
GroupState EpochGroup<T>::computed_state() const {
  if (state_.members.empty()) return GroupState::Empty;
  if (state_.group_epoch > state_.target_epoch) return GroupState::Assigning;
  return converged() ? GroupState::Stable : GroupState::Reconciling;
}

// Reaching Stable at a new target epoch completes a rebalance.
template <class T>
void EpochGroup<T>::update_group_state() {
  const GroupState next = computed_state();
  if (next != group_state_) {
    emit("state", {{"from", std::string(group_state_name(group_state_))}, {"to", std::string(group_state_name(next))}});
    group_state_ = next;
  }
  if (next == GroupState::Stable && last_stable_epoch_ != state_.target_epoch) {
    last_stable_epoch_ = state_.target_epoch;
    emit("stable", {{"generation", state_.target_epoch}});
  }
}

// The other protocol's group was Stable at this generation: nothing new to
// announce.
template <class T>
void EpochGroup<T>::continue_stable(int generation) {
  group_state_ = GroupState::Stable;
  last_stable_epoch_ = generation;
  state_.group_epoch = generation - 1;
}

template <class T>
void EpochGroup<T>::seed_stable(const std::vector<MemberView>& members, bool announce) {
  ++state_.group_epoch;
  state_.target_epoch = state_.group_epoch;
  for (MemberView m : members) {
    m.epoch = state_.target_epoch;
    m.previous_epoch = 0;
    m.state = MemberState::Stable;
    set_target(m.member_id, m.assigned);
    put_member(m);
    write_member(m);
    write_target(m.member_id, m.assigned);
    write_current(m);
    arm_session(m.member_id);
  }
  state_.subscribed_metadata = group_metadata();
  ++metadata_version_;
  append(GroupEpochRecord<T>{state_.group_epoch, state_.subscribed_metadata});
  append(TargetEpochRecord{state_.target_epoch});
  if (announce) emit("generation", {{"generation", state_.target_epoch}, {"members", client_names_}});
  update_group_state();
}

template <class T>
void EpochGroup<T>::replay(const std::vector<Record<T>>& log) {
  state_ = epoch::replay<T>(log);
  log_.assign(log);  // before reindex, which forgets every position in the old log
  reindex();
  ++metadata_version_;
  if constexpr (kHolderIndex<T>) holders_.rebuild(log_, state_.members);
  converged_.reset();
  for (const auto& [id, m] : state_.members) {
    arm_session(id);
    if (m.state == MemberState::UnrevokedPartitions) arm_rebalance(id, m.epoch, m.rebalance_timeout);
  }
  // The state the group was in: a group that had converged is Stable at its
  // target epoch (no new rebalance to count).
  group_state_ = computed_state();
  last_stable_epoch_ = group_state_ == GroupState::Stable ? state_.target_epoch : -1;
  emit("loaded", {{"generation", state_.target_epoch},
                  {"state", std::string(group_state_name(group_state_))},
                  {"members", static_cast<std::int64_t>(state_.members.size())}});
  update_group_state();
}

}  // namespace rsim::protocols::epoch
