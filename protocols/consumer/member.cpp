#include "protocols/consumer/member.hpp"

#include <algorithm>

namespace rsim::protocols::consumer {

ConsumerMember::ConsumerMember(MemberContext ctx, classic::MemberConfig config)
    : MemberProcess(ctx.kernel, ctx.network, ctx.trace, config.client_id, config.node),
      ctx_(ctx),
      config_(std::move(config)) {}

void ConsumerMember::stop_timers() {
  end_process();
  initialising_.clear();  // a new process starts with nothing in hand
  reconcile_after_batch_ = stale_ = false;
}

void ConsumerMember::start() {
  if (phase_ != Phase::Down) return;
  ctx_.network.restart(node());
  phase_ = Phase::Joining;
  member_id_.clear();
  epoch_ = kJoinEpoch;
  assigned_epoch_ = -1;
  owned_.clear();
  latest_.clear();
  reconciled_.reset();
  report_owned_ = true;
  revoking_ = in_flight_ = send_again_ = false;
  reset_process();
  emit("start");
  emit("join", {{"member-id", member_id_}});
  send_heartbeat();
}

void ConsumerMember::start_stable(const std::string& member_id, int epoch, std::vector<TopicPartition> owned) {
  ctx_.network.restart(node());
  phase_ = Phase::Active;
  member_id_ = member_id;
  epoch_ = epoch;
  std::sort(owned.begin(), owned.end());
  owned_ = latest_ = std::move(owned);
  reconciled_ = owned_;
  assigned_epoch_ = epoch;
  emit("start");
  emit("joined", {{"member-id", member_id_}, {"generation", epoch_}});
  emit("assigned", {{"generation", epoch_}, {"resources", to_strings(owned_)}});
  emit("ready", {{"resources", to_strings(owned_)}});
  heartbeat_timer_.arm_in(interval_, [this] { send_heartbeat(); });
}

void ConsumerMember::crash() {
  if (phase_ == Phase::Down) return;
  emit("crash", {{"resources", to_strings(owned_)}});
  ctx_.network.crash(node());
  stop_timers();
  phase_ = Phase::Down;
  revoking_ = in_flight_ = false;
  owned_.clear();
}

// ConsumerGroupHeartbeat: the whole protocol. One in flight at a time; a
// request that has to wait is sent when the answer arrives.
void ConsumerMember::send_heartbeat() {
  if (phase_ == Phase::Down || phase_ == Phase::Leaving || stale_ || paused() || coordinator_unknown()) return;
  if (in_flight_) {
    send_again_ = true;
    return;
  }
  HeartbeatRequest req;
  req.member_id = member_id_;
  req.member_epoch = epoch_;
  req.client_id = config_.client_id;
  req.instance_id = config_.instance_id;
  req.topics = config_.topics;
  if (report_owned_ || phase_ == Phase::Joining) req.owned = owned_;
  report_owned_ = false;
  req.rebalance_timeout = config_.max_poll_interval;
  in_flight_ = true;
  const std::uint64_t seq = ++seq_;
  Directory* dir = &ctx_.directory;
  Reply<HeartbeatResponse> reply = [this, dir, seq](HeartbeatResponse r) {
    ctx_.network.send(dir->node, node(), "ConsumerGroupHeartbeatResponse", [this, seq, r = std::move(r)]() mutable {
      on_message([this, seq, r = std::move(r)]() mutable { on_response(seq, std::move(r)); });
    });
  };
  ctx_.network.send(node(), dir->node, "ConsumerGroupHeartbeat", [dir, req = std::move(req), reply = std::move(reply)]() mutable {
    if (dir->coordinator != nullptr) dir->coordinator->handle_heartbeat(std::move(req), std::move(reply));
  });
  request_timer_.arm_in(config_.request_timeout, [this] {
    emit("request-timeout", {{"request", std::string("ConsumerGroupHeartbeat")}});
    in_flight_ = false;
    report_owned_ = true;  // a failed request: the next one sends every field
    send_heartbeat();
  });
  heartbeat_timer_.arm_in(interval_, [this] { send_heartbeat(); });
}

void ConsumerMember::on_response(std::uint64_t seq, HeartbeatResponse r) {
  if (seq != seq_ || phase_ == Phase::Down || phase_ == Phase::Leaving || stale_) return;
  in_flight_ = false;
  request_timer_.cancel();
  if (r.error == Error::FencedMemberEpoch || r.error == Error::UnknownMemberId) {
    // Fenced: everything is lost (onPartitionsLost); rejoin at epoch 0.
    emit("heartbeat", {{"error", std::string(error_name(r.error))}});
    lose_all(error_name(r.error));
    epoch_ = kJoinEpoch;
    if (r.error == Error::UnknownMemberId) member_id_.clear();
    phase_ = Phase::Joining;
    emit("join", {{"member-id", member_id_}});
    send_heartbeat();
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
  interval_ = r.heartbeat_interval;
  if (phase_ == Phase::Joining) {
    phase_ = Phase::Active;
    emit("joined", {{"member-id", member_id_}, {"generation", r.member_epoch}});
  }
  epoch_ = r.member_epoch;
  latest_ = r.assignment;
  reconcile(latest_);
  if (send_again_) {
    send_again_ = false;
    send_heartbeat();
  }
}

// The membership manager's reconciliation: revoke first (onPartitionsRevoked,
// paying the revoke cost), then take what is new, then acknowledge: the
// owned partitions a heartbeat reports are the assignment of the last
// completed reconciliation (AbstractMembershipManager.revokeAndAssign sets
// currentAssignment, and transitions to ACKNOWLEDGING, only once both
// callbacks are done), never the half-way state between them.
// The callbacks run in the application thread, in poll(): a member in the
// middle of a batch reconciles when the batch ends.
void ConsumerMember::reconcile(const std::vector<TopicPartition>& assignment, bool acknowledge) {
  if (revoking_ || phase_ != Phase::Active) return;
  if (in_batch()) {
    reconcile_after_batch_ = true;
    return;
  }
  std::vector<TopicPartition> revoke, add;
  for (const auto& tp : owned_)
    if (std::find(assignment.begin(), assignment.end(), tp) == assignment.end()) revoke.push_back(tp);
  for (const auto& tp : assignment)
    if (std::find(owned_.begin(), owned_.end(), tp) == owned_.end()) add.push_back(tp);
  if (!revoke.empty()) {
    // The acknowledgement, which frees them for their new owners, follows
    // the rest of the step.
    revoke_then(revoke, [this] { reconcile(latest_, true); });
    return;
  }
  // A new target reconciled is acknowledged, even when nothing changes
  // here (AbstractMembershipManager.maybeReconcile bumps the local epoch):
  // the next heartbeat lists the owned partitions. (Kafka sends it at once;
  // here it goes with the next heartbeat unless something was revoked or
  // added.)
  if (reconciled_ != assignment) {
    reconciled_ = assignment;
    report_owned_ = true;
  }
  if (add.empty() && assigned_epoch_ == epoch_) {
    if (acknowledge) send_heartbeat();
    start_batch();  // poll() returns: the next batch
    return;
  }
  assigned_epoch_ = epoch_;
  owned_.insert(owned_.end(), add.begin(), add.end());
  std::sort(owned_.begin(), owned_.end());
  emit("assigned", {{"generation", epoch_}, {"resources", to_strings(add)}});
  if (add.empty()) {
    if (acknowledge) send_heartbeat();
    start_batch();
    return;
  }
  initialising_.insert(initialising_.end(), add.begin(), add.end());
  auto ready = [this] {
    if (!initialising_.empty()) emit("ready", {{"resources", to_strings(initialising_)}});
    initialising_.clear();
  };
  // What arrives while an initialisation is in progress restarts it: the
  // whole batch is ready after the newest part's cost (a simplification).
  const Duration cost = config_.assign_time(add);
  init_timer_.cancel();
  after(init_timer_, cost, std::move(ready));
  send_heartbeat();  // acknowledges the new assignment
  start_batch();
}

// onPartitionsRevoked, paying the revoke cost; a partition still
// initialising is revoked as well (the others finish).
void ConsumerMember::revoke_then(std::vector<TopicPartition> revoke, Callback then) {
  revoking_ = true;
  for (const auto& tp : revoke)
    initialising_.erase(std::remove(initialising_.begin(), initialising_.end(), tp), initialising_.end());
  emit("revoking", {{"resources", to_strings(revoke)}});
  const Duration cost = config_.revoke_time(revoke);
  after(revoke_timer_, cost, [this, revoke = std::move(revoke), then = std::move(then)]() mutable {
    revoking_ = false;
    for (const auto& tp : revoke) owned_.erase(std::remove(owned_.begin(), owned_.end(), tp), owned_.end());
    emit("revoked", {{"resources", to_strings(revoke)}});
    then();
  });
}

void ConsumerMember::lose_all(const std::string& reason) {
  reconciled_.reset();
  report_owned_ = true;
  revoke_timer_.cancel();
  init_timer_.cancel();
  initialising_.clear();
  revoking_ = false;
  if (!owned_.empty()) emit("lost", {{"resources", to_strings(owned_)}, {"reason", reason}});
  owned_.clear();
  latest_.clear();
  assigned_epoch_ = -1;
}

// close(): revoke everything, then leave with epoch -1 (-2 for a static
// member, which keeps its assignment reserved for its return).
void ConsumerMember::leave(std::function<void()> on_stopped) {
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
    ctx_.network.crash(node());
    stop_timers();
    phase_ = Phase::Down;
    owned_.clear();
    if (on_stopped) on_stopped();
  };
  if (owned_.empty()) {
    finish();
    return;
  }
  revoke_then(owned_, std::move(finish));
}

// Epoch -1 (-2 for a static member, whose assignment stays reserved).
void ConsumerMember::send_leave_heartbeat() {
  if (coordinator_unknown()) return;
  HeartbeatRequest req;
  req.member_id = member_id_;
  req.member_epoch = config_.instance_id ? kStaticLeaveEpoch : kLeaveEpoch;
  req.client_id = config_.client_id;
  req.instance_id = config_.instance_id;
  Directory* dir = &ctx_.directory;
  ctx_.network.send(node(), dir->node, "ConsumerGroupHeartbeat", [dir, req] {
    if (dir->coordinator != nullptr) dir->coordinator->handle_heartbeat(req, [](HeartbeatResponse) {});
  });
}

void ConsumerMember::on_freeze() {
  freeze_group_work();
  request_timer_.cancel();  // the request's answer is waited for again after the thaw
}

void ConsumerMember::on_thaw() {
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
// (onPartitionsLost) and joins again with epoch 0.
void ConsumerMember::slow(Duration batch, Duration length) {
  if (phase_ == Phase::Down) return;
  emit("slow", {{"batch_us", batch.count()}, {"for_us", length.count()}});
  set_slow(batch, length);
  start_batch();
}

void ConsumerMember::start_batch() {
  if (in_batch() || revoking_ || stale_ || phase_ != Phase::Active) return;
  next_batch(config_.max_poll_interval);
}

void ConsumerMember::on_batch_end() {
  if (stale_) {
    stale_ = false;
    lose_all("poll timeout");
    member_id_.clear();
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

void ConsumerMember::on_poll_timeout() {
  emit("poll-timeout", {{"max-poll-interval_us", config_.max_poll_interval.count()}});
  if (phase_ == Phase::Active) send_leave_heartbeat();
  stale_ = true;
  in_flight_ = send_again_ = false;
  heartbeat_timer_.cancel();
  request_timer_.cancel();
  retry_timer_.cancel();
}

void ConsumerMember::subscribe(std::vector<std::string> topics) {
  config_.topics = std::move(topics);  // a process that is down subscribes so when it starts
  if (phase_ == Phase::Down) return;
  emit("subscribe", {{"topics", config_.topics}});
  send_heartbeat();
}

void ConsumerMember::coordinator_disconnected() {
  if (phase_ == Phase::Down || coordinator_unknown()) return;
  in_flight_ = false;
  report_owned_ = true;
  request_timer_.cancel();
  heartbeat_timer_.cancel();
  lose_coordinator(CoordinatorLookup{ctx_.directory.bootstrap, &ctx_.directory.available, config_.retry_backoff,
                                     config_.retry_backoff_max, config_.request_timeout});
}

void ConsumerMember::on_coordinator_found() { send_heartbeat(); }

}  // namespace rsim::protocols::consumer
