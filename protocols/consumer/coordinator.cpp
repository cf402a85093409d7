#include "protocols/consumer/coordinator.hpp"

#include "protocols/assignors/java_order.hpp"
#include "protocols/assignors/server.hpp"

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

ConsumerCoordinator::ConsumerCoordinator(Kernel& kernel, Trace& trace, const Metadata& cluster,
                                         const Assignor& assignor, CoordinatorConfig config)
    : EpochGroup(kernel, trace, config.session_timeout), cluster_(cluster), assignor_(assignor), config_(config) {}

Metadata ConsumerCoordinator::group_metadata() const {
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

Duration ConsumerCoordinator::session_timeout_of(const MemberView& m) const {
  return m.classic && m.session_timeout > Duration{0} ? m.session_timeout : config_.session_timeout;
}

ConsumerCoordinator::MemberView& ConsumerCoordinator::new_member(const HeartbeatRequest& req, std::string member_id,
                                                                 bool classic, Duration session_timeout) {
  MemberView m;
  m.member_id = std::move(member_id);
  m.classic = classic;
  m.session_timeout = session_timeout;
  m.client_id = req.client_id;
  m.instance_id = req.instance_id;
  m.topics = req.topics;
  m.rebalance_timeout = req.rebalance_timeout;
  return add_member(std::move(m));
}

void ConsumerCoordinator::resubscribe(MemberView& m, const std::vector<std::string>& topics) {
  if (topics == m.topics) return;
  m.topics = topics;
  write_member(m);
  bump_group_epoch("subscription changed");
}

void ConsumerCoordinator::notice_classic_only() {
  const bool classic_only =
      !state_.members.empty() &&
      std::all_of(state_.members.begin(), state_.members.end(), [](const auto& e) { return e.second.classic; });
  if (classic_only && classic_only_) classic_only_();
}

void ConsumerCoordinator::handle_heartbeat(HeartbeatRequest req, Reply<HeartbeatResponse> reply) {
  HeartbeatResponse resp;
  resp.heartbeat_interval = config_.heartbeat_interval;
  resp.member_id = req.member_id;
  const bool leaving = req.member_epoch == kLeaveEpoch || req.member_epoch == kStaticLeaveEpoch;
  const auto [m, error] = leaving ? leave_group(req) : member_for(req);
  if (error != Error::None || leaving) {
    resp.error = error;
    if (error == Error::None) resp.member_epoch = req.member_epoch;
    return reply(std::move(resp));
  }
  const std::string member_id = m->member_id;
  if (metadata_changed()) bump_group_epoch("topic metadata changed");
  const MemberView& member = advance(member_id, req.owned);
  resp.member_id = member.member_id;
  resp.member_epoch = member.epoch;
  resp.assignment = as_list(member.assigned);
  reply(std::move(resp));
}

ConsumerCoordinator::Found ConsumerCoordinator::leave_group(const HeartbeatRequest& req) {
  if (state_.members.count(req.member_id) == 0) return {nullptr, Error::UnknownMemberId};
  leave(req.member_id, req.member_epoch == kStaticLeaveEpoch);
  return {nullptr, Error::None};
}

// The member a heartbeat is from: a new one (epoch 0), a static member back
// with its instance id, or a known one at a valid epoch (whose subscription
// may have changed).
ConsumerCoordinator::Found ConsumerCoordinator::member_for(const HeartbeatRequest& req) {
  if (req.member_epoch == kJoinEpoch) return join(req);
  auto it = state_.members.find(req.member_id);
  if (it == state_.members.end()) return {nullptr, Error::UnknownMemberId};
  MemberView& m = it->second;
  if (!epoch_valid(m, req.member_epoch, req.owned)) return {nullptr, Error::FencedMemberEpoch};
  resubscribe(m, req.topics);
  return {&m, Error::None};
}

// A static member back with its instance id takes the old member's place
// and assignment, without a new group epoch; both speak the consumer
// protocol, so the old one must have left (-2).
ConsumerCoordinator::Found ConsumerCoordinator::join(const HeartbeatRequest& req) {
  if (req.instance_id) {
    if (MemberView* other = static_member(*req.instance_id, req.member_id)) {
      if (other->epoch != kStaticLeaveEpoch) return {nullptr, Error::UnreleasedInstanceId};
      return {&return_static(*other, member_id_for(req.member_id, req.client_id)), Error::None};
    }
  }
  if (!req.member_id.empty() && state_.members.count(req.member_id) != 0) fence(req.member_id, "rejoined with epoch 0");
  MemberView& m = new_member(req, member_id_for(req.member_id, req.client_id));
  bump_group_epoch("member joined");
  return {&m, Error::None};
}

// The server assignor, on the group spec Kafka builds: members iterated as a
// HashMap keyed by member id, each owning its current target.
std::optional<ConsumerCoordinator::Targets> ConsumerCoordinator::assign() {
  GroupSnapshot g;
  std::vector<std::string> ids;
  std::vector<std::int32_t> hashes;
  for (const auto& [id, m] : state_.members) {
    ids.push_back(id);
    hashes.push_back(java::string_hash(id));
  }
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
    return std::nullopt;
  }
  Targets targets;
  for (const auto& s : g.members) {
    Partitions::Assignment target;
    if (auto it = a.find(s.member_id); it != a.end()) target.insert(it->second.begin(), it->second.end());
    targets.emplace_back(s.member_id, std::move(target));
  }
  return targets;
}

void ConsumerCoordinator::adopt_classic_group(int generation, const std::vector<MemberView>& members) {
  emit("converted", {{"from", std::string("classic")}, {"epoch", generation}});
  continue_stable(generation);
  seed_stable(members, false);
}

// Classic members of a consumer group (online migration).
// A JoinGroup is answered at once with the member's epoch as its generation;
// a classic static member whose instance id belongs to another member takes
// its place at once (classicGroupJoinToConsumerGroup: no UNRELEASED check
// when either side speaks the classic protocol).
void ConsumerCoordinator::handle_join(classic::JoinGroupRequest req, classic::Reply<classic::JoinGroupResponse> reply) {
  std::string id = req.member_id;
  const bool known = !id.empty() && state_.members.count(id) != 0;
  const bool pending = pending_classic_.erase(id) != 0;
  MemberView* other = req.instance_id ? static_member(*req.instance_id, id) : nullptr;
  if (auto refused = refuse_join(req, known, pending, other != nullptr)) return reply(std::move(*refused));
  if (!known && other != nullptr) id = take_over_static(*other, req);
  else if (!known) id = join_classic(req);
  else resubscribe(state_.members.at(id), req.subscription.topics);
  if (metadata_changed()) bump_group_epoch("topic metadata changed");
  const MemberView& member = advance(id, req.subscription.owned);
  classic::JoinGroupResponse r;
  r.generation = member.epoch;
  r.member_id = id;
  reply(std::move(r));  // no leader: the coordinator assigns
}

std::optional<classic::JoinGroupResponse> ConsumerCoordinator::refuse_join(const classic::JoinGroupRequest& req, bool known,
                                                                           bool pending, bool instance_taken) {
  const std::string& id = req.member_id;
  if (!known && !pending && !req.instance_id) {
    // A dynamic member gets its id first (KIP-394); an id this group does
    // not know is UNKNOWN_MEMBER_ID (the member starts over).
    if (!id.empty()) return classic::JoinGroupResponse::failed(classic::Error::UnknownMemberId);
    classic::JoinGroupResponse r = classic::JoinGroupResponse::failed(classic::Error::MemberIdRequired);
    r.member_id = member_id_for("", req.client_id);
    pending_classic_.insert(r.member_id);
    return r;
  }
  if (!known && req.instance_id && !id.empty()) {
    // A static member rejoining with the id it had (getOrMaybeSubscribe-
    // StaticConsumerGroupMember without createIfNotExists): an instance id
    // the group no longer has is UNKNOWN_MEMBER_ID (throwIfStaticMemberIsUnknown),
    // one now held by another member id is FENCED_INSTANCE_ID
    // (throwIfInstanceIdIsFenced). Only a join without a member id creates or
    // replaces a static member.
    return classic::JoinGroupResponse::failed(instance_taken ? classic::Error::FencedInstanceId
                                                             : classic::Error::UnknownMemberId);
  }
  return std::nullopt;
}

std::string ConsumerCoordinator::take_over_static(MemberView& old, const classic::JoinGroupRequest& req) {
  MemberView& m = replace_static(old, member_id_for(req.member_id, req.client_id));
  m.classic = true;
  m.session_timeout = req.session_timeout;
  m.rebalance_timeout = req.rebalance_timeout;
  const bool resubscribed = m.topics != req.subscription.topics;
  m.topics = req.subscription.topics;
  write_member(m);
  write_current(m);
  if (resubscribed) bump_group_epoch("subscription changed");
  notice_classic_only();  // it may have replaced the last consumer-protocol member
  return m.member_id;
}

std::string ConsumerCoordinator::join_classic(const classic::JoinGroupRequest& req) {
  const std::string id = member_id_for(req.member_id, req.client_id);
  HeartbeatRequest as_consumer;
  as_consumer.client_id = req.client_id;
  as_consumer.instance_id = req.instance_id;
  as_consumer.topics = req.subscription.topics;
  as_consumer.rebalance_timeout = req.rebalance_timeout;
  new_member(as_consumer, id, true, req.session_timeout);
  bump_group_epoch("member joined");
  return id;
}

// SyncGroup returns what the member may own now.
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

}  // namespace rsim::protocols::consumer
