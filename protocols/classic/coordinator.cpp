#include "protocols/classic/coordinator.hpp"

#include "protocols/assignors/java_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace rsim::protocols::classic {

const char* state_name(GroupState s) {
  switch (s) {
    case GroupState::Empty:
      return "Empty";
    case GroupState::PreparingRebalance:
      return "PreparingRebalance";
    case GroupState::CompletingRebalance:
      return "CompletingRebalance";
    case GroupState::Stable:
      return "Stable";
    case GroupState::Dead:
      return "Dead";
  }
  return "?";
}

ClassicCoordinator::ClassicCoordinator(Kernel& kernel, Trace& trace, CoordinatorConfig config)
    : kernel_(kernel), trace_(trace), config_(config), join_timer_(kernel), pending_sync_timer_(kernel) {}

// ------------------------------------------------------------------ helpers

ClassicCoordinator::Member* ClassicCoordinator::find(const std::string& member_id) {
  const auto it = by_id_.find(member_id);
  return it == by_id_.end() ? nullptr : it->second;
}

void ClassicCoordinator::insert_member(std::unique_ptr<Member> m) {
  by_id_[m->id] = m.get();
  count_protocols(*m, +1);
  members_.push_back(std::move(m));
}

void ClassicCoordinator::erase_member(const std::string& member_id) {
  by_id_.erase(member_id);
  const auto it = std::find_if(members_.begin(), members_.end(), [&](const auto& p) { return p->id == member_id; });
  count_protocols(**it, -1);
  members_.erase(it);
}

// A member counts once for each protocol it lists (a name listed twice
// counts once: support is "lists it").
void ClassicCoordinator::count_protocols(const Member& m, int delta) {
  if (m.protocols.empty()) {
    accepting_any_ += static_cast<std::size_t>(delta);
    return;
  }
  for (auto p = m.protocols.begin(); p != m.protocols.end(); ++p) {
    if (std::find(m.protocols.begin(), p, *p) != p) continue;  // listed before
    auto& n = supported_[*p];
    n += static_cast<std::size_t>(delta);
    if (n == 0) supported_.erase(*p);
  }
}

void ClassicCoordinator::set_protocols(Member& m, const std::vector<std::string>& protocols) {
  count_protocols(m, -1);
  m.protocols = protocols;
  count_protocols(m, +1);
}

bool ClassicCoordinator::all_support(const std::string& protocol) const {
  const auto it = supported_.find(protocol);
  return (it == supported_.end() ? 0 : it->second) + accepting_any_ == members_.size();
}

void ClassicCoordinator::rename_member(Member& m, std::string new_id) {
  by_id_.erase(m.id);
  m.id = std::move(new_id);
  by_id_[m.id] = &m;
}

Error ClassicCoordinator::validate_member(const std::string& member_id, const std::optional<std::string>& instance_id) const {
  if (instance_id) {
    auto known = static_members_.find(*instance_id);
    if (known == static_members_.end()) return Error::UnknownMemberId;
    if (known->second != member_id) return Error::FencedInstanceId;
  }
  return Error::None;
}

// Kafka: clientId + "-" + UUID. A counter keeps runs reproducible and the
// timeline readable.
std::string ClassicCoordinator::new_member_id(const std::string& client_id) {
  return fmt::format("{}-{}", client_id, next_member_number_++);
}

void ClassicCoordinator::emit(std::string kind, std::vector<TraceField> fields) {
  trace_.emit(kernel_.now(), "coordinator", std::move(kind), std::move(fields));
}

void ClassicCoordinator::transition(GroupState to, const std::string& reason) {
  previous_state_ = state_;
  state_ = to;
  emit("state", {{"from", std::string(state_name(previous_state_))},
                 {"to", std::string(state_name(to))},
                 {"reason", reason}});
}

bool ClassicCoordinator::all_members_joined() const {
  if (!pending_members_.empty()) return false;
  return std::all_of(members_.begin(), members_.end(), [](const auto& m) { return m->awaiting_join.has_value(); });
}

Duration ClassicCoordinator::rebalance_timeout() const {
  Duration longest{0};
  for (const auto& m : members_) longest = std::max(longest, m->rebalance_timeout);
  return longest;
}

void ClassicCoordinator::reschedule_deadline(Member& m, Duration timeout) {
  if (!m.deadline) m.deadline = std::make_unique<Timer>(kernel_);
  const std::string id = m.id;
  m.deadline->arm_in(timeout, [this, id] {
    Member* member = find(id);
    if (member == nullptr) return;
    // ClassicGroupMember.hasSatisfiedHeartbeat: an existing member parked in
    // JoinGroup or SyncGroup cannot heartbeat and is kept; a new member is not.
    if (!member->is_new && (member->awaiting_join || member->awaiting_sync)) {
      reschedule_deadline(*member, member->session_timeout);
      return;
    }
    remove_member(id, "session timeout expired");
  });
}

JoinGroupResponse ClassicCoordinator::join_response(const Member& m) const {
  JoinGroupResponse r;
  r.generation = generation_;
  r.member_id = m.id;
  r.leader = leader_;
  r.protocol_name = protocol_name_;
  if (m.id == leader_) {
    for (const auto& other : members_) r.members.push_back(JoinedMember{other->id, other->instance_id, other->subscription});
  }
  return r;
}

void ClassicCoordinator::reply_current_generation(Member& m, Reply<JoinGroupResponse>& reply) {
  JoinGroupResponse r = join_response(m);
  if (m.id != leader_) r.members.clear();
  reply(std::move(r));
}

// A static member back in a Stable group gets the current generation; a
// returning leader is told to skip the assignment (KIP-814).
void ClassicCoordinator::reply_static_rejoin(Member& m, Reply<JoinGroupResponse>& reply) {
  JoinGroupResponse r = join_response(m);
  r.skip_assignment = m.id == leader_;
  reply(std::move(r));
}

// A member without protocols (one a converted consumer group handed over)
// supports any.
bool ClassicCoordinator::supports_protocols(const std::vector<std::string>& protocols) const {
  if (state_ == GroupState::Empty || protocols.empty()) return true;
  return std::any_of(protocols.begin(), protocols.end(), [this](const std::string& name) { return all_support(name); });
}

// ClassicGroup.selectProtocol: the candidates are the assignors every member
// supports; each member votes for its first candidate; most votes wins. A
// tie goes to the first protocol in the iteration order of the vote
// HashMap (Stream.max keeps the first of equal maxima).
std::string ClassicCoordinator::select_protocol() const {
  std::vector<std::string> names;  // vote map keys, in insertion order
  std::vector<int> votes;
  for (const auto& m : members_) {
    auto vote = std::find_if(m->protocols.begin(), m->protocols.end(), [this](const std::string& name) { return all_support(name); });
    if (vote == m->protocols.end()) continue;
    auto it = std::find(names.begin(), names.end(), *vote);
    if (it == names.end()) {
      names.push_back(*vote);
      votes.push_back(1);
    } else {
      ++votes[static_cast<std::size_t>(it - names.begin())];
    }
  }
  std::vector<std::int32_t> hashes;
  for (const auto& n : names) hashes.push_back(java::string_hash(n));
  std::string best;
  int most = 0;
  for (std::size_t i : java::iteration_order(hashes, java::capacity_for(names.size())))
    if (votes[i] > most) {
      most = votes[i];
      best = names[i];
    }
  return best;
}

void ClassicCoordinator::use_protocol(const std::string& selected) {
  if (!protocol_name_.empty() && selected != protocol_name_)
    emit("protocol-changed", {{"from", protocol_name_}, {"to", selected}});
  protocol_name_ = selected;
}

// ------------------------------------------------------------------ JoinGroup

void ClassicCoordinator::handle_join(JoinGroupRequest req, Reply<JoinGroupResponse> reply) {
  if (state_ == GroupState::Dead) {
    reply(JoinGroupResponse::failed(Error::CoordinatorNotAvailable));
    return;
  }
  if (!supports_protocols(req.protocols)) {
    reply(JoinGroupResponse::failed(Error::InconsistentGroupProtocol));
    return;
  }
  if (req.instance_id) {
    join_static(req, reply);
    return;
  }
  if (req.member_id.empty()) {
    join_new_dynamic(req, reply);
    return;
  }
  if (auto it = pending_members_.find(req.member_id); it != pending_members_.end()) {
    pending_members_.erase(it);
    add_member(req.member_id, req, reply);
    return;
  }
  Member* m = find(req.member_id);
  if (m == nullptr) {
    reply(JoinGroupResponse::failed(Error::UnknownMemberId));
    return;
  }
  join_existing(*m, req, reply);
}

// JoinGroup v4+: a dynamic member's first join gets an id and must come back
// with it (one extra round trip); until then it is a pending member that
// expires after its session timeout.
void ClassicCoordinator::join_new_dynamic(JoinGroupRequest& req, Reply<JoinGroupResponse>& reply) {
  const std::string id = new_member_id(req.client_id);
  auto timer = std::make_unique<Timer>(kernel_);
  timer->arm_in(req.session_timeout, [this, id] {
    if (pending_members_.erase(id) != 0) {
      emit("member-removed", {{"member-id", id}, {"reason", "pending member expired"}});
      if (state_ == GroupState::PreparingRebalance) maybe_complete_join();
    }
  });
  pending_members_.emplace(id, std::move(timer));
  JoinGroupResponse r;
  r.error = Error::MemberIdRequired;
  r.member_id = id;
  reply(std::move(r));
}

// KIP-345 static membership.
void ClassicCoordinator::join_static(JoinGroupRequest& req, Reply<JoinGroupResponse>& reply) {
  auto known = static_members_.find(*req.instance_id);
  if (known == static_members_.end()) {
    if (!req.member_id.empty()) {
      reply(JoinGroupResponse::failed(Error::UnknownMemberId));
      return;
    }
    add_member(new_member_id(req.client_id), req, reply);
    return;
  }
  Member* m = find(known->second);
  assert(m != nullptr);
  if (!req.member_id.empty()) {
    if (req.member_id != m->id) {
      reply(JoinGroupResponse::failed(Error::FencedInstanceId));
      return;
    }
    join_existing(*m, req, reply);
    return;
  }
  // A restarted static member: the old member id is replaced by a new one.
  const std::string old_id = m->id;
  rename_member(*m, new_member_id(req.client_id));
  known->second = m->id;
  if (leader_ == old_id) leader_ = m->id;
  if (pending_sync_.erase(old_id) != 0) pending_sync_.insert(m->id);
  if (m->awaiting_join) (*m->awaiting_join)(JoinGroupResponse::failed(Error::FencedInstanceId));
  if (m->awaiting_sync) (*m->awaiting_sync)(SyncGroupResponse::failed(Error::FencedInstanceId));
  m->awaiting_join.reset();
  m->awaiting_sync.reset();
  m->subscription = req.subscription;
  set_protocols(*m, req.protocols);
  m->session_timeout = req.session_timeout;
  m->rebalance_timeout = req.rebalance_timeout;
  m->deadline.reset();  // the old id's session timer no longer applies
  emit("member-replaced", {{"member", req.client_id}, {"old-member-id", old_id}, {"member-id", m->id}});
  switch (state_) {
    case GroupState::Stable:
      // Kafka rebalances here only if the group's selected protocol would
      // change; otherwise the member gets the current generation's
      // assignment back, no rebalance.
      if (select_protocol() != protocol_name_) {
        m->awaiting_join = std::move(reply);
        prepare_rebalance(fmt::format("static member {} changes the group's selected protocol", m->id));
        return;
      }
      persist();
      reschedule_deadline(*m, m->session_timeout);
      reply_static_rejoin(*m, reply);
      return;
    case GroupState::CompletingRebalance:
      m->awaiting_join = std::move(reply);
      prepare_rebalance(fmt::format("static member {} rejoined during CompletingRebalance", m->id));
      return;
    case GroupState::PreparingRebalance:
      m->awaiting_join = std::move(reply);
      maybe_complete_join();
      return;
    case GroupState::Empty:
    case GroupState::Dead:
      break;
  }
  reply(JoinGroupResponse::failed(Error::UnknownMemberId));
}

void ClassicCoordinator::add_member(const std::string& id, JoinGroupRequest& req, Reply<JoinGroupResponse>& reply) {
  auto m = std::make_unique<Member>();
  m->id = id;
  m->client_id = req.client_id;
  m->instance_id = req.instance_id;
  m->session_timeout = req.session_timeout;
  m->rebalance_timeout = req.rebalance_timeout;
  m->subscription = req.subscription;
  m->protocols = req.protocols;
  m->awaiting_join = std::move(reply);
  m->is_new = true;
  if (state_ == GroupState::PreparingRebalance && previous_state_ == GroupState::Empty) new_member_added_ = true;
  if (leader_.empty()) leader_ = id;
  if (m->instance_id) static_members_[*m->instance_id] = id;
  // A new member cannot heartbeat while parked in JoinGroup: its deadline is
  // the new-member join timeout, not the session timeout.
  reschedule_deadline(*m, config_.new_member_join_timeout);
  insert_member(std::move(m));
  emit("member-added", {{"member", req.client_id}, {"member-id", id}});
  maybe_prepare_rebalance_or_complete_join(fmt::format("member {} joined", id));
}

void ClassicCoordinator::join_existing(Member& m, JoinGroupRequest& req, Reply<JoinGroupResponse>& reply) {
  const bool metadata_changed = !(m.subscription == req.subscription) || m.protocols != req.protocols;
  m.subscription = req.subscription;
  set_protocols(m, req.protocols);
  m.session_timeout = req.session_timeout;
  m.rebalance_timeout = req.rebalance_timeout;
  switch (state_) {
    case GroupState::PreparingRebalance:
      m.awaiting_join = std::move(reply);
      maybe_complete_join();
      return;
    case GroupState::CompletingRebalance:
      if (!metadata_changed) {
        reply_current_generation(m, reply);  // a retried JoinGroup
        return;
      }
      m.awaiting_join = std::move(reply);
      prepare_rebalance(fmt::format("member {} rejoined with new metadata", m.id));
      return;
    case GroupState::Stable:
      if (m.id == leader_ || metadata_changed) {
        m.awaiting_join = std::move(reply);
        prepare_rebalance(fmt::format("{} {} rejoined", m.id == leader_ ? "leader" : "member", m.id));
        return;
      }
      reply_current_generation(m, reply);
      return;
    case GroupState::Empty:
    case GroupState::Dead:
      break;
  }
  reply(JoinGroupResponse::failed(Error::UnknownMemberId));
}

// ------------------------------------------------------------------ join phase

void ClassicCoordinator::maybe_prepare_rebalance_or_complete_join(const std::string& reason) {
  if (state_ == GroupState::Stable || state_ == GroupState::CompletingRebalance || state_ == GroupState::Empty) {
    prepare_rebalance(reason);
  } else if (state_ == GroupState::PreparingRebalance) {
    maybe_complete_join();
  }
}

void ClassicCoordinator::prepare_rebalance(const std::string& reason) {
  if (state_ == GroupState::CompletingRebalance) {
    // Parked SyncGroups fail and the group's assignment is reset.
    for (auto& m : members_) {
      m->assignment = MemberAssignment{};
      if (m->awaiting_sync) {
        (*m->awaiting_sync)(SyncGroupResponse::failed(Error::RebalanceInProgress));
        m->awaiting_sync.reset();
      }
    }
  }
  pending_sync_timer_.cancel();
  pending_sync_.clear();
  const bool initial = state_ == GroupState::Empty;
  transition(GroupState::PreparingRebalance, reason);
  if (initial) {
    // The first rebalance of a new group waits for more members to arrive.
    const Duration delay = config_.initial_rebalance_delay;
    const Duration remaining = std::max(rebalance_timeout() - delay, Duration{0});
    join_timer_.arm_in(delay, [this, delay, remaining] { initial_delay_expired(delay, remaining); });
    return;
  }
  if (all_members_joined()) {
    complete_join();
    return;
  }
  join_timer_.arm_in(rebalance_timeout(), [this] { complete_join(); });
}

// The initial delay extends by min(delay, remaining) whenever a member was
// added during the window that just ended, bounded by the rebalance timeout.
void ClassicCoordinator::initial_delay_expired(Duration delay, Duration remaining) {
  if (new_member_added_ && remaining != Duration{0}) {
    new_member_added_ = false;
    const Duration next_delay = std::min(delay, remaining);
    const Duration next_remaining = std::max(remaining - delay, Duration{0});
    join_timer_.arm_in(next_delay, [this, next_delay, next_remaining] { initial_delay_expired(next_delay, next_remaining); });
    return;
  }
  complete_join();
}

void ClassicCoordinator::maybe_complete_join() {
  // During the initial rebalance the join phase never ends early.
  if (state_ == GroupState::PreparingRebalance && all_members_joined() && previous_state_ != GroupState::Empty)
    complete_join();
}

void ClassicCoordinator::complete_join() {
  if (state_ != GroupState::PreparingRebalance) return;
  join_timer_.cancel();
  // Dynamic members that did not rejoin are removed; static ones are kept.
  std::vector<std::string> gone;
  for (const auto& m : members_)
    if (!m->awaiting_join && !m->instance_id) gone.push_back(m->id);
  for (const auto& id : gone) {
    Member* m = find(id);
    emit("member-removed", {{"member", m->client_id}, {"member-id", id}, {"reason", "did not rejoin in time"}});
    forget_static(*m);
    erase_member(id);
  }
  if (state_ == GroupState::Dead) return;
  const Member* leader = find(leader_);
  if (leader == nullptr || !leader->awaiting_join) {
    leader_.clear();
    for (const auto& m : members_)
      if (m->awaiting_join) {
        leader_ = m->id;
        break;
      }
  }
  if (!members_.empty() && leader_.empty()) {
    // Only static members that have not rejoined: wait another timeout.
    join_timer_.arm_in(rebalance_timeout(), [this] { complete_join(); });
    return;
  }
  init_next_generation();
}

void ClassicCoordinator::init_next_generation() {
  ++generation_;
  if (members_.empty()) {
    leader_.clear();
    transition(GroupState::Empty, "no members");
    persist();
    emit("generation", {{"generation", generation_}, {"leader", std::string()}, {"members", std::vector<std::string>{}}});
    return;
  }
  use_protocol(select_protocol());
  transition(GroupState::CompletingRebalance, fmt::format("generation {} formed", generation_));
  std::vector<std::string> clients;
  for (const auto& m : members_) clients.push_back(m->client_id);
  std::string leader_client;
  if (const Member* l = find(leader_)) leader_client = l->client_id;
  emit("generation", {{"generation", generation_}, {"leader", leader_client}, {"members", clients}});
  for (auto& m : members_) {
    if (!m->awaiting_join) continue;  // a static member that did not rejoin
    auto reply = std::move(*m->awaiting_join);
    m->awaiting_join.reset();
    m->is_new = false;
    reschedule_deadline(*m, m->session_timeout);
    pending_sync_.insert(m->id);
    reply(join_response(*m));
  }
  pending_sync_timer_.arm_in(rebalance_timeout(), [this] { expire_pending_sync(); });
}

void ClassicCoordinator::expire_pending_sync() {
  if (state_ != GroupState::CompletingRebalance && state_ != GroupState::Stable) return;
  const std::vector<std::string> late(pending_sync_.begin(), pending_sync_.end());
  pending_sync_.clear();
  if (late.empty()) return;
  for (const auto& id : late) {
    if (Member* m = find(id)) {
      emit("member-removed", {{"member", m->client_id}, {"member-id", id}, {"reason", "did not sync in time"}});
      forget_static(*m);
      if (leader_ == id) leader_.clear();
      erase_member(id);
    }
  }
  if (leader_.empty() && !members_.empty()) leader_ = members_.front()->id;
  prepare_rebalance("members did not sync in time");
}

// ------------------------------------------------------------------ SyncGroup

void ClassicCoordinator::handle_sync(SyncGroupRequest req, Reply<SyncGroupResponse> reply) {
  if (state_ == GroupState::Dead) {
    reply(SyncGroupResponse::failed(Error::CoordinatorNotAvailable));
    return;
  }
  if (const Error e = validate_member(req.member_id, req.instance_id); e != Error::None) {
    reply(SyncGroupResponse::failed(e));
    return;
  }
  Member* m = find(req.member_id);
  if (m == nullptr) {
    reply(SyncGroupResponse::failed(Error::UnknownMemberId));
    return;
  }
  if (req.generation != generation_) {
    reply(SyncGroupResponse::failed(Error::IllegalGeneration));
    return;
  }
  switch (state_) {
    case GroupState::PreparingRebalance:
      reply(SyncGroupResponse::failed(Error::RebalanceInProgress));
      return;
    case GroupState::CompletingRebalance: {
      m->awaiting_sync = std::move(reply);
      pending_sync_.erase(m->id);
      if (m->id != leader_) return;
      // The leader's assignment: members it omitted get an empty one.
      for (auto& member : members_) member->assignment = MemberAssignment{};
      for (auto& [id, assignment] : req.assignments)
        if (Member* target = find(id)) target->assignment = std::move(assignment);
      transition(GroupState::Stable, fmt::format("leader {} sent the assignment", m->id));
      persist();
      emit("stable", {{"generation", generation_}});
      for (auto& member : members_) {
        if (!member->awaiting_sync) continue;
        auto parked = std::move(*member->awaiting_sync);
        member->awaiting_sync.reset();
        reschedule_deadline(*member, member->session_timeout);
        parked(SyncGroupResponse{Error::None, member->assignment});
      }
      if (pending_sync_.empty()) pending_sync_timer_.cancel();
      return;
    }
    case GroupState::Stable:
      pending_sync_.erase(m->id);
      if (pending_sync_.empty()) pending_sync_timer_.cancel();
      reschedule_deadline(*m, m->session_timeout);
      reply(SyncGroupResponse{Error::None, m->assignment});
      return;
    case GroupState::Empty:
    case GroupState::Dead:
      break;
  }
  reply(SyncGroupResponse::failed(Error::UnknownMemberId));
}

// ------------------------------------------------------------------ Heartbeat, LeaveGroup

void ClassicCoordinator::handle_heartbeat(HeartbeatRequest req, Reply<HeartbeatResponse> reply) {
  if (state_ == GroupState::Dead) {
    reply(HeartbeatResponse{Error::CoordinatorNotAvailable});
    return;
  }
  if (state_ == GroupState::Empty) {
    reply(HeartbeatResponse{Error::UnknownMemberId});
    return;
  }
  if (const Error e = validate_member(req.member_id, req.instance_id); e != Error::None) {
    reply(HeartbeatResponse{e});
    return;
  }
  Member* m = find(req.member_id);
  if (m == nullptr) {
    reply(HeartbeatResponse{Error::UnknownMemberId});
    return;
  }
  if (req.generation != generation_) {
    reply(HeartbeatResponse{Error::IllegalGeneration});
    return;
  }
  reschedule_deadline(*m, m->session_timeout);
  reply(HeartbeatResponse{state_ == GroupState::PreparingRebalance ? Error::RebalanceInProgress : Error::None});
}

void ClassicCoordinator::handle_leave(LeaveGroupRequest req) {
  if (pending_members_.erase(req.member_id) != 0) {
    if (state_ == GroupState::PreparingRebalance) maybe_complete_join();
    return;
  }
  if (find(req.member_id) == nullptr) return;  // UNKNOWN_MEMBER_ID; the member is gone anyway
  remove_member(req.member_id, "left the group");
}

// Forgets `m`'s instance id, unless it already belongs to a newer member.
void ClassicCoordinator::forget_static(const Member& m) {
  if (!m.instance_id) return;
  auto it = static_members_.find(*m.instance_id);
  if (it != static_members_.end() && it->second == m.id) static_members_.erase(it);
}

void ClassicCoordinator::remove_member(const std::string& member_id, const std::string& reason) {
  auto it = std::find_if(members_.begin(), members_.end(), [&](const auto& p) { return p->id == member_id; });
  assert(it != members_.end());
  emit("member-removed", {{"member", (*it)->client_id}, {"member-id", member_id}, {"reason", reason}});
  forget_static(**it);
  pending_sync_.erase(member_id);
  erase_member(member_id);
  if (leader_ == member_id) leader_ = members_.empty() ? std::string() : members_.front()->id;
  switch (state_) {
    case GroupState::Stable:
    case GroupState::CompletingRebalance:
      prepare_rebalance(fmt::format("member {} removed: {}", member_id, reason));
      break;
    case GroupState::PreparingRebalance:
      maybe_complete_join();
      break;
    case GroupState::Empty:
    case GroupState::Dead:
      break;
  }
}

// ------------------------------------------------------------------ scenario start

void ClassicCoordinator::install(int generation, const std::string& leader, const std::vector<SeedMember>& seeds) {
  assert(members_.empty());
  generation_ = generation;
  for (const auto& seed : seeds) {
    auto m = std::make_unique<Member>();
    m->id = seed.member_id;
    m->client_id = seed.join.client_id;
    m->instance_id = seed.join.instance_id;
    m->session_timeout = seed.join.session_timeout;
    m->rebalance_timeout = seed.join.rebalance_timeout;
    m->subscription = seed.join.subscription;
    m->protocols = seed.join.protocols;
    m->assignment = seed.assignment;
    if (m->instance_id) static_members_[*m->instance_id] = m->id;
    reschedule_deadline(*m, m->session_timeout);
    insert_member(std::move(m));
  }
  leader_ = leader;
  if (find(leader_) == nullptr) leader_ = members_.empty() ? std::string() : members_.front()->id;
  state_ = members_.empty() ? GroupState::Empty : GroupState::Stable;
  protocol_name_ = members_.empty() ? std::string() : select_protocol();
  previous_state_ = members_.empty() ? GroupState::PreparingRebalance : GroupState::CompletingRebalance;
}

PersistedGroup ClassicCoordinator::in_memory() const {
  PersistedGroup g;
  g.generation = generation_;
  g.leader = leader_;
  for (const auto& m : members_) {
    SeedMember s;
    s.member_id = m->id;
    s.join.client_id = m->client_id;
    s.join.instance_id = m->instance_id;
    s.join.session_timeout = m->session_timeout;
    s.join.rebalance_timeout = m->rebalance_timeout;
    s.join.subscription = m->subscription;
    s.join.protocols = m->protocols;
    s.assignment = m->assignment;
    g.members.push_back(std::move(s));
  }
  return g;
}

void ClassicCoordinator::persist() { persisted_ = in_memory(); }

void ClassicCoordinator::abandon_rebalance() {
  join_timer_.cancel();
  pending_sync_timer_.cancel();
  for (auto& m : members_) {
    if (m->awaiting_join) (*m->awaiting_join)(JoinGroupResponse::failed(Error::RebalanceInProgress));
    if (m->awaiting_sync) (*m->awaiting_sync)(SyncGroupResponse::failed(Error::RebalanceInProgress));
    m->awaiting_join.reset();
    m->awaiting_sync.reset();
  }
}

void ClassicCoordinator::seed_stable(int generation, std::vector<SeedMember> seeds) {
  assert(state_ == GroupState::Empty && members_.empty());
  install(generation, seeds.empty() ? std::string() : seeds.front().member_id, seeds);
  persist();
  std::vector<std::string> clients;
  for (const auto& m : members_) clients.push_back(m->client_id);
  emit("generation", {{"generation", generation_}, {"leader", members_.empty() ? std::string() : members_.front()->client_id}, {"members", clients}});
  emit("stable", {{"generation", generation_}});
}

void ClassicCoordinator::load(const PersistedGroup& group) {
  assert(state_ == GroupState::Empty && members_.empty());
  install(group.generation, group.leader, group.members);
  persisted_ = group;
  std::vector<std::string> clients;
  for (const auto& m : members_) clients.push_back(m->client_id);
  emit("loaded", {{"generation", generation_}, {"state", std::string(state_name(state_))}, {"members", clients}});
}

}  // namespace rsim::protocols::classic
