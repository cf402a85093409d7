// EpochMember's definitions; included by the file that instantiates it for
// a protocol (consumer/member.cpp, streams/member.cpp).
#pragma once

#include "protocols/epoch/member.hpp"

#include <algorithm>
#include <iterator>

namespace rsim::protocols::epoch {

namespace member_detail {
template <class U>
std::vector<U> minus(const std::vector<U>& a, const std::vector<U>& b) {
  std::vector<U> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}
}  // namespace member_detail

template <class C>
EpochMember<C>::EpochMember(Kernel& kernel, Network& network, Trace& trace, classic::MemberConfig config)
    : MemberProcess(kernel, network, trace, config.client_id, config.node), config_(std::move(config)) {}

template <class C>
void EpochMember<C>::stop_timers() {
  end_process();
  initialising_.clear();  // a new process starts with nothing in hand
  reconcile_after_batch_ = stale_ = false;
}

template <class C>
void EpochMember<C>::start() {
  if (phase_ != Phase::Down) return;
  restart_node();
  phase_ = Phase::Joining;
  forget_member_id();
  epoch_ = kJoinEpoch;
  assigned_epoch_ = -1;
  own({});
  latest_ = {};
  reconciled_.reset();
  report_owned_ = true;
  revoking_ = in_flight_ = send_again_ = false;
  reset_process();
  emit("start");
  emit("join", {{"member-id", member_id_}});
  send_heartbeat();
}

template <class C>
void EpochMember<C>::start_stable(const std::string& member_id, int epoch, Units owned) {
  restart_node();
  phase_ = Phase::Active;
  member_id_ = member_id;
  epoch_ = epoch;
  std::sort(owned.begin(), owned.end());
  latest_ = owned;
  own(std::move(owned));
  reconciled_ = latest_;
  assigned_epoch_ = epoch;
  emit("start");
  emit("joined", {{"member-id", member_id_}, {"generation", epoch_}});
  emit("assigned", with_generation(C::fields(owned_)));
  emit("ready", C::fields(owned_));
  heartbeat_timer_.arm_in(interval_, [this] { send_heartbeat(); });
}

template <class C>
void EpochMember<C>::crash() {
  if (phase_ == Phase::Down) return;
  emit("crash", C::fields(owned_));
  crash_node();
  stop_timers();
  phase_ = Phase::Down;
  revoking_ = in_flight_ = false;
  released(owned_);
  own({});
}

// The group heartbeat: the whole protocol. One in flight at a time; a
// request that has to wait is sent when the answer arrives.
template <class C>
void EpochMember<C>::send_heartbeat() {
  if (phase_ == Phase::Down || phase_ == Phase::Leaving || stale_ || paused() || coordinator_unknown()) return;
  if (in_flight_) {
    send_again_ = true;
    return;
  }
  std::optional<Units> owned;
  if (report_owned_ || phase_ == Phase::Joining) {
    owned = owned_;
    if (phase_ == Phase::Active && !std::includes(owned_.begin(), owned_.end(), latest_.begin(), latest_.end()))
      unlisted_epoch_ = epoch_;
  }
  report_owned_ = false;
  in_flight_ = true;
  send_request(std::move(owned), ++seq_);
  request_timer_.arm_in(config_.request_timeout, [this] {
    emit("request-timeout", {{"request", std::string(request_name())}});
    in_flight_ = false;
    report_owned_ = true;  // a failed request: the next one sends every field
    send_heartbeat();
  });
  heartbeat_timer_.arm_in(interval_, [this] { send_heartbeat(); });
}

template <class C>
void EpochMember<C>::on_answer(std::uint64_t seq, Answer r) {
  if (seq != seq_ || phase_ == Phase::Down || phase_ == Phase::Leaving || stale_) return;
  in_flight_ = false;
  request_timer_.cancel();
  if (r.error == Error::FencedMemberEpoch || r.error == Error::UnknownMemberId) {
    emit("heartbeat", {{"error", std::string(error_name(r.error))}});
    rejoin(r.error);
    return;
  }
  if (r.error == Error::GroupIdNotFound || r.error == Error::UnreleasedInstanceId) {
    // Fatal in the AsyncKafkaConsumer (transitionToFatal): poll() throws and
    // the application's consumer is done; it neither leaves nor rejoins.
    emit("fatal", {{"error", std::string(error_name(r.error))}});
    crash();
    return;
  }
  if (r.error != Error::None) {
    emit("heartbeat", {{"error", std::string(error_name(r.error))}});
    report_owned_ = true;
    retry_timer_.arm_in(config_.retry_backoff, [this] { send_heartbeat(); });
    return;
  }
  member_id_ = r.member_id;
  member_slot_ = r.member_slot;
  interval_ = r.heartbeat_interval;
  if (phase_ == Phase::Joining) {
    phase_ = Phase::Active;
    emit("joined", with_bytes({{"member-id", member_id_}, {"generation", r.member_epoch}}));
  }
  epoch_ = r.member_epoch;
  latest_ = std::move(r.assignment);
  reconcile(latest_);
  if (send_again_) {
    send_again_ = false;
    send_heartbeat();
  }
}

// Fenced: everything is lost (onPartitionsLost); rejoin at epoch 0 (under a
// new id when the old one is unknown).
template <class C>
void EpochMember<C>::rejoin(Error error) {
  lose_all(error_name(error));
  epoch_ = kJoinEpoch;
  if (error == Error::UnknownMemberId) forget_member_id();
  phase_ = Phase::Joining;
  emit("join", {{"member-id", member_id_}});
  send_heartbeat();
}

// The membership manager's reconciliation: revoke first (paying the revoke
// cost), then take what is new, then acknowledge: what a heartbeat reports
// owning is the assignment of the last completed reconciliation
// (AbstractMembershipManager.revokeAndAssign sets currentAssignment, and
// transitions to ACKNOWLEDGING, only once both callbacks are done), never
// the half-way state between them. The callbacks run in the application
// thread, in poll(): a member in the middle of a batch reconciles when the
// batch ends.
template <class C>
void EpochMember<C>::reconcile(const List& assignment, bool acknowledge) {
  if (revoking_ || phase_ != Phase::Active) return;
  if (in_batch()) {
    reconcile_after_batch_ = true;
    return;
  }
  // Mostly the same as what it owns (a new epoch, nothing moved): nothing
  // to revoke or add, without working it out.
  const bool unchanged = owns_exactly(assignment);
  Units revoke = unchanged ? Units{} : member_detail::minus(owned_, assignment.get());
  if (!revoke.empty()) {
    // The acknowledgement, which frees them for their new owners, follows
    // the rest of the step.
    revoke_then(std::move(revoke), [this] { reconcile(latest_, true); });
    return;
  }
  // A new target reconciled is acknowledged, even when nothing changes
  // here (AbstractMembershipManager.maybeReconcile bumps the local epoch):
  // the next heartbeat lists what it owns. (Kafka sends it at once; here it
  // goes with the next heartbeat unless something was revoked or added.)
  if (!reconciled_ || !reconciled_->is(assignment)) {
    if (reconciled_ != assignment) report_owned_ = true;
    reconciled_ = assignment;  // kept as it came, even when equal: the next answers share it
  }
  Units add = unchanged ? Units{} : member_detail::minus(assignment.get(), owned_);
  if (add.empty() && assigned_epoch_ == epoch_) return finish_step(acknowledge);
  assigned_epoch_ = epoch_;
  auto fields = with_generation(C::fields(add));
  if (!add.empty() && unlisted_epoch_ == epoch_) fields.push_back({"unlisted", std::int64_t{1}});
  emit("assigned", with_bytes(std::move(fields)));
  if (add.empty()) return finish_step(acknowledge);
  take(add);
  send_heartbeat();  // acknowledges the new assignment
  start_batch();
}

// Whether the member owns exactly `assignment`: mostly the list it found
// equal at the last answer (an answer at a new epoch with nothing moved
// brings the same list), known without reading a unit.
template <class C>
bool EpochMember<C>::owns_exactly(const List& assignment) {
  if (owned_as_.is(assignment) && !assignment.empty()) return true;
  if (!(owned_ == assignment.get())) return false;
  owned_as_ = assignment;
  return true;
}

template <class C>
void EpochMember<C>::own(Units units) {
  owned_ = std::move(units);
  owned_as_ = {};
}

template <class C>
void EpochMember<C>::finish_step(bool acknowledge) {
  if (acknowledge) send_heartbeat();
  start_batch();  // poll() returns: the next batch
}

// Owned at once; ready after the assign cost. What arrives while an
// initialisation is in progress restarts it: the whole batch is ready after
// the newest part's cost (a simplification).
template <class C>
void EpochMember<C>::take(const Units& add) {
  Units merged;
  std::merge(owned_.begin(), owned_.end(), add.begin(), add.end(), std::back_inserter(merged));
  own(std::move(merged));
  initialising_.insert(initialising_.end(), add.begin(), add.end());
  arm_ready(assign_cost(add));
}

template <class C>
void EpochMember<C>::arm_ready(Duration cost) {
  init_timer_.cancel();
  after(init_timer_, cost, [this] {
    if (!initialising_.empty()) emit("ready", C::fields(initialising_));
    initialising_.clear();
  });
}

// The revocation callback, paying the revoke cost; what is still
// initialising is revoked as well (the rest finishes).
template <class C>
void EpochMember<C>::revoke_then(Units revoke, Callback then) {
  revoking_ = true;
  std::erase_if(initialising_, [&](const Unit& u) { return std::binary_search(revoke.begin(), revoke.end(), u); });
  emit("revoking", C::fields(revoke));
  const Duration cost = revoke_cost(revoke);
  after(revoke_timer_, cost, [this, revoke = std::move(revoke), then = std::move(then)]() mutable {
    revoking_ = false;
    own(member_detail::minus(owned_, revoke));
    released(revoke);
    emit("revoked", C::fields(revoke));
    // What is still initialising may be ready sooner without the revoked.
    if (!initialising_.empty())
      if (auto left = remaining_init()) arm_ready(*left);
    then();
  });
}

template <class C>
void EpochMember<C>::lose_all(const std::string& reason) {
  reconciled_.reset();
  report_owned_ = true;
  revoke_timer_.cancel();
  init_timer_.cancel();
  initialising_.clear();
  revoking_ = false;
  if (!owned_.empty()) {
    auto fields = C::fields(owned_);
    fields.push_back({"reason", reason});
    emit("lost", std::move(fields));
  }
  released(owned_);
  own({});
  latest_ = {};
  assigned_epoch_ = -1;
}

// close(): revoke everything, then leave with epoch -1 (-2 for a static
// member, which keeps its assignment reserved for its return).
template <class C>
void EpochMember<C>::leave(std::function<void()> on_stopped) {
  if (phase_ == Phase::Down) return;
  emit("leave");
  cancel_group_work();
  reconcile_after_batch_ = false;
  const bool joined = !member_id_.empty() && phase_ == Phase::Active && !stale_;
  phase_ = Phase::Leaving;  // takes no further part: no heartbeats, no reconciliation
  revoking_ = false;
  auto finish = [this, joined, on_stopped = std::move(on_stopped)] {
    if (joined) send_leave_heartbeat();
    emit("stopped");
    crash_node();
    stop_timers();
    phase_ = Phase::Down;
    own({});
    if (on_stopped) on_stopped();
  };
  if (owned_.empty()) {
    finish();
    return;
  }
  revoke_then(owned_, std::move(finish));
}

template <class C>
void EpochMember<C>::send_leave_heartbeat() {
  if (coordinator_unknown()) return;
  send_leave(config_.instance_id ? kStaticLeaveEpoch : kLeaveEpoch);
}

template <class C>
void EpochMember<C>::on_freeze() {
  freeze_group_work();
  request_timer_.cancel();  // the request's answer is waited for again after the thaw
}

template <class C>
void EpochMember<C>::on_thaw() {
  thaw_callbacks();
  if (in_flight_) report_owned_ = true;  // a request in flight before the freeze is timed out by now
  in_flight_ = false;
  // The background thread checks the poll timer before it heartbeats.
  if (poll_deadline_passed_while_frozen()) {
    on_poll_timeout();
    return;
  }
  send_heartbeat();
}

// The application thread's poll loop. The background thread heartbeats on
// regardless; rebalance callbacks wait for the next poll, and a batch longer
// than max.poll.interval.ms makes the background thread leave the group
// (HeartbeatRequestManager: transitionToSendingLeaveGroup on an expired poll
// timer); the member is stale until its next poll, which loses what it held
// and joins again with epoch 0.
template <class C>
void EpochMember<C>::slow(Duration batch, Duration length) {
  if (phase_ == Phase::Down) return;
  emit("slow", {{"batch_us", batch.count()}, {"for_us", length.count()}});
  set_slow(batch, length);
  start_batch();
}

template <class C>
void EpochMember<C>::start_batch() {
  if (in_batch() || revoking_ || stale_ || phase_ != Phase::Active) return;
  next_batch(config_.max_poll_interval);
}

template <class C>
void EpochMember<C>::on_batch_end() {
  if (stale_) {
    stale_ = false;
    lose_all("poll timeout");
    forget_member_id();
    epoch_ = kJoinEpoch;
    phase_ = Phase::Joining;
    emit("join", {{"member-id", member_id_}});
    send_heartbeat();
    return;
  }
  if (reconcile_after_batch_) {
    reconcile_after_batch_ = false;
    reconcile(latest_);
    return;
  }
  start_batch();
}

template <class C>
void EpochMember<C>::on_poll_timeout() {
  emit("poll-timeout", {{"max-poll-interval_us", config_.max_poll_interval.count()}});
  if (phase_ == Phase::Active) send_leave_heartbeat();
  stale_ = true;
  in_flight_ = send_again_ = false;
  heartbeat_timer_.cancel();
  request_timer_.cancel();
  retry_timer_.cancel();
}

template <class C>
void EpochMember<C>::subscribe(std::vector<std::string> topics) {
  config_.topics = std::move(topics);  // a process that is down subscribes so when it starts
  if (phase_ == Phase::Down) return;
  emit("subscribe", {{"topics", config_.topics.list()}});
  send_heartbeat();
}

template <class C>
void EpochMember<C>::coordinator_disconnected() {
  if (phase_ == Phase::Down || coordinator_unknown()) return;
  in_flight_ = false;
  report_owned_ = true;
  request_timer_.cancel();
  heartbeat_timer_.cancel();
  lose_coordinator(coordinator_lookup());
}

template <class C>
void EpochMember<C>::on_coordinator_found() {
  send_heartbeat();
}

}  // namespace rsim::protocols::epoch
