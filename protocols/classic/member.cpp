#include "protocols/classic/member.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace rsim::protocols::classic {

namespace {
// Kafka's client adds this to the rebalance timeout for the JoinGroup request
// (AbstractCoordinator JOIN_GROUP_TIMEOUT_LAPSE).
constexpr Duration kJoinGroupTimeoutLapse = 5s;
}  // namespace

ClassicMember::ClassicMember(MemberContext ctx, MemberConfig config)
    : ctx_(ctx),
      config_(std::move(config)),
      node_(ctx_.network.add_node(config_.client_id)),
      heartbeat_timer_(ctx_.kernel),
      request_timer_(ctx_.kernel),
      work_timer_(ctx_.kernel),
      init_timer_(ctx_.kernel),
      pause_timer_(ctx_.kernel),
      retry_timer_(ctx_.kernel) {
  ctx_.network.crash(node_);  // not running until start()
}

void ClassicMember::emit(std::string kind, std::vector<TraceField> fields) {
  ctx_.trace.emit(ctx_.kernel.now(), config_.client_id, std::move(kind), std::move(fields));
}

void ClassicMember::on_message(Callback handler) {
  if (phase_ == Phase::Down) return;
  if (paused_) {
    inbox_.push_back(std::move(handler));
    return;
  }
  handler();
}

// ------------------------------------------------------------------ lifecycle

void ClassicMember::start() {
  assert(phase_ == Phase::Down);
  ctx_.network.restart(node_);
  phase_ = Phase::Idle;
  member_id_.clear();  // a new process has no member id (a static one keeps its instance id)
  generation_ = -1;
  owned_.clear();
  emit("start");
  send_join();
}

void ClassicMember::start_stable(const std::string& member_id, int generation, std::vector<TopicPartition> owned) {
  assert(phase_ == Phase::Down);
  ctx_.network.restart(node_);
  phase_ = Phase::Stable;
  member_id_ = member_id;
  generation_ = generation;
  std::sort(owned.begin(), owned.end());
  owned_ = std::move(owned);
  emit("start");
  emit("joined", {{"member-id", member_id_}, {"generation", generation_}});
  emit("assigned", {{"generation", generation_}, {"resources", to_strings(owned_)}});
  emit("ready", {{"resources", to_strings(owned_)}});
  arm_heartbeat();
}

void ClassicMember::stop_timers() {
  heartbeat_timer_.cancel();
  request_timer_.cancel();
  work_timer_.cancel();
  init_timer_.cancel();
  pause_timer_.cancel();
  retry_timer_.cancel();
  work_done_ = nullptr;
  init_done_ = nullptr;
}

void ClassicMember::crash() {
  if (phase_ == Phase::Down) return;
  emit("crash", {{"resources", to_strings(owned_)}});
  ctx_.network.crash(node_);
  stop_timers();
  phase_ = Phase::Down;
  paused_ = false;
  inbox_.clear();
  revoking_ = false;
  owned_.clear();
}

// KafkaConsumer.close(): revoke what is owned (paying the revoke cost), then
// LeaveGroup, which only dynamic members send (KIP-345).
void ClassicMember::leave(std::function<void()> on_stopped) {
  if (phase_ == Phase::Down) return;
  emit("leave");
  heartbeat_timer_.cancel();
  request_timer_.cancel();
  retry_timer_.cancel();
  init_timer_.cancel();
  init_done_ = nullptr;
  work_timer_.cancel();
  work_done_ = nullptr;
  revoking_ = false;
  auto finish = [this, on_stopped = std::move(on_stopped)] {
    if (!config_.instance_id && !member_id_.empty()) {
      LeaveGroupRequest req{member_id_};
      ctx_.network.send(node_, ctx_.coordinator_node, "LeaveGroup",
                        [coord = &ctx_.coordinator, req] { coord->handle_leave(req); });
    }
    emit("stopped");
    ctx_.network.crash(node_);
    stop_timers();
    phase_ = Phase::Down;
    owned_.clear();
    if (on_stopped) on_stopped();
  };
  phase_ = Phase::Idle;  // no longer takes part in the group
  revoke(owned_, std::move(finish));
}

// The process freezes (GC, a stuck poll loop): no heartbeats, no progress on
// revocation or initialisation; messages wait in the socket until it thaws.
void ClassicMember::pause(Duration length) {
  if (phase_ == Phase::Down) return;
  if (paused_) {  // a longer freeze extends the current one
    if (ctx_.kernel.now() + length > pause_timer_.deadline()) pause_timer_.arm_in(length, [this] { resume(); });
    return;
  }
  paused_ = true;
  emit("pause", {{"for_us", length.count()}});
  heartbeat_timer_.cancel();
  if (work_timer_.armed()) {
    work_left_ = work_timer_.deadline() - ctx_.kernel.now();
    work_timer_.cancel();
  }
  if (init_timer_.armed()) {
    init_left_ = init_timer_.deadline() - ctx_.kernel.now();
    init_timer_.cancel();
  }
  pause_timer_.arm_in(length, [this] { resume(); });
}

void ClassicMember::resume() {
  paused_ = false;
  emit("resume");
  if (work_done_) work_timer_.arm_in(work_left_, [this] {
      auto done = std::move(work_done_);
      work_done_ = nullptr;
      done();
    });
  if (init_done_) init_timer_.arm_in(init_left_, [this] {
      auto done = std::move(init_done_);
      init_done_ = nullptr;
      done();
    });
  if (phase_ == Phase::Syncing || phase_ == Phase::Stable) send_heartbeat();
  while (!inbox_.empty() && !paused_ && phase_ != Phase::Down) {
    auto handler = std::move(inbox_.front());
    inbox_.pop_front();
    handler();
  }
}

// ------------------------------------------------------------------ revoke / rejoin

void ClassicMember::revoke(std::vector<TopicPartition> partitions, Callback then) {
  if (partitions.empty()) {
    then();
    return;
  }
  // A partition still initialising is revoked as well; its init is abandoned.
  init_timer_.cancel();
  init_done_ = nullptr;
  revoking_ = true;
  emit("revoking", {{"resources", to_strings(partitions)}});
  const Duration cost = config_.revoke_cost * static_cast<std::int64_t>(partitions.size());
  work_done_ = [this, partitions, then = std::move(then)]() mutable {
    revoking_ = false;
    for (const auto& tp : partitions) owned_.erase(std::remove(owned_.begin(), owned_.end(), tp), owned_.end());
    emit("revoked", {{"resources", to_strings(partitions)}});
    then();
  };
  work_timer_.arm_in(cost, [this] {
    auto done = std::move(work_done_);
    work_done_ = nullptr;
    done();
  });
}

void ClassicMember::request_rejoin(const std::string& reason) {
  if (phase_ != Phase::Stable || revoking_) return;
  // The consumer rejoins from its poll loop; with no batch in progress that
  // is at once.
  prepare_and_join(reason);
}

void ClassicMember::prepare_and_join(const std::string& reason) {
  emit("rejoin", {{"reason", reason}});
  auto to_revoke = ctx_.protocol.revoke_before_join(owned_, config_.topics);
  revoke(std::move(to_revoke), [this] { send_join(); });
}

// ------------------------------------------------------------------ JoinGroup

void ClassicMember::send_join() {
  if (phase_ == Phase::Down) return;
  phase_ = Phase::Joining;
  heartbeat_timer_.cancel();  // no heartbeats while parked in JoinGroup
  const std::uint64_t seq = ++request_seq_;
  JoinGroupRequest req;
  req.member_id = member_id_;
  req.client_id = config_.client_id;
  req.instance_id = config_.instance_id;
  req.session_timeout = config_.session_timeout;
  req.rebalance_timeout = config_.rebalance_timeout;
  req.subscription = ctx_.protocol.subscription(config_.topics, owned_, generation_);
  emit("join", {{"member-id", member_id_}});
  auto reply = [this, seq](JoinGroupResponse r) {
    ctx_.network.send(ctx_.coordinator_node, node_, "JoinGroupResponse",
                      [this, seq, r = std::move(r)]() mutable {
                        on_message([this, seq, r = std::move(r)]() mutable { on_join_response(seq, std::move(r)); });
                      });
  };
  ctx_.network.send(node_, ctx_.coordinator_node, "JoinGroup",
                    [coord = &ctx_.coordinator, req = std::move(req), reply = std::move(reply)]() mutable {
                      coord->handle_join(std::move(req), std::move(reply));
                    });
  request_timer_.arm_in(config_.rebalance_timeout + kJoinGroupTimeoutLapse, [this] {
    emit("request-timeout", {{"request", std::string("JoinGroup")}});
    send_join();
  });
}

void ClassicMember::retry_join_later() {
  request_timer_.cancel();
  retry_timer_.arm_in(config_.retry_backoff, [this] { send_join(); });
}

void ClassicMember::on_join_response(std::uint64_t seq, JoinGroupResponse r) {
  if (seq != request_seq_ || phase_ != Phase::Joining) return;  // an answer to an older request
  request_timer_.cancel();
  switch (r.error) {
    case Error::MemberIdRequired:
      member_id_ = r.member_id;
      send_join();
      return;
    case Error::UnknownMemberId:
      member_id_.clear();
      generation_ = -1;
      retry_join_later();
      return;
    case Error::FencedInstanceId:
      // Fatal for a static member: another process holds the instance id.
      emit("fenced", {{"reason", std::string("FENCED_INSTANCE_ID")}});
      crash();
      return;
    case Error::None:
      break;
    default:
      retry_join_later();
      return;
  }
  member_id_ = r.member_id;
  generation_ = r.generation;
  leader_ = r.leader;
  joined_members_ = std::move(r.members);
  phase_ = Phase::Syncing;
  emit("joined", {{"member-id", member_id_}, {"generation", generation_}, {"leader", leader_}});
  arm_heartbeat();
  send_sync();
}

// ------------------------------------------------------------------ SyncGroup

void ClassicMember::send_sync() {
  const std::uint64_t seq = ++request_seq_;
  SyncGroupRequest req;
  req.member_id = member_id_;
  req.generation = generation_;
  if (member_id_ == leader_ && !joined_members_.empty())
    req.assignments = ctx_.protocol.assign(ctx_.assignor, ctx_.metadata, joined_members_);
  joined_members_.clear();
  auto reply = [this, seq](SyncGroupResponse r) {
    ctx_.network.send(ctx_.coordinator_node, node_, "SyncGroupResponse",
                      [this, seq, r = std::move(r)]() mutable {
                        on_message([this, seq, r = std::move(r)]() mutable { on_sync_response(seq, std::move(r)); });
                      });
  };
  ctx_.network.send(node_, ctx_.coordinator_node, "SyncGroup",
                    [coord = &ctx_.coordinator, req = std::move(req), reply = std::move(reply)]() mutable {
                      coord->handle_sync(std::move(req), std::move(reply));
                    });
  request_timer_.arm_in(config_.request_timeout, [this] {
    emit("request-timeout", {{"request", std::string("SyncGroup")}});
    send_join();
  });
}

void ClassicMember::on_sync_response(std::uint64_t seq, SyncGroupResponse r) {
  if (seq != request_seq_ || phase_ != Phase::Syncing) return;
  request_timer_.cancel();
  switch (r.error) {
    case Error::None:
      break;
    case Error::RebalanceInProgress:
      send_join();
      return;
    case Error::UnknownMemberId:
    case Error::IllegalGeneration:
      lose_partitions(error_name(r.error));
      if (r.error == Error::UnknownMemberId) member_id_.clear();
      generation_ = -1;
      send_join();
      return;
    case Error::FencedInstanceId:
      emit("fenced", {{"reason", std::string("FENCED_INSTANCE_ID")}});
      crash();
      return;
    default:
      retry_join_later();
      return;
  }
  AssignmentOutcome outcome = ctx_.protocol.on_assignment(owned_, r.assignment);
  phase_ = Phase::Stable;
  arm_heartbeat();  // heartbeats are phase-locked to the SyncGroup response
  auto assign = [this, outcome] {
    for (const auto& tp : outcome.add) owned_.push_back(tp);
    std::sort(owned_.begin(), owned_.end());
    emit("assigned", {{"generation", generation_}, {"resources", to_strings(outcome.add)}});
    const Duration cost = config_.assign_cost * static_cast<std::int64_t>(outcome.add.size());
    auto ready = [this, added = outcome.add] { emit("ready", {{"resources", to_strings(added)}}); };
    if (cost == Duration{0}) {
      ready();
    } else {
      init_done_ = std::move(ready);
      init_timer_.arm_in(cost, [this] {
        auto done = std::move(init_done_);
        init_done_ = nullptr;
        done();
      });
    }
    if (outcome.rejoin) request_rejoin("assignment asks for a follow-up rebalance");
  };
  revoke(outcome.revoke, std::move(assign));
}

// ------------------------------------------------------------------ Heartbeat

void ClassicMember::arm_heartbeat() {
  heartbeat_timer_.arm_in(config_.heartbeat_interval, [this] { send_heartbeat(); });
}

void ClassicMember::send_heartbeat() {
  if (paused_ || (phase_ != Phase::Syncing && phase_ != Phase::Stable)) return;
  const int generation = generation_;
  HeartbeatRequest req{member_id_, generation};
  auto reply = [this, generation](HeartbeatResponse r) {
    ctx_.network.send(ctx_.coordinator_node, node_, "HeartbeatResponse", [this, generation, r] {
      on_message([this, generation, r] { on_heartbeat_response(generation, r); });
    });
  };
  ctx_.network.send(node_, ctx_.coordinator_node, "Heartbeat",
                    [coord = &ctx_.coordinator, req, reply = std::move(reply)]() mutable {
                      coord->handle_heartbeat(req, std::move(reply));
                    });
  arm_heartbeat();
}

void ClassicMember::on_heartbeat_response(int generation, HeartbeatResponse r) {
  emit("heartbeat", {{"error", std::string(error_name(r.error))}});
  if (generation != generation_ || (phase_ != Phase::Syncing && phase_ != Phase::Stable)) return;
  switch (r.error) {
    case Error::None:
      return;
    case Error::RebalanceInProgress:
      request_rejoin("group is rebalancing");
      return;
    case Error::UnknownMemberId:
    case Error::IllegalGeneration:
      // The coordinator no longer knows this member or generation: whatever
      // it owns may already belong to someone else (onPartitionsLost).
      lose_partitions(error_name(r.error));
      if (r.error == Error::UnknownMemberId) member_id_.clear();
      generation_ = -1;
      send_join();
      return;
    case Error::FencedInstanceId:
      emit("fenced", {{"reason", std::string("FENCED_INSTANCE_ID")}});
      crash();
      return;
    default:
      return;
  }
}

void ClassicMember::lose_partitions(const std::string& reason) {
  init_timer_.cancel();
  init_done_ = nullptr;
  // A revocation in progress is moot: the partitions are gone either way.
  work_timer_.cancel();
  work_done_ = nullptr;
  revoking_ = false;
  if (owned_.empty()) return;
  emit("lost", {{"resources", to_strings(owned_)}, {"reason", reason}});
  owned_.clear();
}

}  // namespace rsim::protocols::classic
