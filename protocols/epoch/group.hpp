// The epoch-group core of the broker-side protocols (KIP-848 consumer
// groups; KIP-1071 Streams groups): group epoch, target assignment epoch,
// member epochs and per-member reconciliation, session and rebalance
// timeouts keyed by member id and epoch, the group states Empty / Assigning
// / Reconciling / Stable, static membership, and the records log that a new
// coordinator replays. Generic over what is assigned (the traits of
// records.hpp): ConsumerCoordinator is an EpochGroup<Partitions>; a Streams
// coordinator will be an EpochGroup<StreamsTasks>, adding its topology, its
// assignor call and its heartbeat.
// Facts: ../shared/reference/ sections 6 and 7.
#pragma once

#include "protocols/epoch/heartbeat.hpp"
#include "protocols/epoch/compacted_log.hpp"
#include "protocols/epoch/coordinator_record.hpp"
#include "protocols/epoch/holder_counts.hpp"
#include "protocols/epoch/records.hpp"
#include "sim/kernel.hpp"
#include "sim/trace.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rsim::protocols::epoch {

// Kafka's ConsumerGroupState / StreamsGroupState (DEAD is not modelled).
enum class GroupState { Empty, Assigning, Reconciling, Stable };
const char* group_state_name(GroupState s);

template <class T>
class EpochGroup {
 public:
  using Assignment = typename T::Assignment;
  using Owned = typename T::Owned;
  using Unit = typename T::Unit;  // one assigned thing, as an answer lists it
  using MemberView = Member<T>;
  // A new target, member by member in the order the assignor took them;
  // unset, or the member not listed: its target stays as it is.
  using Targets = std::vector<std::pair<std::string, std::optional<Assignment>>>;

  EpochGroup(const EpochGroup&) = delete;
  EpochGroup& operator=(const EpochGroup&) = delete;

  // A group that starts stable (the scenario's initial assignment): every
  // member at the new epoch owning its part of the target.
  // `announce`: emit the generation (not when it continues a classic one).
  void seed_stable(const std::vector<MemberView>& members, bool announce = true);

  // The log, and a new coordinator rebuilding the group from it. Session
  // timers restart from the load, as in Kafka.
  std::vector<Record<T>> log() const { return log_.records(); }  // compacted, as Kafka keeps it
  void replay(const std::vector<Record<T>>& log);
  const GroupImage<T>& state() const { return state_; }
  using TargetLists = std::map<std::string, SharedList<Unit>, std::less<>>;
  const TargetLists& target_lists() const { return target_lists_; }  // see keep_target_list
  std::uint64_t next_member_number() const { return next_member_number_; }
  void continue_member_numbers(std::uint64_t n) { next_member_number_ = n; }
  // Where the records go as Kafka writes them (`run --records`; none: not
  // written), and the largest batch __consumer_offsets takes
  // (message.max.bytes): a target assignment batch past it is flagged.
  void write_records_to(RecordsOut* out) { records_out_ = out; }
  void limit_batches_to(std::size_t max_batch_bytes) { max_batch_bytes_ = max_batch_bytes; }
  // What one record of the log is in __consumer_offsets (the protocol's
  // record types; JSON only when asked).
  virtual std::vector<CoordinatorRecord> coordinator_records(const Record<T>& r, bool json) const = 0;

  // A count the cluster metadata's owner moves at every change to it
  // (GroupTopics::version): each heartbeat's metadata check then reads the
  // topics only after a change or a new epoch. Without one, every time.
  void follow_cluster_version(const std::uint64_t* version) { cluster_version_ = version; }

 protected:
  EpochGroup(Kernel& kernel, Trace& trace, Duration session_timeout);
  virtual ~EpochGroup() = default;

  // What the protocol supplies: the metadata a new group epoch records, the
  // server assignor's new target (unset: it failed), a member's own session
  // timeout, and what follows a member's removal.
  virtual typename T::GroupMetadata group_metadata() const = 0;
  virtual std::optional<Targets> assign() = 0;
  virtual Duration session_timeout_of(const MemberView&) const { return session_timeout_; }
  virtual void on_member_removed() {}
  // Every member stored (added, or put anew under its id), every member
  // about to go (erased, or replaced under its id), and the members
  // replaced whole (a replayed log): for what a protocol keeps counted over
  // its members. A field a protocol changes in place is its own to follow.
  virtual void on_member_stored(const MemberView&) {}
  virtual void on_member_erasing(const MemberView&) {}
  virtual void on_members_reloaded() {}
  // While a new target waits (a Streams group's initial rebalance delay):
  // no target is computed, and members reconcile toward nothing at the
  // target epoch, at least 1.
  virtual bool target_delayed() const { return false; }
  // The target now, outside a heartbeat (the end of that delay).
  void compute_target();

  void emit(std::string kind, std::vector<TraceField> fields = {});
  // What a heartbeat is about: its member, or the error it is answered.
  struct Found {
    MemberView* member = nullptr;
    Error error = Error::None;
  };
  static bool leaving(int member_epoch) { return member_epoch == kLeaveEpoch || member_epoch == kStaticLeaveEpoch; }
  // A leave heartbeat (epoch -1, or -2 for a static member).
  Error leave_heartbeat(const std::string& member_id, int member_epoch);
  void bump_group_epoch(const std::string& why);
  void write_member(const MemberView& m);
  void write_current(const MemberView& m);
  void rewrite_current(const MemberView& m, typename CompactedLog<T>::Position logged);
  // The holder index reads only a record's units (or there is none): a
  // record rewritten with the same units changes nothing it counts.
  static constexpr bool kUnitsOnlyHolders = std::is_same_v<typename HolderIndexOf<T>::type, HolderCounts<T>> ||
                                            std::is_same_v<typename HolderIndexOf<T>::type, NoHolderCounts>;
  void units_changed(const std::string& member_id);
  MemberView& add_member(MemberView m);
  void fence(const std::string& member_id, const std::string& reason);
  // Epoch -1, or -2 for a static member: it keeps its assignment, and the
  // epoch of that assignment, for its return.
  void leave(const std::string& member_id, bool static_leave);
  // The member holding `instance_id`, other than `except`.
  MemberView* static_member(const std::string& instance_id, const std::string& except);
  MemberView& replace_static(MemberView& old, const std::string& new_id);
  // A join (epoch 0): a static member's new process back after its static
  // leave (-2) takes the old member's place and assignment, at the epoch it
  // left off, without a new group epoch; null (UNRELEASED_INSTANCE_ID) while
  // the old one has not left. Otherwise `fresh` joins under the id it asked
  // for or a new one (a known id rejoining at epoch 0 is fenced first), and
  // the group epoch moves.
  MemberView* join_member(const std::string& requested_id, const std::string& client_id, MemberView fresh);
  // A heartbeat's epoch: the member's, or (a lost response) its previous one
  // while it owns no more than it was given.
  bool epoch_valid(const MemberView& m, int epoch, const std::optional<Owned>& owned) const;
  // The rest of a heartbeat: the target (Kafka's lazy rule), the member's
  // reconciliation step, its session, the group state.
  MemberView& advance(const std::string& member_id, const std::optional<Owned>& owned);
  // The same for a member the caller found (a heartbeat's): one lookup fewer.
  MemberView& advance(MemberView& m, const std::optional<Owned>& owned);
  void arm_session(const std::string& member_id);
  void arm_session(const std::string& member_id, Duration timeout);
  // What a heartbeat answers the member may own: its assignment as a list,
  // the same shared list from one change of the assignment to the next.
  SharedList<Unit> answer_of(const MemberView& m);
  void update_group_state();
  // Continue at a generation another protocol reached (Stable there).
  void continue_stable(int generation);
  // The id a member gets: the one it asked for, else one from the counter.
  std::string member_id_for(const std::string& requested, const std::string& client_id);

  GroupImage<T> state_;
  // A member, or its target, by id: nullptr when the group has none. Use
  // these, not state_'s maps, to look one up: the maps are trees kept for
  // what iterates members in id order, and a heartbeat's lookup down a
  // 10,000-member tree was about 14 string compares (issue 16).
  MemberView* find_member(std::string_view member_id);
  const MemberView* find_member(std::string_view member_id) const;
  // The same, looked up first at the slot a heartbeat brought back
  // (epoch/heartbeat.hpp); by id when that slot holds another id or none.
  MemberView* find_member(std::string_view member_id, std::uint32_t slot);
  // Where the member is kept (kNoMemberSlot: no such member), for its answer.
  std::uint32_t slot_of(const std::string& member_id);
  const Assignment* find_target(std::string_view member_id) const;
  MemberView& member_at(const std::string& member_id);  // std::out_of_range when absent, as map::at
  // Members' targets as the lists an assignor is given (T::units), in
  // member-id order, so that a walk of state_.target can walk them beside
  // it: each built once per change of its target (keep_target_list) and
  // dropped by set_target and erase_target. Every new target epoch hands
  // each member's target to the assignor again; copying each into a new
  // list was a tenth of a 10,000-member group's rolling bounce (issue 16).
  const SharedList<Unit>& keep_target_list(const std::string& member_id, const Assignment& target);
  // Whether the metadata the group epoch recorded differs from the
  // cluster's, as `differs` (a function of the two) finds: asked again only
  // once the recorded metadata was set or the cluster's count moved since
  // it found nothing. Reading 1,000 topics at every heartbeat was a third
  // of a 3,000-member group's run (issue 16).
  template <class Differs>
  bool metadata_differs(Differs differs) const {
    const std::pair versions{metadata_version_, cluster_version_ != nullptr ? *cluster_version_ : 0};
    if (cluster_version_ != nullptr && unchanged_at_ == versions) return false;
    const bool changed = differs();
    if (!changed) unchanged_at_ = versions;
    return changed;
  }

 private:
  // In the map's node itself, not behind pointers of their own: a heartbeat
  // re-arms the session timer, one cache miss less (issue 16). Nodes do not
  // move, and erasing one cancels its timers.
  struct Timers {
    explicit Timers(Kernel& kernel) : session(kernel), rebalance(kernel) {}
    Timer session, rebalance;
  };
  Timers& timers_of(const std::string& member_id);
  void erase_timers(const std::string& member_id);

  // The only writers of state_.members and state_.target, which keep the
  // indexes below in step with them.
  MemberView& put_member(MemberView m);
  void erase_member(const std::string& member_id);
  Assignment& target_slot(const std::string& member_id);  // created empty when absent
  Assignment& set_target(const std::string& member_id, Assignment target);  // the only writer of a target
  void erase_target(const std::string& member_id);
  void reindex();  // after state_ was replaced whole

  void append(Record<T> r, typename CompactedLog<T>::Position* position = nullptr);
  void written(const Record<T>& r);
  int effective_target_epoch() const;
  void flag_target_batch(std::size_t bytes, std::size_t records, std::size_t members);
  void write_target(const std::string& member_id, const Assignment& target);
  void reconcile(MemberView& m, const std::optional<Owned>& owned);
  void next_assignment(MemberView& m, const std::optional<Owned>& owned);
  bool unreleased_anywhere(const MemberView& asker, const auto& unit) const;
  using Current = CurrentAssignment<Assignment>;
  void count_holders(const Record<T>& r, const Current* before);
  void arm_rebalance(const std::string& member_id, int epoch, Duration timeout);
  void cancel_rebalance(const std::string& member_id);
  bool converged() const;  // every member at the target epoch, Stable
  bool member_converged(const MemberView& m) const;
  GroupState computed_state() const;

  Kernel& kernel_;
  Trace& trace_;
  Duration session_timeout_;
  std::unordered_map<std::string, Timers> timers_;  // by member id; armed at every heartbeat, never iterated
  CompactedLog<T> log_;
  RecordsOut* records_out_ = nullptr;
  std::size_t max_batch_bytes_ = kDefaultMaxBatchBytes;
  std::uint64_t next_member_number_ = 0;
  std::uint64_t metadata_version_ = 0;  // counts the times state_.subscribed_metadata was set
  const std::uint64_t* cluster_version_ = nullptr;
  mutable std::optional<std::pair<std::uint64_t, std::uint64_t>> unchanged_at_;  // metadata_differs' last "no"
  GroupState group_state_ = GroupState::Empty;
  int last_stable_epoch_ = -1;
  // converged() is asked at every heartbeat but can change only with a
  // record (epochs, states, removals and the target epoch are all logged):
  // its answer is kept until the next one, and the search for a member
  // still behind starts at the one found last.
  mutable std::optional<bool> converged_;
  mutable std::string behind_hint_;
  typename HolderIndexOf<T>::type holders_;
  // state_'s members and targets by id; the keys are views of the maps'
  // own keys, so an entry lives exactly as long as its node.
  // A member's entry also holds its client id interned: each new target
  // names every member in the trace, and interning 10,000 ids there was a
  // tenth of a large consumer group's run (issue 16).
  // It also points at the member's timers and at its current record in the
  // log, once found there: a heartbeat finds its member here, then re-arms
  // its session timer and, at a new epoch, writes its current assignment;
  // looking the id up again in timers_ and in the log was a twentieth and
  // a twenty-fifth of a 10,000-member group's rolling bounce (issue 16).
  struct IndexedMember {
    MemberView* member;
    Name client;
    Timers* timers = nullptr;  // null until asked for; erase_timers clears it
    typename CompactedLog<T>::Position logged = nullptr;  // null until written; a tombstone clears it
    // The member's assignment as answer_of gave it; unset until asked for,
    // and again whenever the assignment may have changed: only
    // next_assignment changes a member's assignment once it is in the
    // group, and put_member (which puts a member anew) clears it too.
    std::optional<SharedList<Unit>> answer = std::nullopt;
    // Its assignment is its target, as next_assignment found it last: the
    // next epoch's step is then known without looking the target up and
    // comparing the two (most members at most epochs of a large group).
    // A new target (set_target) or a new assignment clears it.
    bool at_target = false;
    // Its logged current-assignment record holds its units as they are
    // (write_current wrote them and nothing changed them since): the next
    // write, at a new epoch, moves them over instead of copying them
    // (rewrite_current). Cleared wherever a member's units may change: a
    // step that moves something, a release of what it was revoking (its
    // own, or settle_at's), a static leave, put_member, its tombstone.
    bool logged_units = false;
    std::uint32_t slot = kNoMemberSlot;  // its place in slots_
  };
  using MemberIndex = std::unordered_map<std::string_view, IndexedMember>;
  MemberIndex member_index_;
  // member_index_'s entries by slot (null: free), the free ones reused
  // last-freed first; kept in step by put_member, erase_member and reindex.
  std::vector<typename MemberIndex::value_type*> slots_;
  std::vector<std::uint32_t> free_slots_;
  void take_slot(typename MemberIndex::value_type& entry);
  // The entry find_member found last (null after any erase from the
  // index): the member a heartbeat is about, asked for its timers and its
  // log position next.
  mutable typename MemberIndex::value_type* last_found_ = nullptr;
  IndexedMember* indexed(const std::string& member_id);  // null: no such member
  const Current* logged_current(const std::string& member_id);
  // Every member's client id, sorted by text, a name once per member
  // holding it: each new target names the group's members in that order,
  // and sorting 10,000 names there was an eighth of a large consumer
  // group's rolling bounce (issue 16). Kept in step by put_member,
  // erase_member and reindex.
  NameList client_names_;
  void drop_client_name(Name client);
  std::unordered_map<std::string_view, Assignment*> target_index_;
  TargetLists target_lists_;  // kept by set_target, erase_target and reindex
};

}  // namespace rsim::protocols::epoch
