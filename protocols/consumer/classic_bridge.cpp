// Classic members of a consumer group (online migration, KIP-848): the
// consumer coordinator answers JoinGroup, SyncGroup, Heartbeat and
// LeaveGroup with its own epochs and reconciliation
// (GroupMetadataManager.classicGroupJoinToConsumerGroup and its siblings).
#include "protocols/consumer/coordinator.hpp"

namespace rsim::protocols::consumer {

// A JoinGroup is answered at once with the member's epoch as its generation;
// a classic static member whose instance id belongs to another member takes
// its place at once (classicGroupJoinToConsumerGroup: no UNRELEASED check
// when either side speaks the classic protocol).
void ConsumerCoordinator::handle_join(classic::JoinGroupRequest req, classic::Reply<classic::JoinGroupResponse> reply) {
  std::string id = req.member_id;
  const bool known = !id.empty() && find_member(id) != nullptr;
  const bool pending = pending_classic_.erase(id) != 0;
  MemberView* other = req.instance_id ? static_member(*req.instance_id, id) : nullptr;
  if (auto refused = refuse_join(req, known, pending, other != nullptr)) return reply(std::move(*refused));
  if (!known && other != nullptr) id = take_over_static(*other, req);
  else if (!known) id = join_classic(req);
  else resubscribe(member_at(id), intern(req.subscription.topics));
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
  count_subscription(m.topics, -1);
  m.topics = intern(req.subscription.topics);
  count_subscription(m.topics, 1);
  write_member(m);
  write_current(m);
  if (resubscribed) bump_group_epoch("subscription changed");
  notice_classic_only();  // it may have replaced the last consumer-protocol member
  return m.member_id;
}

// A new classic member, with its own session timeout.
std::string ConsumerCoordinator::join_classic(const classic::JoinGroupRequest& req) {
  MemberView m;
  m.member_id = member_id_for(req.member_id, req.client_id);
  m.client_id = req.client_id;
  m.instance_id = req.instance_id;
  m.topics = intern(req.subscription.topics);
  m.rebalance_timeout = req.rebalance_timeout;
  m.classic = true;
  m.session_timeout = req.session_timeout;
  const std::string id = add_member(std::move(m)).member_id;
  bump_group_epoch("member joined");
  return id;
}

// SyncGroup returns what the member may own now.
void ConsumerCoordinator::handle_sync(classic::SyncGroupRequest req, classic::Reply<classic::SyncGroupResponse> reply) {
  const MemberView* m = find_member(req.member_id);
  if (m == nullptr) return reply(classic::SyncGroupResponse::failed(classic::Error::UnknownMemberId));
  if (req.generation != m->epoch) return reply(classic::SyncGroupResponse::failed(classic::Error::IllegalGeneration));
  classic::SyncGroupResponse r;
  r.assignment.partitions = as_list(m->assigned);
  reply(std::move(r));
}

void ConsumerCoordinator::handle_heartbeat(classic::HeartbeatRequest req, classic::Reply<classic::HeartbeatResponse> reply) {
  const MemberView* found = find_member(req.member_id);
  classic::HeartbeatResponse r;
  if (found == nullptr) {
    r.error = classic::Error::UnknownMemberId;
  } else {
    arm_session(req.member_id);
    const MemberView& m = *found;
    if (req.generation != m.epoch) r.error = classic::Error::IllegalGeneration;
    // classicGroupHeartbeatToConsumerGroup: rejoin when the group epoch moved
    // past the member's (its JoinGroup then computes the target) or it has
    // a step to take.
    else if (m.epoch < state_.group_epoch || m.state != MemberState::Stable) r.error = classic::Error::RebalanceInProgress;
  }
  reply(r);
}

void ConsumerCoordinator::handle_leave(classic::LeaveGroupRequest req) {
  if (find_member(req.member_id) == nullptr) return;
  fence(req.member_id, "left the group");
  update_group_state();
}

}  // namespace rsim::protocols::consumer
