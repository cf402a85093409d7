#include "protocols/classic/member.hpp"

#include "protocols/classic/wire_size.hpp"

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
    : MemberProcess(ctx.kernel, ctx.network, ctx.trace, config.client_id, config.node),
      ctx_(ctx),
      config_(std::move(config)),
      metadata_timer_(ctx_.kernel),
      scheduled_rebalance_timer_(ctx_.kernel) {
  static const auto kNoMetadata = std::make_shared<const Metadata>();  // before the first refresh
  known_metadata_ = kNoMetadata;
  assigned_metadata_ = kNoMetadata;
}

template <class Req, class Resp, class Handle>
void ClassicMember::call(const char* what, Req req, void (ClassicEndpoint::*method)(Req, Reply<Resp>), Handle handle) {
  CoordinatorDirectory* dir = &ctx_.directory;
  const std::string answer = std::string(what) + "Response";
  const std::size_t request_bytes = wire_size(req);
  Reply<Resp> reply = [this, dir, answer, handle, request_bytes](Resp r) {
    const std::size_t response_bytes = wire_size(r);
    ctx_.network.send(
        dir->node, node(), answer,
        [this, handle, request_bytes, response_bytes, r = std::move(r)]() mutable {
          on_message([this, handle, bytes = request_bytes + response_bytes, r = std::move(r)]() mutable {
            round_trip_bytes_ = static_cast<std::int64_t>(bytes);
            handle(std::move(r));
          });
        },
        response_bytes);
  };
  ctx_.network.send(
      node(), dir->node, what,
      [dir, method, req = std::move(req), reply = std::move(reply)]() mutable {
        (dir->coordinator->*method)(std::move(req), std::move(reply));
      },
      request_bytes);
}

namespace {
// Handling `resources` at `each` per resource (or its topic's own cost): in
// turn, or all at once.
Duration handling_time(const std::vector<TopicPartition>& resources, Duration each,
                       const std::map<std::string, Duration>& of_topic, bool parallel) {
  Duration total{0};
  for (const auto& r : resources) {
    auto it = of_topic.find(r.topic.name());
    const Duration one = it == of_topic.end() ? each : it->second;
    total = parallel ? std::max(total, one) : total + one;
  }
  return total;
}
}  // namespace

Duration MemberConfig::revoke_time(const std::vector<TopicPartition>& resources) const {
  return handling_time(resources, revoke_cost, revoke_cost_of_topic, parallel);
}

Duration MemberConfig::assign_time(const std::vector<TopicPartition>& resources) const {
  return handling_time(resources, assign_cost, assign_cost_of_topic, parallel);
}

const Assignor& ClassicMember::group_assignor() const {
  for (const Assignor* a : config_.assignors)
    if (a->name() == group_protocol_) return *a;
  return config_.assignors.empty() ? ctx_.assignor : *config_.assignors.front();
}

// Kafka sends each assignor's own user data; the sticky assignor's is the
// one that differs (its last assignment), so it is sent when listed.
const Assignor& ClassicMember::subscription_assignor() const {
  for (const Assignor* a : config_.assignors)
    if (a->keeps_last_assignment()) return *a;
  return config_.assignors.empty() ? ctx_.assignor : *config_.assignors.front();
}

std::vector<std::string> ClassicMember::protocol_names() const {
  if (config_.assignors.empty()) return {std::string(ctx_.assignor.name())};
  std::vector<std::string> names;
  for (const Assignor* a : config_.assignors) names.emplace_back(a->name());
  return names;
}

// ------------------------------------------------------------------ lifecycle

void ClassicMember::start() {
  assert(phase_ == Phase::Down);
  if (next_assignors_) {
    config_.assignors = std::move(next_assignors_->first);
    config_.protocol = next_assignors_->second;
    next_assignors_.reset();
  }
  group_protocol_.clear();
  ctx_.network.restart(node());
  phase_ = Phase::Idle;
  member_id_.clear();  // a new process has no member id (a static one keeps its instance id)
  generation_ = -1;
  owned_.clear();
  last_assignment_.clear();
  leader_state_ = protocol().new_leader_state();  // a new process remembers nothing
  last_completed_generation_ = -1;
  reset_process();
  known_metadata_ = cluster_snapshot();
  metadata_timer_.arm_in(config_.metadata_max_age, [this] { refresh_metadata(); });
  if (config_.assignors.empty()) emit("start");
  else emit("start", {{"assignors", protocol_names()}, {"rebalance-protocol", std::string(protocol().name())}});
  send_join();
}

void ClassicMember::start_stable(const std::string& member_id, const std::string& leader, int generation,
                                 std::vector<TopicPartition> owned, const std::string& group_protocol) {
  assert(phase_ == Phase::Down);
  ctx_.network.restart(node());
  phase_ = Phase::Stable;
  group_protocol_ = group_protocol;
  member_id_ = member_id;
  leader_ = leader;
  generation_ = generation;
  known_metadata_ = cluster_snapshot();
  assigned_metadata_ = known_metadata_;
  metadata_timer_.arm_in(config_.metadata_max_age, [this] { refresh_metadata(); });
  std::sort(owned.begin(), owned.end());
  owned_ = std::move(owned);
  last_assignment_ = owned_;
  joined_topics_ = config_.topics;
  leader_state_ = protocol().new_leader_state();
  last_completed_generation_ = generation;
  emit("start");
  emit("joined", {{"member-id", member_id_}, {"generation", generation_}, {"leader", leader_}});
  emit("assigned", {{"generation", generation_}, {"resources", to_names(owned_)}});
  emit("ready", {{"resources", to_names(owned_)}});
  arm_heartbeat();
}

void ClassicMember::stop_timers() {
  end_process();
  metadata_timer_.cancel();
  scheduled_rebalance_timer_.cancel();
  initialising_.clear();
  rejoin_after_batch_.reset();
  left_on_poll_timeout_ = false;
}

// A stream thread that stops closes its active tasks and drops its standbys.
void ClassicMember::stop_tasks() {
  if (!config_.tasks) return;
  config_.tasks->released(owned_);
  config_.tasks->stopped();
}

void ClassicMember::crash() {
  if (phase_ == Phase::Down) return;
  emit("crash", {{"resources", to_names(owned_)}});
  ctx_.network.crash(node());
  stop_timers();
  phase_ = Phase::Down;
  revoking_ = false;
  stop_tasks();
  owned_.clear();
}

// KafkaConsumer.close(): revoke what is owned (paying the revoke cost), then
// LeaveGroup, which only dynamic members send (KIP-345).
void ClassicMember::leave(std::function<void()> on_stopped) {
  if (phase_ == Phase::Down) return;
  emit("leave");
  cancel_group_work();
  initialising_.clear();
  revoking_ = false;
  auto finish = [this, on_stopped = std::move(on_stopped)] {
    if (!config_.instance_id && !member_id_.empty() && !coordinator_unknown()) {
      LeaveGroupRequest req{member_id_};
      CoordinatorDirectory* dir = &ctx_.directory;
      ctx_.network.send(node(), dir->node, "LeaveGroup", [dir, req] { dir->coordinator->handle_leave(req); });
    }
    emit("stopped");
    ctx_.network.crash(node());
    stop_timers();
    phase_ = Phase::Down;
    stop_tasks();
    owned_.clear();
    if (on_stopped) on_stopped();
  };
  phase_ = Phase::Idle;  // no longer takes part in the group
  revoke(owned_, std::move(finish));
}

// A frozen process: no heartbeats, no progress on revocation,
// initialisation or the batch; messages wait in the socket until it thaws.
void ClassicMember::on_freeze() { freeze_group_work(); }

void ClassicMember::on_thaw() {
  thaw_callbacks();
  // The heartbeat thread checks the poll timer before it heartbeats; the
  // main thread, back in its batch, cannot poll before that.
  if (poll_deadline_passed_while_frozen()) {
    on_poll_timeout();
    return;
  }
  if (phase_ == Phase::Syncing || phase_ == Phase::Stable) send_heartbeat();
}

// KafkaConsumer.subscribe() with a new topic list: the member fetches
// metadata for it and rejoins from its next poll.
namespace {
bool same_sorted(std::vector<std::string> a, std::vector<std::string> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}
// The same set of topics: in the same order (nearly always) or sorted.
bool same_topics(const TopicNames& a, const TopicNames& b) {
  return a == b || same_sorted(a.list(), b.list());
}
}  // namespace

void ClassicMember::subscribe(std::vector<std::string> topics) {
  config_.topics = std::move(topics);  // a process that is down subscribes so when it starts
  if (phase_ == Phase::Down) return;
  known_metadata_ = cluster_snapshot();
  emit("subscribe", {{"topics", config_.topics.list()}});
  request_rejoin("subscription changed");
}

// ------------------------------------------------------------------ the poll loop

// Records are processed in batches between two poll() calls. A rejoin the
// heartbeat thread asked for happens at the next poll, i.e. when the batch
// in progress ends; a batch longer than max.poll.interval.ms makes the
// heartbeat thread leave the group (KIP-62).
void ClassicMember::slow(Duration batch, Duration length) {
  if (phase_ == Phase::Down) return;
  emit("slow", {{"batch_us", batch.count()}, {"for_us", length.count()}});
  set_slow(batch, length);
  if (!in_batch() && phase_ == Phase::Stable && !revoking_) next_batch(config_.max_poll_interval);
}

// The poll after the timeout: the generation was reset, so what the member
// still holds is lost, and it joins again as a new member.
void ClassicMember::rejoin_after_poll_timeout() {
  left_on_poll_timeout_ = false;
  lose_partitions("poll timeout");
  send_join();
}

void ClassicMember::on_batch_end() {
  if (left_on_poll_timeout_) {
    rejoin_after_poll_timeout();
    return;
  }
  if (rejoin_after_batch_) {
    const std::string reason = *rejoin_after_batch_;
    rejoin_after_batch_.reset();
    prepare_and_join(reason);
    return;
  }
  next_batch(config_.max_poll_interval);
}

void ClassicMember::on_poll_timeout() {
  emit("poll-timeout", {{"max-poll-interval_us", config_.max_poll_interval.count()}});
  if (!config_.instance_id && !member_id_.empty() && !coordinator_unknown()) {
    LeaveGroupRequest req{member_id_};
    CoordinatorDirectory* dir = &ctx_.directory;
    ctx_.network.send(node(), dir->node, "LeaveGroup", [dir, req] { dir->coordinator->handle_leave(req); });
  }
  // resetGenerationOnLeaveGroup: no member id, no generation, no heartbeats.
  member_id_.clear();
  generation_ = -1;
  phase_ = Phase::Idle;
  heartbeat_timer_.cancel();
  request_timer_.cancel();
  left_on_poll_timeout_ = true;
}

// ------------------------------------------------------------------ metadata, coordinator

std::shared_ptr<const Metadata> MetadataSnapshots::current() const {
  if (copy_ == nullptr || copied_at_ != version_) {
    copy_ = std::make_shared<const Metadata>(cluster_);
    copied_at_ = version_;
  }
  return copy_;
}

std::shared_ptr<const Metadata> ClassicMember::cluster_snapshot() const {
  return ctx_.snapshots != nullptr ? ctx_.snapshots->current() : std::make_shared<const Metadata>(ctx_.cluster);
}

void ClassicMember::refresh_metadata() {
  metadata_timer_.arm_in(config_.metadata_max_age, [this] { refresh_metadata(); });
  known_metadata_ = cluster_snapshot();
  // ConsumerCoordinator: the leader rejoins when the partition count of a
  // topic it assigned changed since it computed the assignment.
  if (phase_ != Phase::Stable || member_id_ != leader_) return;
  if (auto topic = changed_topic()) request_rejoin(fmt::format("partitions of {} changed", *topic));
}

// A topic of the group's assignment whose partition count the member has
// seen change since (ConsumerCoordinator's assignment snapshot).
std::optional<std::string> ClassicMember::changed_topic() const {
  for (const auto& [topic, count] : *assigned_metadata_) {
    auto it = known_metadata_->find(topic);
    if (it != known_metadata_->end() && it->second != count) return topic;
  }
  return std::nullopt;
}


void ClassicMember::coordinator_disconnected() {
  if (phase_ == Phase::Down || coordinator_unknown()) return;
  request_timer_.cancel();
  retry_timer_.cancel();
  lose_coordinator(CoordinatorLookup{ctx_.directory.bootstrap, &ctx_.directory.available, config_.retry_backoff,
                                     config_.retry_backoff_max, config_.request_timeout});
}

void ClassicMember::on_coordinator_found() {
  switch (phase_) {
    case Phase::Joining:
    case Phase::Syncing:
      send_join();  // the request in flight was lost with the old coordinator
      return;
    case Phase::Stable:
      send_heartbeat();
      return;
    case Phase::Idle:
    case Phase::Down:
      return;
  }
}

// ------------------------------------------------------------------ revoke / rejoin

void ClassicMember::revoke(std::vector<TopicPartition> partitions, Callback then) {
  if (partitions.empty()) {
    then();
    return;
  }
  // A partition still initialising is revoked as well; its init is
  // abandoned, the others' goes on.
  for (const auto& tp : partitions) std::erase(initialising_, tp);
  if (initialising_.empty()) init_timer_.cancel();
  revoking_ = true;
  emit("revoking", {{"resources", to_names(partitions)}});
  const Duration cost = config_.revoke_time(partitions);
  // onPartitionsRevoked runs inside poll(): a callback longer than
  // max.poll.interval.ms makes the heartbeat thread leave the group. (Not on
  // a clean leave, which revokes from close().)
  const bool in_poll = phase_ != Phase::Idle && !in_batch() && cost > Duration{0};
  if (in_poll) arm_poll_deadline(config_.max_poll_interval);
  auto done = [this, partitions, in_poll, then = std::move(then)]() mutable {
    revoking_ = false;
    for (const auto& tp : partitions) owned_.erase(std::remove(owned_.begin(), owned_.end(), tp), owned_.end());
    if (config_.tasks) config_.tasks->released(partitions);
    emit("revoked", {{"resources", to_names(partitions)}});
    if (in_poll) {
      cancel_poll_deadline();
      if (left_on_poll_timeout_) {
        rejoin_after_poll_timeout();
        return;
      }
    }
    then();
  };
  after(revoke_timer_, cost, std::move(done));
}

void ClassicMember::request_rejoin(const std::string& reason) {
  if (phase_ != Phase::Stable || revoking_) return;
  if (in_batch()) {  // at the next poll
    if (!rejoin_after_batch_) rejoin_after_batch_ = reason;
    return;
  }
  prepare_and_join(reason);
}

void ClassicMember::prepare_and_join(const std::string& reason) {
  emit("rejoin", {{"reason", reason}});
  auto to_revoke = protocol().revoke_before_join(owned_, config_.topics);
  revoke(std::move(to_revoke), [this] { send_join(); });
}

// ------------------------------------------------------------------ JoinGroup

void ClassicMember::send_join() {
  if (phase_ == Phase::Down) return;
  // This join supersedes a retry still pending (one armed by an error answer
  // while the process was paused, say): that retry would send a second
  // JoinGroup after this one has completed.
  retry_timer_.cancel();
  phase_ = Phase::Joining;
  heartbeat_timer_.cancel();  // no heartbeats while parked in JoinGroup
  if (coordinator_unknown()) return;  // sent once the coordinator is found
  const std::uint64_t seq = ++request_seq_;
  JoinGroupRequest req;
  req.member_id = member_id_;
  req.client_id = config_.client_id;
  req.instance_id = config_.instance_id;
  req.session_timeout = config_.session_timeout;
  req.rebalance_timeout = config_.rebalance_timeout;
  req.subscription = protocol().subscription(subscription_assignor(), config_.topics, owned_, last_assignment_, generation_);
  req.protocols = protocol_names();
  joined_topics_ = config_.topics;
  req.subscription.client_id = config_.client_id;
  if (config_.tasks) req.subscription.streams = config_.tasks->describe(owned_);
  emit("join", {{"member-id", member_id_}});
  call("JoinGroup", std::move(req), &ClassicEndpoint::handle_join,
       [this, seq](JoinGroupResponse r) { on_join_response(seq, std::move(r)); });
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
      // resetStateAndRejoin; the next onJoinPrepare sees no generation and
      // gives everything up as lost before joining again (KAFKA-12983).
      reset_generation(r.error);
      retry_join_later();
      return;
    case Error::FencedInstanceId:
      fenced_instance();
      return;
    case Error::InconsistentGroupProtocol:
      // Fatal: poll() throws; no assignor it lists is supported by the group.
      emit("fatal", {{"reason", std::string(error_name(r.error))}});
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
  skip_assignment_ = r.skip_assignment;
  group_protocol_ = r.protocol_name;
  phase_ = Phase::Syncing;
  std::vector<TraceField> fields{{"member-id", member_id_}, {"generation", generation_}, {"leader", leader_}, {"bytes", round_trip_bytes_}};
  if (!config_.assignors.empty())  // a client configured with a list: which assignor the group runs, how it rebalances
    fields.insert(fields.end(), {{"assignor", group_protocol_}, {"rebalance-protocol", std::string(protocol().name())}});
  emit("joined", std::move(fields));
  arm_heartbeat();
  send_sync();
}

// ------------------------------------------------------------------ SyncGroup

void ClassicMember::send_sync() {
  const std::uint64_t seq = ++request_seq_;
  SyncGroupRequest req;
  req.member_id = member_id_;
  req.instance_id = config_.instance_id;
  req.generation = generation_;
  if (member_id_ == leader_ && !joined_members_.empty() && !skip_assignment_) {
    // The leader assigns from the metadata it has, and remembers it: a later
    // refresh that shows a different partition count triggers a rebalance.
    const LeaderView view{generation_, last_completed_generation_, ctx_.kernel.now(), member_id_};
    req.assignments = protocol().assign(group_assignor(), *known_metadata_, joined_members_, leader_state_.get(), view);
    assigned_metadata_ = std::make_shared<const Metadata>(subscribed_metadata(*known_metadata_, joined_members_));
  }
  joined_members_.clear();
  call("SyncGroup", std::move(req), &ClassicEndpoint::handle_sync,
       [this, seq](SyncGroupResponse r) { on_sync_response(seq, std::move(r)); });
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
      reset_generation(r.error);
      send_join();
      return;
    case Error::FencedInstanceId:
      fenced_instance();
      return;
    default:
      retry_join_later();
      return;
  }
  AssignmentOutcome outcome = protocol().on_assignment(owned_, r.assignment);
  last_assignment_ = r.assignment.partitions;
  last_completed_generation_ = generation_;
  // A Streams leader asks for an immediate follow-up (next rebalance time 0)
  // when a task must first be revoked from its owner.
  const bool follow_up = r.assignment.streams && r.assignment.scheduled_rebalance == Duration{0};
  if (follow_up) {
    scheduled_rebalance_timer_.cancel();
  } else if (r.assignment.scheduled_rebalance) {
    // ScheduledRebalanceTimeout: rejoin when the leader's delay expires.
    emit("scheduled-rebalance", {{"in_us", r.assignment.scheduled_rebalance->count()}});
    scheduled_rebalance_timer_.arm_in(*r.assignment.scheduled_rebalance,
                                      [this] { request_rejoin("scheduled rebalance delay expired"); });
  } else {
    scheduled_rebalance_timer_.cancel();  // every assignment carries the current delay
  }
  phase_ = Phase::Stable;
  arm_heartbeat();  // heartbeats are phase-locked to the SyncGroup response
  std::optional<std::string> rejoin;
  if (outcome.rejoin || follow_up) rejoin = "assignment asks for a follow-up rebalance";
  // A leader that skipped the assignment (KIP-814) still watches metadata:
  // a change it saw since the group's assignment was made needs a rebalance.
  else if (auto topic = skip_assignment_ && member_id_ == leader_ ? changed_topic() : std::nullopt)
    rejoin = fmt::format("partitions of {} changed", *topic);
  auto assign = [this, outcome, rejoin, standby = std::move(r.assignment.standby)]() mutable {
    // The subscription changed while the JoinGroup was out (Kafka's
    // rejoinNeededOrPending: "subscription changed since last join").
    if (!rejoin && !same_topics(config_.topics, joined_topics_)) rejoin = "subscription changed since last join";
    for (const auto& tp : outcome.add) owned_.push_back(tp);
    std::sort(owned_.begin(), owned_.end());
    std::vector<TraceField> fields{{"generation", generation_}, {"resources", to_names(outcome.add)}, {"bytes", round_trip_bytes_}};
    if (config_.tasks) {
      config_.tasks->standbys(standby);
      if (!standby.empty()) fields.push_back({"standbys", to_names(standby)});
    }
    emit("assigned", std::move(fields));
    if (!outcome.add.empty()) initialise(outcome.add);
    if (rejoin) {
      request_rejoin(*rejoin);
    } else if (!in_batch()) {
      next_batch(config_.max_poll_interval);  // poll() returns: processing goes on
    }
  };
  revoke(outcome.revoke, std::move(assign));
}

// ------------------------------------------------------------------ Heartbeat

void ClassicMember::arm_heartbeat() {
  heartbeat_timer_.arm_in(config_.heartbeat_interval, [this] { send_heartbeat(); });
}

void ClassicMember::send_heartbeat() {
  if (paused() || (phase_ != Phase::Syncing && phase_ != Phase::Stable)) return;
  arm_heartbeat();
  if (coordinator_unknown()) return;
  const int generation = generation_;
  call("Heartbeat", HeartbeatRequest{member_id_, config_.instance_id, generation}, &ClassicEndpoint::handle_heartbeat,
       [this, generation](HeartbeatResponse r) { on_heartbeat_response(generation, r); });
}

void ClassicMember::on_heartbeat_response(int generation, HeartbeatResponse r) {
  if (r.error == Error::None) emit_routine("heartbeat", {{"error", std::string(error_name(r.error))}});
  else emit("heartbeat", {{"error", std::string(error_name(r.error))}});
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
      reset_generation(r.error);
      if (in_batch()) {  // the poll loop rejoins when the batch ends
        phase_ = Phase::Idle;
        rejoin_after_batch_ = error_name(r.error);
        return;
      }
      send_join();
      return;
    case Error::FencedInstanceId:
      fenced_instance();
      return;
    default:
      return;
  }
}

// onPartitionsAssigned: the new resources are ready after their assign
// cost. What arrives while an initialisation is in progress restarts it: the
// whole batch is ready after the newest part's cost (a simplification).
void ClassicMember::initialise(const std::vector<TopicPartition>& added) {
  initialising_.insert(initialising_.end(), added.begin(), added.end());
  init_timer_.cancel();
  const Duration until_ready = config_.tasks ? config_.tasks->activate(added) : config_.assign_time(added);
  after(init_timer_, until_ready, [this] {
    if (!initialising_.empty()) emit("ready", {{"resources", to_names(initialising_)}});
    initialising_.clear();
  });
}

// The coordinator no longer knows this member (UNKNOWN_MEMBER_ID) or its
// generation: whatever it owns may already be someone else's
// (onPartitionsLost), and it joins again without a generation.
void ClassicMember::reset_generation(Error error) {
  lose_partitions(error_name(error));
  if (error == Error::UnknownMemberId) member_id_.clear();
  generation_ = -1;
}

// FENCED_INSTANCE_ID is fatal for a static member: another process holds
// its instance id; poll() throws and the application's consumer is done.
void ClassicMember::fenced_instance() {
  emit("fenced", {{"reason", std::string("FENCED_INSTANCE_ID")}});
  crash();
}

void ClassicMember::lose_partitions(const std::string& reason) {
  init_timer_.cancel();
  initialising_.clear();
  // A revocation in progress is moot: the partitions are gone either way
  // (and so is the poll deadline its callback was held to).
  if (revoking_ && !in_batch()) cancel_poll_deadline();
  revoke_timer_.cancel();
  revoking_ = false;
  if (owned_.empty()) return;
  emit("lost", {{"resources", to_names(owned_)}, {"reason", reason}});
  if (config_.tasks) config_.tasks->released(owned_);
  owned_.clear();
}

}  // namespace rsim::protocols::classic
