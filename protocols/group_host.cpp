#include "protocols/group_host.hpp"

#include <algorithm>

namespace rsim::protocols {

GroupHost::GroupHost(Kernel& kernel, Trace& trace, Network& network, const consumer::Metadata& cluster,
                     const Assignor& consumer_assignor, HostConfig config)
    : kernel_(kernel),
      trace_(trace),
      network_(network),
      cluster_(cluster),
      consumer_assignor_(consumer_assignor),
      config_(std::move(config)),
      back_timer_(kernel) {
  classic_directory_.coordinator = this;
  consumer_directory_.coordinator = this;
  streams_directory_.coordinator = this;
  classic_directory_.node = consumer_directory_.node = streams_directory_.node = network_.add_node("coordinator");
  classic_directory_.bootstrap = consumer_directory_.bootstrap = streams_directory_.bootstrap = network_.add_node("bootstrap");
}

classic::ClassicCoordinator* GroupHost::classic() const {
  const auto* c = std::get_if<Classic>(&coordinator_);
  return c ? c->get() : nullptr;
}

consumer::ConsumerCoordinator* GroupHost::consumer() const {
  const auto* c = std::get_if<Consumer>(&coordinator_);
  return c ? c->get() : nullptr;
}

streams::StreamsCoordinator* GroupHost::streams() const {
  const auto* c = std::get_if<Streams>(&coordinator_);
  return c ? c->get() : nullptr;
}

// An epoch group writes its records where the run asks, under the group's id.
template <class Group>
std::unique_ptr<Group> GroupHost::with_records(std::unique_ptr<Group> g) const {
  g->write_records_to(config_.records_out);
  g->limit_batches_to(config_.max_batch_bytes);
  return g;
}

GroupHost::Streams GroupHost::make_streams() const {
  streams::CoordinatorConfig c = config_.streams;
  c.group_id = config_.group_id;
  auto g = with_records(std::make_unique<streams::StreamsCoordinator>(kernel_, trace_, cluster_, *topology_, c));
  g->follow_cluster_version(config_.cluster_version);
  return g;
}

GroupHost::Classic GroupHost::make_classic() const {
  return std::make_unique<classic::ClassicCoordinator>(kernel_, trace_, config_.classic);
}

GroupHost::Consumer GroupHost::make_consumer() const {
  consumer::CoordinatorConfig c = config_.consumer;
  c.group_id = config_.group_id;
  auto g = with_records(std::make_unique<consumer::ConsumerCoordinator>(kernel_, trace_, cluster_, consumer_assignor_, c));
  g->follow_cluster_version(config_.cluster_version);
  return g;
}

void GroupHost::emit(std::string kind, std::vector<TraceField> fields) {
  trace_.emit(kernel_.now(), "coordinator", std::move(kind), std::move(fields));
}

bool GroupHost::allows(const char* way) const {
  return config_.migration_policy == "bidirectional" || config_.migration_policy == way;
}

classic::ClassicCoordinator& GroupHost::start_classic() {
  coordinator_ = make_classic();
  return *classic();
}

consumer::ConsumerCoordinator& GroupHost::start_consumer() {
  coordinator_ = make_consumer();
  watch_for_downgrade();
  return *consumer();
}

streams::StreamsCoordinator& GroupHost::start_streams(const streams::Topology& topology) {
  topology_ = &topology;
  coordinator_ = make_streams();
  return *streams();
}

// ------------------------------------------------------------------ requests

// A Streams group's members speak only StreamsGroupHeartbeat.
void GroupHost::handle_heartbeat(streams::HeartbeatRequest req, streams::Reply reply) {
  if (auto* s = streams()) s->handle_heartbeat(std::move(req), std::move(reply));
}

void GroupHost::handle_join(classic::JoinGroupRequest req, classic::Reply<classic::JoinGroupResponse> reply) {
  if (auto* k = consumer(); k && k->state().members.empty()) replace_with_new_classic_group();
  if (auto* c = classic()) return c->handle_join(std::move(req), std::move(reply));
  if (auto* k = consumer()) return k->handle_join(std::move(req), std::move(reply));
}

void GroupHost::handle_sync(classic::SyncGroupRequest req, classic::Reply<classic::SyncGroupResponse> reply) {
  if (auto* c = classic()) return c->handle_sync(std::move(req), std::move(reply));
  if (auto* k = consumer()) return k->handle_sync(std::move(req), std::move(reply));
}

void GroupHost::handle_heartbeat(classic::HeartbeatRequest req, classic::Reply<classic::HeartbeatResponse> reply) {
  if (auto* c = classic()) return c->handle_heartbeat(std::move(req), std::move(reply));
  if (auto* k = consumer()) return k->handle_heartbeat(std::move(req), std::move(reply));
}

void GroupHost::handle_leave(classic::LeaveGroupRequest req) {
  if (auto* c = classic()) return c->handle_leave(std::move(req));
  if (auto* k = consumer()) return k->handle_leave(std::move(req));
}

// GroupMetadataManager.getOrMaybeCreateConsumerGroup: only a joining member
// (epoch 0) may turn a classic group into a consumer group.
void GroupHost::handle_heartbeat(consumer::HeartbeatRequest req, consumer::Reply<consumer::HeartbeatResponse> reply) {
  if (auto* c = classic(); c && req.member_epoch == consumer::kJoinEpoch) {
    if (c->state() == classic::GroupState::Empty) replace_with_new_consumer_group();
    else if (allows("upgrade")) convert_to_consumer();
  }
  if (auto* k = consumer()) return k->handle_heartbeat(std::move(req), std::move(reply));
  if (!classic()) return;
  consumer::HeartbeatResponse r;
  r.error = consumer::Error::GroupIdNotFound;  // "Group ... is not a consumer group"
  r.member_id = req.member_id;
  reply(std::move(r));
}

// ------------------------------------------------------------------ migration

// ConsumerGroup.fromClassicGroup: the group epoch continues the generation;
// each member is Stable at it, owning (and targeted at) its assignment of the
// last completed SyncGroup (empty for a member added since, or for all after
// a rebalance reset the assignments). What a member is still revoking is not
// in it: the converted group takes it for free (Kafka's own overlap, which
// the checkers report apart).
void GroupHost::convert_to_consumer() {
  classic::ClassicCoordinator& c = *classic();
  c.abandon_rebalance();
  const classic::PersistedGroup g = c.in_memory();
  std::vector<consumer::MemberView> members;
  for (const auto& seed : g.members) {
    consumer::MemberView v;
    v.member_id = seed.member_id;
    v.client_id = seed.join.client_id;
    v.instance_id = seed.join.instance_id;
    v.topics = seed.join.subscription.topics;
    v.rebalance_timeout = seed.join.rebalance_timeout;
    v.classic = true;
    v.session_timeout = seed.join.session_timeout;
    v.assigned.insert(seed.assignment.partitions.begin(), seed.assignment.partitions.end());
    emit("conversion-assignment", {{"member", v.client_id}, {"resources", to_names(seed.assignment.partitions)}});
    members.push_back(v);
  }
  Consumer k = make_consumer();
  k->continue_member_numbers(c.next_member_number());
  coordinator_ = std::move(k);  // the classic coordinator and its timers are gone
  consumer()->adopt_classic_group(g.generation, members);
  watch_for_downgrade();
}

// maybeDeleteEmptyClassicGroup: an empty classic group is deleted and a new
// consumer group created, at epoch 0.
void GroupHost::replace_with_new_consumer_group() {
  const std::uint64_t next = classic()->next_member_number();
  emit("converted", {{"from", std::string("classic")}, {"epoch", std::int64_t{0}}, {"new-group", std::int64_t{1}}});
  coordinator_ = make_consumer();
  consumer()->continue_member_numbers(next);
  watch_for_downgrade();
}

// maybeDeleteEmptyConsumerGroup, for a classic JoinGroup.
void GroupHost::replace_with_new_classic_group() {
  const std::uint64_t next = consumer()->next_member_number();
  emit("converted", {{"from", std::string("consumer")}, {"epoch", std::int64_t{0}}, {"new-group", std::int64_t{1}}});
  coordinator_ = make_classic();
  classic()->continue_member_numbers(next);
}

// validateOnlineDowngradeWithFencedMember: the last consumer-protocol member
// left or was fenced, classic members remain, the policy allows it. The
// switch happens once the fencing operation is over.
void GroupHost::watch_for_downgrade() {
  consumer()->on_classic_only([this] {
    if (!allows("downgrade")) return;
    kernel_.schedule_in(Duration{0}, [this] {
      auto* k = consumer();
      if (k == nullptr || k->state().members.empty()) return;
      const auto& members = k->state().members;
      if (std::all_of(members.begin(), members.end(), [](const auto& e) { return e.second.classic; })) convert_to_classic();
    });
  });
}

// ClassicGroup.fromConsumerGroup: Stable at the group epoch, each member
// given its target assignment; then every member rejoins.
void GroupHost::convert_to_classic() {
  const consumer::GroupImage& st = consumer()->state();
  classic::PersistedGroup g;
  g.generation = st.group_epoch;
  for (const auto& [member_id, v] : st.members) {
    classic::SeedMember seed;
    seed.member_id = member_id;
    seed.join.member_id = member_id;
    seed.join.client_id = v.client_id;
    seed.join.instance_id = v.instance_id;
    seed.join.session_timeout = v.session_timeout;
    seed.join.rebalance_timeout = v.rebalance_timeout;
    seed.join.subscription.topics = v.topics;
    seed.join.subscription.owned = {v.assigned.begin(), v.assigned.end()};
    seed.join.subscription.client_id = v.client_id;
    if (auto t = st.target.find(member_id); t != st.target.end()) seed.assignment.partitions = {t->second.begin(), t->second.end()};
    g.members.push_back(seed);
  }
  g.leader = g.members.front().member_id;
  const std::uint64_t next = consumer()->next_member_number();
  emit("converted", {{"from", std::string("consumer")}, {"epoch", g.generation}});
  coordinator_ = make_classic();
  classic()->continue_member_numbers(next);
  classic()->load(g);
  classic()->rebalance("converted back from the consumer protocol");
}

// ------------------------------------------------------------------ failover

void GroupHost::failover(Duration down) {
  emit("failover", {{"down_us", down.count()}});
  if (up()) {
    if (auto* c = classic()) persisted_ = Persisted{c->persisted(), c->next_member_number()};
    if (auto* k = consumer()) {
      persisted_ = Persisted{k->log(), k->next_member_number()};
      check_replay(*k);
    }
    if (auto* g = streams()) {
      persisted_ = Persisted{g->log(), g->next_member_number()};
      check_replay(*g);
    }
    coordinator_ = std::monostate{};  // what was not persisted is lost with it
    network_.crash(classic_directory_.node);
    classic_directory_.available = consumer_directory_.available = streams_directory_.available = false;
    if (disconnect_) disconnect_();
  }
  back_timer_.arm_in(down, [this] { come_back(); });
}

// A state the log does not replay to is lost at the failover: a modelling
// error the invariants report (records-divergence).
template <class Group>
void GroupHost::check_replay(const Group& g) {
  if (auto d = epoch::image_difference(g.state(), epoch::replay(g.log())); !d.empty())
    emit("records-divergence", {{"difference", d}});
}

void GroupHost::come_back() {
  if (const auto* g = std::get_if<classic::PersistedGroup>(&persisted_.group)) {
    coordinator_ = make_classic();
    classic()->continue_member_numbers(persisted_.next_member_number);
    classic()->load(*g);
  } else if (const auto* log = std::get_if<std::vector<streams::Record>>(&persisted_.group)) {
    coordinator_ = make_streams();
    streams()->continue_member_numbers(persisted_.next_member_number);
    streams()->replay(*log);
  } else {
    coordinator_ = make_consumer();
    consumer()->continue_member_numbers(persisted_.next_member_number);
    consumer()->replay(std::get<std::vector<consumer::Record>>(persisted_.group));
    watch_for_downgrade();
  }
  network_.restart(classic_directory_.node);
  classic_directory_.available = consumer_directory_.available = streams_directory_.available = true;
}

void GroupHost::isolate(const std::string& member, NodeId node, Duration length) {
  network_.cut(node, classic_directory_.node);
  trace_.emit(kernel_.now(), member, "isolated", {{"for_us", length.count()}});
  kernel_.schedule_in(length, [this, node, member] {
    network_.heal(node, classic_directory_.node);
    trace_.emit(kernel_.now(), member, "reconnected");
  });
}

}  // namespace rsim::protocols
