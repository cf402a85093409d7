#include "protocols/consumer/coordinator.hpp"

#include "protocols/assignors/java_order.hpp"
#include "protocols/assignors/server.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rsim::protocols::consumer {

const char* error_name(Error e) {
  switch (e) {
    case Error::None:
      return "NONE";
    case Error::FencedMemberEpoch:
      return "FENCED_MEMBER_EPOCH";
    case Error::UnknownMemberId:
      return "UNKNOWN_MEMBER_ID";
    case Error::UnreleasedInstanceId:
      return "UNRELEASED_INSTANCE_ID";
    case Error::GroupIdNotFound:
      return "GROUP_ID_NOT_FOUND";
  }
  return "?";
}

const char* state_name(MemberState s) {
  switch (s) {
    case MemberState::Stable:
      return "STABLE";
    case MemberState::UnrevokedPartitions:
      return "UNREVOKED_PARTITIONS";
    case MemberState::UnreleasedPartitions:
      return "UNRELEASED_PARTITIONS";
  }
  return "?";
}

namespace {
std::vector<TopicPartition> as_list(const std::set<TopicPartition>& s) { return {s.begin(), s.end()}; }
bool contains(const std::vector<TopicPartition>& v, const TopicPartition& tp) {
  return std::find(v.begin(), v.end(), tp) != v.end();
}
// CurrentAssignmentBuilder.ownsRevokedPartitions: a member that did not send
// its owned partitions is taken to still own every one of `revoked`.
bool owns_any(const std::optional<std::vector<TopicPartition>>& owned, const std::set<TopicPartition>& revoked) {
  if (!owned) return true;
  return std::any_of(revoked.begin(), revoked.end(), [&](const TopicPartition& tp) { return contains(*owned, tp); });
}
}  // namespace

ConsumerCoordinator::ConsumerCoordinator(Kernel& kernel, Trace& trace, const Metadata& cluster,
                                         const Assignor& assignor, CoordinatorConfig config)
    : kernel_(kernel), trace_(trace), cluster_(cluster), assignor_(assignor), config_(config) {}

void ConsumerCoordinator::emit(std::string kind, std::vector<TraceField> fields) {
  trace_.emit(kernel_.now(), "coordinator", std::move(kind), std::move(fields));
}

void ConsumerCoordinator::append(Record r) { log_.push_back(std::move(r)); }

void ConsumerCoordinator::bump_group_epoch(const std::string& why) {
  ++state_.group_epoch;
  state_.subscribed_metadata = subscribed_metadata();
  append(GroupEpochRecord{state_.group_epoch, state_.subscribed_metadata});
  emit("group-epoch", {{"epoch", state_.group_epoch}, {"reason", why}});
}

void ConsumerCoordinator::write_member(const MemberView& m) {
  append(MemberMetadataRecord{m.member_id, m.client_id, m.instance_id, m.topics, m.rebalance_timeout, m.classic,
                              m.session_timeout});
}

void ConsumerCoordinator::write_current(const MemberView& m) {
  append(CurrentAssignmentRecord{m.member_id, m.epoch, m.previous_epoch, m.state, as_list(m.assigned), as_list(m.revoking)});
}

Metadata ConsumerCoordinator::subscribed_metadata() const {
  Metadata out;
  for (const auto& [id, m] : state_.members)
    for (const auto& t : m.topics)
      if (auto it = cluster_.find(t); it != cluster_.end()) out[t] = it->second;
  return out;
}

// Every heartbeat checks the subscribed topics' partition counts; the set of
// subscribed topics only changes with a new group epoch, which records it.
bool ConsumerCoordinator::metadata_changed() const {
  for (const auto& [topic, count] : state_.subscribed_metadata)
    if (auto it = cluster_.find(topic); it == cluster_.end() || it->second != count) return true;
  return false;
}

std::string ConsumerCoordinator::member_id_for(const std::string& requested, const std::string& client_id) {
  return requested.empty() ? fmt::format("{}-{}", client_id, next_member_number_++) : requested;
}

MemberView* ConsumerCoordinator::static_member(const std::string& instance_id, const std::string& except) {
  for (auto& [id, other] : state_.members)
    if (other.instance_id == instance_id && id != except) return &other;
  return nullptr;
}

// A static member's new process takes the old one's place: its assignment
// and target, under a new member id; the old member is gone.
MemberView& ConsumerCoordinator::replace_static(MemberView& old, const std::string& new_id) {
  MemberView replacement = old;
  const std::string old_id = old.member_id;
  replacement.member_id = new_id;
  state_.members.erase(old_id);
  timers_.erase(old_id);
  append(MemberTombstone{old_id});
  MemberView& m = state_.members[new_id] = replacement;
  write_member(m);
  // The target moves to the new member id, in the log too, or a coordinator
  // that replays it loses that part of the target (Kafka writes the new
  // member's target assignment record with the replacement).
  if (auto t = state_.target.find(old_id); t != state_.target.end()) {
    state_.target[new_id] = t->second;
    state_.target.erase(old_id);
    append(TargetAssignmentRecord{new_id, as_list(state_.target[new_id])});
  }
  emit("member-replaced", {{"member", m.client_id}, {"member-id", m.member_id}, {"old-member-id", old_id}});
  return m;
}

bool ConsumerCoordinator::owned_by_other(const TopicPartition& tp, const std::string& member_id) const {
  for (const auto& [id, m] : state_.members)
    if (id != member_id && (m.assigned.count(tp) != 0 || m.revoking.count(tp) != 0)) return true;
  return false;
}

MemberView& ConsumerCoordinator::add_member(const HeartbeatRequest& req, std::string member_id, bool classic,
                                            Duration session_timeout) {
  MemberView m;
  m.member_id = std::move(member_id);
  m.classic = classic;
  m.session_timeout = session_timeout;
  m.client_id = req.client_id;
  m.instance_id = req.instance_id;
  m.topics = req.topics;
  m.rebalance_timeout = req.rebalance_timeout;
  auto& slot = state_.members[m.member_id];
  slot = m;
  write_member(slot);
  emit("member-added", {{"member", slot.client_id}, {"member-id", slot.member_id}});
  return slot;
}

void ConsumerCoordinator::handle_heartbeat(HeartbeatRequest req, Reply<HeartbeatResponse> reply) {
  HeartbeatResponse resp;
  resp.heartbeat_interval = config_.heartbeat_interval;
  auto fail = [&](Error e) {
    resp.error = e;
    resp.member_id = req.member_id;
    reply(std::move(resp));
  };
  if (req.member_epoch == kLeaveEpoch || req.member_epoch == kStaticLeaveEpoch) {
    auto it = state_.members.find(req.member_id);
    if (it == state_.members.end()) return fail(Error::UnknownMemberId);
    if (req.member_epoch == kStaticLeaveEpoch && it->second.instance_id) {
      // A static member's shutdown keeps its assignment, and the epoch of
      // that assignment, for its return.
      it->second.previous_epoch = it->second.epoch;
      it->second.epoch = kStaticLeaveEpoch;
      it->second.revoking.clear();
      write_current(it->second);
      emit("member-left-static", {{"member", it->second.client_id}, {"member-id", it->second.member_id}});
    } else {
      fence(req.member_id, "left the group");
      update_group_state();
    }
    resp.member_id = req.member_id;
    resp.member_epoch = req.member_epoch;
    reply(std::move(resp));
    return;
  }
  MemberView* m = nullptr;
  if (req.member_epoch == kJoinEpoch) {
    // A static member back with its instance id takes the old member's place
    // and assignment, without a new group epoch.
    if (req.instance_id) {
      if (MemberView* other = static_member(*req.instance_id, req.member_id)) {
        // Both speak the consumer protocol: the old one must have left (-2).
        if (other->epoch != kStaticLeaveEpoch) return fail(Error::UnreleasedInstanceId);
        m = &replace_static(*other, member_id_for(req.member_id, req.client_id));
        m->epoch = m->previous_epoch;  // where it left off; reconciliation moves it on
        write_current(*m);
      }
    }
    if (m == nullptr) {
      if (!req.member_id.empty() && state_.members.count(req.member_id) != 0) fence(req.member_id, "rejoined with epoch 0");
      const std::string id = member_id_for(req.member_id, req.client_id);
      m = &add_member(req, id);
      bump_group_epoch("member joined");
    }
  } else {
    auto it = state_.members.find(req.member_id);
    if (it == state_.members.end()) return fail(Error::UnknownMemberId);
    m = &it->second;
    if (req.member_epoch != m->epoch) {
      // A lost response: the member may be one epoch behind and own no more
      // than it was given (isSubset: a request without the owned partitions
      // is not).
      const bool lagging = req.member_epoch == m->previous_epoch && req.owned &&
                           std::all_of(req.owned->begin(), req.owned->end(), [&](const TopicPartition& tp) {
                             return m->assigned.count(tp) != 0 || m->revoking.count(tp) != 0;
                           });
      if (!lagging) return fail(Error::FencedMemberEpoch);
    }
    if (req.topics != m->topics) {
      m->topics = req.topics;
      write_member(*m);
      bump_group_epoch("subscription changed");
    }
  }
  const std::string member_id = m->member_id;
  if (metadata_changed()) bump_group_epoch("topic metadata changed");
  compute_target();
  MemberView& member = state_.members.at(member_id);
  reconcile(member, req.owned);
  arm_session(member_id);
  resp.member_id = member.member_id;
  resp.member_epoch = member.epoch;
  resp.assignment = as_list(member.assigned);
  update_group_state();
  reply(std::move(resp));
}

void ConsumerCoordinator::fence(const std::string& member_id, const std::string& reason) {
  auto it = state_.members.find(member_id);
  if (it == state_.members.end()) return;
  emit("member-removed", {{"member", it->second.client_id}, {"member-id", member_id}, {"reason", reason}});
  state_.members.erase(it);
  state_.target.erase(member_id);
  timers_.erase(member_id);
  append(MemberTombstone{member_id});
  bump_group_epoch(fmt::format("member {} removed: {}", member_id, reason));
  notice_classic_only();
}

void ConsumerCoordinator::notice_classic_only() {
  const bool classic_only =
      !state_.members.empty() &&
      std::all_of(state_.members.begin(), state_.members.end(), [](const auto& e) { return e.second.classic; });
  if (classic_only && classic_only_) classic_only_();
}

// The target assignment is recomputed when the group epoch has moved past it.
void ConsumerCoordinator::compute_target() {
  if (state_.group_epoch <= state_.target_epoch) return;
  GroupSnapshot g;
  std::vector<std::string> ids;
  std::vector<std::int32_t> hashes;
  for (const auto& [id, m] : state_.members) {
    ids.push_back(id);
    hashes.push_back(java::string_hash(id));
  }
  // Kafka's group spec iterates members as a HashMap keyed by member id.
  for (auto i : java::iteration_order(hashes, java::capacity_for(ids.size()))) {
    const MemberView& m = state_.members.at(ids[i]);
    MemberSubscription s;
    s.member_id = m.member_id;
    s.instance_id = m.instance_id;
    for (const auto& t : m.topics)
      if (cluster_.count(t) != 0) s.topics.push_back(t);
    if (auto t = state_.target.find(m.member_id); t != state_.target.end()) s.owned = as_list(t->second);
    g.members.push_back(std::move(s));
  }
  for (const auto& s : g.members)
    for (const auto& t : s.topics) g.topics[t] = cluster_.at(t);
  GroupAssignment a;
  try {
    a = assignor_.assign(g);
  } catch (const AssignorError& e) {
    emit("assignment-failed", {{"reason", std::string(e.what())}});
    return;
  }
  std::vector<std::string> members;
  for (const auto& s : g.members) {
    std::set<TopicPartition> target;
    if (auto it = a.find(s.member_id); it != a.end()) target.insert(it->second.begin(), it->second.end());
    auto& slot = state_.target[s.member_id];
    if (slot != target) {
      slot = target;
      append(TargetAssignmentRecord{s.member_id, as_list(target)});
    }
    members.push_back(state_.members.at(s.member_id).client_id);
  }
  state_.target_epoch = state_.group_epoch;
  append(TargetEpochRecord{state_.target_epoch});
  std::sort(members.begin(), members.end());
  emit("generation", {{"generation", state_.target_epoch}, {"members", members}});
}

// CurrentAssignmentBuilder: how far the member may move towards its target
// now.
void ConsumerCoordinator::reconcile(MemberView& m, const std::optional<std::vector<TopicPartition>>& owned) {
  if (m.epoch == kStaticLeaveEpoch) return;
  switch (m.state) {
    case MemberState::UnrevokedPartitions: {
      if (owns_any(owned, m.revoking)) return;
      m.revoking.clear();  // released: free for their new owners
      if (auto t = timers_.find(m.member_id); t != timers_.end() && t->second.rebalance) t->second.rebalance->cancel();
      next_assignment(m, owned);
      return;
    }
    case MemberState::Stable:
      if (m.epoch == state_.target_epoch) return;
      next_assignment(m, owned);
      return;
    case MemberState::UnreleasedPartitions:
      next_assignment(m, owned);
      return;
  }
}

void ConsumerCoordinator::next_assignment(MemberView& m, const std::optional<std::vector<TopicPartition>>& owned) {
  const auto& target = state_.target[m.member_id];
  std::set<TopicPartition> keep, revoke, add;
  bool withheld = false;
  for (const auto& tp : m.assigned) (target.count(tp) != 0 ? keep : revoke).insert(tp);
  for (const auto& tp : target) {
    if (keep.count(tp) != 0) continue;
    if (owned_by_other(tp, m.member_id)) withheld = true;  // UNRELEASED: its owner has not let go yet
    else add.insert(tp);
  }
  const MemberView before = m;
  if (!revoke.empty() && owns_any(owned, revoke)) {
    m.state = MemberState::UnrevokedPartitions;
    m.assigned = keep;
    m.revoking = revoke;
    arm_rebalance(m.member_id, m.epoch, m.rebalance_timeout);
  } else {
    m.previous_epoch = m.epoch;
    m.epoch = state_.target_epoch;
    m.assigned = keep;
    m.assigned.insert(add.begin(), add.end());
    m.revoking.clear();
    m.state = withheld ? MemberState::UnreleasedPartitions : MemberState::Stable;
  }
  if (!(m == before)) write_current(m);
}

void ConsumerCoordinator::arm_session(const std::string& member_id) {
  auto& t = timers_[member_id];
  if (!t.session) t.session = std::make_unique<Timer>(kernel_);
  const auto it = state_.members.find(member_id);
  const Duration timeout = it != state_.members.end() && it->second.classic && it->second.session_timeout > Duration{0}
                               ? it->second.session_timeout
                               : config_.session_timeout;
  t.session->arm_in(timeout, [this, member_id] {
    fence(member_id, "session timeout expired");
    update_group_state();
  });
}

// A member that has not revoked what it must within its rebalance timeout
// is fenced.
void ConsumerCoordinator::arm_rebalance(const std::string& member_id, int epoch, Duration timeout) {
  auto& t = timers_[member_id];
  if (!t.rebalance) t.rebalance = std::make_unique<Timer>(kernel_);
  if (t.rebalance->armed()) return;
  t.rebalance->arm_in(timeout, [this, member_id, epoch] {
    auto it = state_.members.find(member_id);
    if (it == state_.members.end() || it->second.state != MemberState::UnrevokedPartitions || it->second.epoch != epoch)
      return;
    fence(member_id, "rebalance timeout expired");
    update_group_state();
  });
}

// Empty; Assigning (the group epoch moved past the target: a new target is
// computed at the next heartbeat of any member, as Kafka does it only inside
// one, not in the timer or leave that bumped the epoch); Reconciling (some
// member not yet at the target epoch); or Stable. Reaching Stable at a new
// target epoch completes a rebalance.
bool ConsumerCoordinator::converged() const {
  return std::all_of(state_.members.begin(), state_.members.end(), [&](const auto& e) {
    const MemberView& m = e.second;
    return m.epoch == kStaticLeaveEpoch || (m.epoch == state_.target_epoch && m.state == MemberState::Stable);
  });
}

void ConsumerCoordinator::update_group_state() {
  std::string next = "Empty";
  if (!state_.members.empty())
    next = state_.group_epoch > state_.target_epoch ? "Assigning" : converged() ? "Stable" : "Reconciling";
  if (next != group_state_) {
    emit("state", {{"from", group_state_}, {"to", next}});
    group_state_ = next;
  }
  if (next == "Stable" && last_stable_epoch_ != state_.target_epoch) {
    last_stable_epoch_ = state_.target_epoch;
    emit("stable", {{"generation", state_.target_epoch}});
  }
}

void ConsumerCoordinator::adopt_classic_group(int generation, const std::vector<MemberView>& members) {
  emit("converted", {{"from", std::string("classic")}, {"epoch", generation}});
  // The classic group was Stable at this generation: nothing new to announce.
  group_state_ = "Stable";
  last_stable_epoch_ = generation;
  state_.group_epoch = generation - 1;
  seed_stable(members, false);
}

// A classic static member whose instance id belongs to another member takes
// its place at once (classicGroupJoinToConsumerGroup: no UNRELEASED check
// when either side speaks the classic protocol).
void ConsumerCoordinator::handle_join(classic::JoinGroupRequest req, classic::Reply<classic::JoinGroupResponse> reply) {
  std::string id = req.member_id;
  const bool known = !id.empty() && state_.members.count(id) != 0;
  const bool pending = pending_classic_.erase(id) != 0;
  if (!known && !pending && !req.instance_id) {
    // A dynamic member gets its id first (KIP-394); an id this group does
    // not know is UNKNOWN_MEMBER_ID (the member starts over).
    if (!id.empty()) return reply(classic::JoinGroupResponse::failed(classic::Error::UnknownMemberId));
    classic::JoinGroupResponse r = classic::JoinGroupResponse::failed(classic::Error::MemberIdRequired);
    r.member_id = member_id_for("", req.client_id);
    pending_classic_.insert(r.member_id);
    return reply(std::move(r));
  }
  MemberView* other = req.instance_id ? static_member(*req.instance_id, id) : nullptr;
  if (!known && req.instance_id && !id.empty()) {
    // A static member rejoining with the id it had (getOrMaybeSubscribe-
    // StaticConsumerGroupMember without createIfNotExists): an instance id
    // the group no longer has is UNKNOWN_MEMBER_ID (throwIfStaticMemberIsUnknown),
    // one now held by another member id is FENCED_INSTANCE_ID
    // (throwIfInstanceIdIsFenced). Only a join without a member id creates or
    // replaces a static member.
    return reply(classic::JoinGroupResponse::failed(other != nullptr ? classic::Error::FencedInstanceId
                                                                     : classic::Error::UnknownMemberId));
  }
  if (!known && other != nullptr) {
    MemberView& m = replace_static(*other, member_id_for(id, req.client_id));
    m.classic = true;
    m.session_timeout = req.session_timeout;
    m.rebalance_timeout = req.rebalance_timeout;
    const bool resubscribed = m.topics != req.subscription.topics;
    m.topics = req.subscription.topics;
    write_member(m);
    write_current(m);
    id = m.member_id;
    if (resubscribed) bump_group_epoch("subscription changed");
    notice_classic_only();  // it may have replaced the last consumer-protocol member
  } else if (!known) {
    id = member_id_for(id, req.client_id);
    HeartbeatRequest as_consumer;
    as_consumer.client_id = req.client_id;
    as_consumer.instance_id = req.instance_id;
    as_consumer.topics = req.subscription.topics;
    as_consumer.rebalance_timeout = req.rebalance_timeout;
    add_member(as_consumer, id, true, req.session_timeout);
    bump_group_epoch("member joined");
  } else if (MemberView& m = state_.members.at(id); req.subscription.topics != m.topics) {
    m.topics = req.subscription.topics;
    write_member(m);
    bump_group_epoch("subscription changed");
  }
  if (metadata_changed()) bump_group_epoch("topic metadata changed");
  compute_target();
  MemberView& member = state_.members.at(id);
  reconcile(member, req.subscription.owned);
  arm_session(id);
  update_group_state();
  classic::JoinGroupResponse r;
  r.generation = member.epoch;
  r.member_id = id;
  reply(std::move(r));  // no leader: the coordinator assigns
}

void ConsumerCoordinator::handle_sync(classic::SyncGroupRequest req, classic::Reply<classic::SyncGroupResponse> reply) {
  auto it = state_.members.find(req.member_id);
  if (it == state_.members.end()) return reply(classic::SyncGroupResponse::failed(classic::Error::UnknownMemberId));
  if (req.generation != it->second.epoch) return reply(classic::SyncGroupResponse::failed(classic::Error::IllegalGeneration));
  classic::SyncGroupResponse r;
  r.assignment.partitions = as_list(it->second.assigned);
  reply(std::move(r));
}

void ConsumerCoordinator::handle_heartbeat(classic::HeartbeatRequest req, classic::Reply<classic::HeartbeatResponse> reply) {
  auto it = state_.members.find(req.member_id);
  classic::HeartbeatResponse r;
  if (it == state_.members.end()) {
    r.error = classic::Error::UnknownMemberId;
  } else {
    arm_session(req.member_id);
    const MemberView& m = it->second;
    if (req.generation != m.epoch) r.error = classic::Error::IllegalGeneration;
    // classicGroupHeartbeatToConsumerGroup: rejoin when the group epoch moved
    // past the member's (its JoinGroup then computes the target) or it has
    // a step to take.
    else if (m.epoch < state_.group_epoch || m.state != MemberState::Stable) r.error = classic::Error::RebalanceInProgress;
  }
  reply(r);
}

void ConsumerCoordinator::handle_leave(classic::LeaveGroupRequest req) {
  if (state_.members.count(req.member_id) == 0) return;
  fence(req.member_id, "left the group");
  update_group_state();
}

void ConsumerCoordinator::seed_stable(const std::vector<MemberView>& members, bool announce) {
  ++state_.group_epoch;
  state_.target_epoch = state_.group_epoch;
  for (MemberView m : members) {
    m.epoch = state_.target_epoch;
    m.previous_epoch = 0;
    m.state = MemberState::Stable;
    state_.target[m.member_id] = m.assigned;
    state_.members[m.member_id] = m;
    write_member(m);
    append(TargetAssignmentRecord{m.member_id, as_list(m.assigned)});
    write_current(m);
    arm_session(m.member_id);
  }
  state_.subscribed_metadata = subscribed_metadata();
  append(GroupEpochRecord{state_.group_epoch, state_.subscribed_metadata});
  append(TargetEpochRecord{state_.target_epoch});
  std::vector<std::string> names;
  for (const auto& [id, m] : state_.members) names.push_back(m.client_id);
  std::sort(names.begin(), names.end());
  if (announce) emit("generation", {{"generation", state_.target_epoch}, {"members", names}});
  update_group_state();
}

std::string state_difference(const GroupState& live, const GroupState& replayed) {
  if (live.group_epoch != replayed.group_epoch) return fmt::format("group epoch {} vs {}", live.group_epoch, replayed.group_epoch);
  if (live.target_epoch != replayed.target_epoch) return fmt::format("target epoch {} vs {}", live.target_epoch, replayed.target_epoch);
  if (live.subscribed_metadata != replayed.subscribed_metadata) return "subscribed topic metadata";
  for (const auto& [id, m] : live.members) {
    auto r = replayed.members.find(id);
    if (r == replayed.members.end()) return fmt::format("member {} missing", id);
    if (!(r->second == m))
      return fmt::format("member {}: epoch {}/{} vs {}/{}, state {} vs {}, assigned {} vs {}, revoking {} vs {}", id, m.epoch,
                         m.previous_epoch, r->second.epoch, r->second.previous_epoch, static_cast<int>(m.state),
                         static_cast<int>(r->second.state), m.assigned.size(), r->second.assigned.size(), m.revoking.size(),
                         r->second.revoking.size());
  }
  for (const auto& [id, m] : replayed.members)
    if (live.members.count(id) == 0) return fmt::format("member {} only in the log", id);
  // No target and an empty one are the same (Kafka writes no record for an
  // empty target of a new member: nothing changed).
  auto target_of = [](const GroupState& g, const std::string& id) {
    auto it = g.target.find(id);
    return it == g.target.end() ? std::set<TopicPartition>{} : it->second;
  };
  for (const auto* g : {&live, &replayed})
    for (const auto& [id, t] : g->target)
      if (target_of(live, id) != target_of(replayed, id)) return fmt::format("target of {}", id);
  return {};
}

GroupState replay_records(const std::vector<Record>& log) {
  GroupState s;
  for (const Record& r : log) {
    std::visit(
        [&](const auto& x) {
          using R = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<R, GroupEpochRecord>) {
            s.group_epoch = x.epoch;
            s.subscribed_metadata = x.subscribed_metadata;
          } else if constexpr (std::is_same_v<R, MemberMetadataRecord>) {
            MemberView& m = s.members[x.member_id];
            m.member_id = x.member_id;
            m.client_id = x.client_id;
            m.instance_id = x.instance_id;
            m.topics = x.topics;
            m.rebalance_timeout = x.rebalance_timeout;
            m.classic = x.classic;
            m.session_timeout = x.session_timeout;
          } else if constexpr (std::is_same_v<R, TargetAssignmentRecord>) {
            s.target[x.member_id] = std::set<TopicPartition>(x.partitions.begin(), x.partitions.end());
          } else if constexpr (std::is_same_v<R, TargetEpochRecord>) {
            s.target_epoch = x.epoch;
          } else if constexpr (std::is_same_v<R, CurrentAssignmentRecord>) {
            MemberView& m = s.members[x.member_id];
            m.epoch = x.epoch;
            m.previous_epoch = x.previous_epoch;
            m.state = x.state;
            m.assigned = std::set<TopicPartition>(x.assigned.begin(), x.assigned.end());
            m.revoking = std::set<TopicPartition>(x.revoking.begin(), x.revoking.end());
          } else {
            s.members.erase(x.member_id);
            s.target.erase(x.member_id);
          }
        },
        r);
  }
  return s;
}

void ConsumerCoordinator::replay(const std::vector<Record>& log) {
  const GroupState s = replay_records(log);
  state_ = s;
  log_ = log;
  for (const auto& [id, m] : state_.members) {
    arm_session(id);
    if (m.state == MemberState::UnrevokedPartitions) arm_rebalance(id, m.epoch, m.rebalance_timeout);
  }
  // The state the group was in: a group that had converged is Stable at its
  // target epoch (no new rebalance to count).
  group_state_ = state_.members.empty()                        ? "Empty"
                 : state_.group_epoch > state_.target_epoch ? "Assigning"
                 : converged()                               ? "Stable"
                                                             : "Reconciling";
  last_stable_epoch_ = group_state_ == "Stable" ? state_.target_epoch : -1;
  emit("loaded", {{"generation", state_.target_epoch}, {"state", group_state_},
                  {"members", static_cast<std::int64_t>(state_.members.size())}});
  update_group_state();
}

}  // namespace rsim::protocols::consumer
