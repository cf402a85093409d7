#include "protocols/streams/coordinator.hpp"

#include "protocols/streams/records.hpp"

namespace rsim::protocols::streams {

StreamsCoordinator::StreamsCoordinator(Kernel& kernel, Trace& trace, const std::map<std::string, int>& cluster,
                                       const Topology& topology, CoordinatorConfig config)
    : EpochGroup(kernel, trace, config.session_timeout),
      cluster_(cluster),
      topology_(topology),
      source_topics_(topology.external_source_topics()),
      config_(config),
      initial_delay_(kernel) {
  configured_ = configure(topology_, TopicMetadata(cluster_.begin(), cluster_.end()));
}

// StreamsGroupPartitionMetadata: the partition counts of the topology's
// source topics that exist.
GroupMetadata StreamsCoordinator::group_metadata() const {
  GroupMetadata g;
  g.topology_epoch = 0;  // the scenario's one topology
  for (const auto& topic : source_topics_)
    if (auto it = cluster_.find(topic); it != cluster_.end()) g.partitions.emplace_hint(g.partitions.end(), topic, it->second);
  return g;
}

// group_metadata() != the metadata of the group epoch, without building it:
// every heartbeat asks, and a topology reading 1,000 topics built a set and
// a map of them each time (issue 16). Source topics, the cluster and the
// recorded counts are all in name order: one walk of the three.
bool StreamsCoordinator::metadata_changed() const {
  return metadata_differs([this] { return metadata_walk_changed(); });
}

bool StreamsCoordinator::metadata_walk_changed() const {
  const GroupMetadata& known = state_.subscribed_metadata;
  if (known.topology_epoch != 0) return true;
  auto k = known.partitions.begin();
  auto c = cluster_.begin();
  for (const auto& topic : source_topics_) {
    if (c == cluster_.end() || c->first != topic) c = cluster_.lower_bound(topic);
    if (c == cluster_.end() || c->first != topic) continue;  // not created yet: not in the metadata
    if (k == known.partitions.end() || k->first != topic || k->second != c->second) return true;
    ++k;
    ++c;
  }
  return k != known.partitions.end();
}

void StreamsCoordinator::refresh_topology() {
  if (state_.members.empty() || !metadata_changed()) return;
  const auto before = configured_.status;
  configured_ = configure(topology_, TopicMetadata(cluster_.begin(), cluster_.end()));
  if (configured_.status != before)
    emit("topology-status", {{"status", std::string(status_name(configured_.status))}, {"detail", configured_.status_detail}});
  bump_group_epoch("topic metadata changed");
}

std::vector<std::string> StreamsCoordinator::statuses() const {
  std::vector<std::string> out;
  if (!configured_.ready()) out.emplace_back(status_name(configured_.status));
  if (target_delayed()) out.emplace_back("ASSIGNMENT_DELAYED");
  return out;
}

// group.streams.initial.rebalance.delay.ms (Kafka 4.2): a heartbeat to an
// empty group starts it; until it ends no target is computed (members get
// nothing, status ASSIGNMENT_DELAYED), then the target is computed at once
// for everyone who joined meanwhile. A new group's first epoch is 2, so that
// the target epoch the members wait at (1) is below it.
void StreamsCoordinator::start_initial_delay() {
  if (!state_.members.empty() || config_.initial_rebalance_delay <= Duration{0} || initial_delay_.armed()) return;
  if (state_.group_epoch == 0) state_.group_epoch = 1;
  initial_delay_.arm_in(config_.initial_rebalance_delay, [this] {
    emit("initial-delay-over", {{"members", static_cast<std::int64_t>(state_.members.size())}});
    compute_target();
    update_group_state();
  });
}

void StreamsCoordinator::handle_heartbeat(HeartbeatRequest req, Reply reply) {
  HeartbeatResponse resp;
  resp.answer.heartbeat_interval = config_.heartbeat_interval;
  resp.answer.member_id = req.member_id;
  if (leaving(req.member_epoch)) {
    resp.answer.error = leave_heartbeat(req.member_id, req.member_epoch);
    if (resp.answer.error == Error::None) resp.answer.member_epoch = req.member_epoch;
    return reply(std::move(resp));
  }
  const auto [m, error] = member_for(req);
  if (error != Error::None) {
    resp.answer.error = error;
    return reply(std::move(resp));
  }
  const std::string member_id = m->member_id;
  refresh_topology();
  const MemberView& member = advance(member_id, req.owned);
  resp.answer.member_id = member.member_id;
  resp.answer.member_slot = slot_of(member.member_id);
  resp.answer.member_epoch = member.epoch;
  resp.answer.assignment = answer_of(member);
  resp.status = statuses();
  reply(std::move(resp));
}

// A new member (epoch 0, which brings the topology), a static member back
// with its instance id, or a known one at a valid epoch.
StreamsCoordinator::Found StreamsCoordinator::member_for(const HeartbeatRequest& req) {
  if (req.member_epoch == kJoinEpoch) {
    const bool creating = state_.group_epoch == 0 && req.topology_epoch;  // the group is created with its topology
    start_initial_delay();
    if (creating) {
      creation_epoch_ = state_.group_epoch + 1;
      emit("topology", {{"epoch", *req.topology_epoch}, {"subtopologies", static_cast<std::int64_t>(topology_.subtopologies().size())}});
    }
    MemberView* m = join_member(req.member_id, req.client_id, member_from(req));
    return {m, m != nullptr ? Error::None : Error::UnreleasedInstanceId};
  }
  MemberView* m = find_member(req.member_id, req.member_slot);
  if (m == nullptr) return {nullptr, Error::UnknownMemberId};
  if (!epoch_valid(*m, req.member_epoch, req.owned)) return {nullptr, Error::FencedMemberEpoch};
  return {m, Error::None};
}

StreamsCoordinator::MemberView StreamsCoordinator::member_from(const HeartbeatRequest& req) {
  MemberView m;
  m.client_id = req.client_id;
  m.instance_id = req.instance_id;
  m.rack_id = req.rack_id;
  m.rebalance_timeout = req.rebalance_timeout;
  m.client_host = "/" + req.client_id;
  m.topology_epoch = req.topology_epoch.value_or(0);
  m.process_id = req.process_id;
  m.user_endpoint = req.user_endpoint;
  m.client_tags = req.client_tags;
  return m;
}

void StreamsCoordinator::seed_stable(const std::vector<std::pair<HeartbeatRequest, TaskSet>>& members) {
  std::vector<MemberView> seeds;
  for (const auto& [req, actives] : members) {
    MemberView m = member_from(req);
    m.member_id = req.member_id;
    m.assigned.active = actives;
    seeds.push_back(std::move(m));
  }
  place_standbys(seeds);
  creation_epoch_ = 1;
  EpochGroup::seed_stable(seeds);
}

// The sticky assignor keeps the given actives where they are balanced; its
// standbys go where no member of the process runs the task actively (when it
// would have moved an active, the standby it placed with it may not fit).
void StreamsCoordinator::place_standbys(std::vector<MemberView>& seeds) const {
  if (!configured_.ready() || config_.num_standby_replicas == 0) return;
  StreamsGroupSpec g;
  g.num_standby_replicas = config_.num_standby_replicas;
  std::map<std::string, TaskSet> active_on;  // process -> its active tasks
  for (const auto& m : seeds) {
    AssignmentMemberSpec& s = g.members[m.member_id];
    s.instance_id = m.instance_id;
    s.rack_id = m.rack_id;
    s.process_id = m.process_id;
    s.client_tags = m.client_tags;
    s.current = m.assigned;
    active_on[m.process_id].insert(m.assigned.active.begin(), m.assigned.active.end());
  }
  const StreamsGroupAssignment a = run_assignor(g);
  for (auto& m : seeds)
    if (auto it = a.find(m.member_id); it != a.end())
      for (const auto& t : it->second.standby)
        if (active_on[m.process_id].count(t) == 0) m.assigned.standby.insert(t);
}

// Each member with its process and its current target (what the sticky
// assignor keeps).
StreamsGroupSpec StreamsCoordinator::group_spec() const {
  StreamsGroupSpec g;
  g.num_standby_replicas = config_.num_standby_replicas;
  for (const auto& [id, m] : state_.members) {
    AssignmentMemberSpec& s = g.members[id];
    s.instance_id = m.instance_id;
    s.rack_id = m.rack_id;
    s.process_id = m.process_id;
    s.client_tags = m.client_tags;
    if (const Assignment* t = find_target(id)) s.current = *t;
  }
  return g;
}

TopologyDescriber StreamsCoordinator::describer() const {
  TopologyDescriber d;
  for (const auto& s : configured_.subtopologies) d.subtopologies[s.id] = {s.tasks, s.stateful};
  return d;
}

StreamsGroupAssignment StreamsCoordinator::run_assignor(const StreamsGroupSpec& g) const {
  static const StickyTaskAssignor kSticky;
  return (config_.assignor != nullptr ? *config_.assignor : kSticky).assign(g, describer());
}

// No tasks while the topology cannot be configured (missing source topics):
// every member's target is empty.
std::optional<StreamsCoordinator::Targets> StreamsCoordinator::assign() {
  Targets targets;
  StreamsGroupAssignment a;
  if (configured_.ready()) {
    try {
      a = run_assignor(group_spec());
    } catch (const TaskAssignorError& e) {
      emit("assignment-failed", {{"reason", std::string(e.what())}});
      return std::nullopt;
    }
  }
  for (const auto& [id, m] : state_.members) {
    auto it = a.find(id);
    targets.emplace_back(id, it != a.end() ? it->second : TasksTuple{});
  }
  return targets;
}

std::vector<epoch::CoordinatorRecord> StreamsCoordinator::coordinator_records(const Record& r, bool json) const {
  return streams::coordinator_records(r, RecordContext{config_.group_id, &topology_, config_.num_standby_replicas, creation_epoch_}, json);
}

}  // namespace rsim::protocols::streams
