#include "scenarios/runner.hpp"

#include "protocols/catalog.hpp"
#include "protocols/classic/coordinator.hpp"
#include "protocols/classic/member.hpp"
#include "protocols/consumer/member.hpp"
#include "protocols/assignors/server.hpp"
#include "scenarios/config_keys.hpp"
#include "scenarios/limits.hpp"
#include "scenarios/resources.hpp"
#include "scenarios/values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <memory>

namespace rsim::scenario {

namespace cl = protocols::classic;

std::string effective_protocol(const Scenario& s, const RunOptions& o) { return o.protocol.value_or(s.protocol); }

std::string effective_assignor(const Scenario& s, const RunOptions& o) {
  if (o.assignor) return *o.assignor;
  const std::string protocol = effective_protocol(s, o);
  if (s.assignor && !o.protocol) return *s.assignor;
  const auto* p = protocols::find_protocol(protocol);
  return p != nullptr ? std::string(p->default_assignor) : std::string();
}

namespace {

// What this build simulates. Everything else in the contract is loaded and
// validated, and refused here with a clear message.
void check_supported(const Scenario& s, const std::string& protocol, const std::string& assignor) {
  const auto* p = protocols::find_protocol(protocol);
  if (p == nullptr)
    throw InputError(s.file, s.protocol_mark, fmt::format("unknown protocol '{}'{}", protocol, did_you_mean(protocol, protocols::protocol_names())));
  if (!p->runnable)
    throw InputError(s.file, s.protocol_mark, fmt::format("protocol '{}' is part of the scenario contract but not simulated by this version yet; `rebalance-sim list` shows what runs", protocol));
  const auto* a = protocols::find_assignor(p->family, assignor);
  if (a == nullptr)
    throw InputError(s.file, s.assignor_mark, fmt::format("unknown {} assignor '{}'{}", protocols::family_name(p->family), assignor, did_you_mean(assignor, protocols::assignor_names(p->family))));
  if (!a->runnable)
    throw InputError(s.file, s.assignor_mark, fmt::format("assignor '{}' is not implemented by this version yet; `rebalance-sim list` shows what runs", assignor));
  if (!protocols::accepts(*p, assignor))
    throw InputError(s.file, s.assignor_mark, fmt::format("the {} protocol does not run assignor '{}'; it takes {}", protocol, assignor, protocols::accepted_assignors(*p)));
  if (!s.subtopologies.empty())
    throw InputError(s.file, s.subtopologies.front().mark, "Streams scenarios (topology:) are not simulated by this version yet");
  for (const auto& ev : s.events) {
    std::string to;
    if (const auto* u = std::get_if<Upgrade>(&ev.action)) to = u->to;
    if (const auto* u = std::get_if<RollingUpgrade>(&ev.action)) to = u->to;
    if (to.empty() || to == protocol) continue;  // to what it speaks already: a restart
    // Online migration: classic members upgrading to the consumer protocol.
    if (to != "consumer" || p->family != protocols::Family::Classic)
      throw InputError(s.file, ev.mark, fmt::format("'{}' to {} from the {} protocol is not simulated by this version yet (only classic protocols to consumer)", ev.kind, to, protocol));
    if (!s.connectors.empty())
      throw InputError(s.file, ev.mark, fmt::format("'{}' needs a consumer group; this scenario has connectors", ev.kind));
  }
}

// The members an upgrade event restarts speaking the consumer protocol.
std::set<std::string> upgraded_members(const Scenario& s) {
  std::set<std::string> out;
  for (const auto& ev : s.events) {
    if (const auto* u = std::get_if<Upgrade>(&ev.action)) out.insert(u->members.begin(), u->members.end());
    if (const auto* u = std::get_if<RollingUpgrade>(&ev.action)) out.insert(u->members.ids.begin(), u->members.ids.end());
  }
  return out;
}

// Resources by the names the loader already checked: TOPIC-N, CONNECTOR or
// CONNECTOR/N (see Topic::connector for how connectors are resources).
std::vector<protocols::TopicPartition> parse_resources(const Scenario& s, const std::vector<std::string>& names) {
  std::vector<protocols::TopicPartition> out;
  for (const auto& n : names) {
    if (const auto slash = n.rfind('/'); slash != std::string::npos) {
      out.push_back({protocols::Topic::connector(n.substr(0, slash)), static_cast<int>(*parse_integer(n.substr(slash + 1))) + 1});
    } else if (std::any_of(s.connectors.begin(), s.connectors.end(), [&](const Connector& c) { return c.name == n; })) {
      out.push_back({protocols::Topic::connector(n), 0});
    } else {
      const auto dash = n.rfind('-');
      out.push_back({n.substr(0, dash), static_cast<int>(*parse_integer(n.substr(dash + 1)))});
    }
  }
  return out;
}

// What a member runs: its subscription; in a Connect scenario, a worker
// without one runs any connector and task.
std::vector<std::string> resources_of(const Scenario& s, const std::vector<std::string>& subscribe) {
  if (!subscribe.empty() || s.connectors.empty()) return subscribe;
  std::vector<std::string> all;
  for (const auto& c : s.connectors) all.push_back(protocols::Topic::connector(c.name).name());
  return all;
}

std::string resource_name(const std::string& topic, int partition) {
  return protocols::to_string(protocols::TopicPartition{topic, partition});
}

// What the runner does to a member process, whatever protocol it speaks.
class Process {
 public:
  virtual ~Process() = default;
  virtual void start() = 0;
  virtual void crash() = 0;
  virtual void leave(std::function<void()> on_stopped = {}) = 0;
  virtual void pause(Duration length) = 0;
  virtual void slow(Duration batch, Duration length) = 0;
  virtual void subscribe(std::vector<std::string> topics) = 0;
  virtual void coordinator_disconnected() = 0;
  virtual NodeId node() const = 0;
  virtual bool running() const = 0;
};

template <class Member>
class ProcessOf final : public Process {
 public:
  template <class Ctx>
  ProcessOf(Ctx ctx, cl::MemberConfig config) : m(ctx, std::move(config)) {}
  void start() override { m.start(); }
  void crash() override { m.crash(); }
  void leave(std::function<void()> on_stopped) override { m.leave(std::move(on_stopped)); }
  void pause(Duration length) override { m.pause(length); }
  void slow(Duration batch, Duration length) override { m.slow(batch, length); }
  void subscribe(std::vector<std::string> topics) override { m.subscribe(std::move(topics)); }
  void coordinator_disconnected() override { m.coordinator_disconnected(); }
  NodeId node() const override { return m.node(); }
  bool running() const override { return m.running(); }
  Member m;
};

class GroupRun {
 public:
  GroupRun(const Scenario& s, std::string protocol, std::string assignor, std::uint64_t seed)
      : s_(s),
        network_(kernel_, trace_, s.latency, s.drop, Rng::stream(seed, "network")),
        consumer_(protocol == "consumer"),
        assignor_(consumer_ ? protocols::make_consumer_assignor(assignor) : protocols::make_classic_assignor(assignor)),
        protocol_name_(std::move(protocol)) {
    network_.set_bandwidth(s.bandwidth_bytes_per_s);
    if (consumer_) {
      consumer_coordinator_ = make_consumer_coordinator();
      consumer_directory_.coordinator = consumer_coordinator_.get();
    } else {
      coordinator_ = make_coordinator();
      directory_.coordinator = coordinator_.get();
    }
    directory_.node = consumer_directory_.node = network_.add_node("coordinator");
    directory_.bootstrap = consumer_directory_.bootstrap = network_.add_node("bootstrap");
    for (const auto& t : s.topics) metadata_[t.name] = t.partitions;
    for (const auto& c : s.connectors) metadata_[protocols::Topic::connector(c.name).name()] = c.tasks + 1;
    if (protocol_name_ == "cooperative") {
      embedded_ = std::make_unique<cl::CooperativeProtocol>();
    } else if (protocol_name_ == "deferred") {
      embedded_ = std::make_unique<cl::DeferredProtocol>(config_millis(s, "scheduled.rebalance.max.delay.ms"));
    } else if (protocol_name_ == "connect") {
      embedded_ = std::make_unique<cl::ConnectProtocol>(config_millis(s, "scheduled.rebalance.max.delay.ms"));
    } else if (protocol_name_ == "incremental") {
      embedded_ = std::make_unique<cl::IncrementalProtocol>(
          config_millis(s, "scheduled.rebalance.max.delay.ms"),
          static_cast<int>(config_integer(s, "incremental.max.moves.per.round")),
          config_millis(s, "incremental.round.interval.ms"));
    } else {
      embedded_ = std::make_unique<cl::EagerProtocol>();
    }
    upgraded_ = upgraded_members(s);
    if (!upgraded_.empty()) server_assignor_ = protocols::make_consumer_assignor("uniform");
    // Every process the scenario can start gets its node now, in a fixed
    // order, so node ids never depend on when events happen.
    for (const auto& m : s.members) add_member(m);
    for (const auto& ev : s.events) {
      if (const auto* j = std::get_if<Join>(&ev.action)) add_member(j->member);
      if (const auto* so = std::get_if<ScaleOut>(&ev.action))
        for (const auto& id : so->ids) add_member(MemberSpec{id, so->subscribe, std::nullopt, std::nullopt, ev.at, ev.mark});
    }
  }

  RunResult run(std::uint64_t seed, const std::string& assignor_name) {
    for (const auto& m : s_.members) subscribed(resources_of(s_, m.subscribe));  // the initial resources
    started_ = true;
    emit_config();
    start_members();
    for (const auto& ev : s_.events) schedule(ev);
    kernel_.run_until(time_at(s_.duration));
    RunResult r;
    r.protocol = protocol_name_;
    r.assignor = assignor_name;
    r.seed = seed;
    r.end = kernel_.now();
    for (const auto& t : s_.topics)
      if (group_topics_.count(t.name) != 0)
        for (int p = 0; p < metadata_.at(t.name); ++p) r.resources.push_back(resource_name(t.name, p));
    for (const auto& c : s_.connectors) {
      const std::string topic = protocols::Topic::connector(c.name).name();
      if (group_topics_.count(topic) != 0)
        for (int p = 0; p <= c.tasks; ++p) r.resources.push_back(resource_name(topic, p));
    }
    r.network = network_.stats();
    r.events_executed = kernel_.executed();
    r.trace = std::move(trace_);
    return r;
  }

 private:
  void add_member(const MemberSpec& spec) {
    if (members_.count(spec.id) != 0) return;  // a member that joins again reuses its process
    cl::MemberConfig c;
    c.client_id = spec.id;
    c.instance_id = spec.instance_id;
    c.topics = resources_of(s_, spec.subscribe);
    c.session_timeout = config_millis(s_, "session.timeout.ms");
    c.heartbeat_interval = config_millis(s_, "heartbeat.interval.ms");
    // A Connect worker's rebalance timeout (rebalance.timeout.ms) is also
    // its poll deadline; it has no max.poll.interval.ms.
    const char* deadline = s_.connectors.empty() ? "max.poll.interval.ms" : "rebalance.timeout.ms";
    c.rebalance_timeout = config_millis(s_, deadline);
    c.max_poll_interval = config_millis(s_, deadline);
    c.metadata_max_age = config_millis(s_, "metadata.max.age.ms");
    c.request_timeout = config_millis(s_, "request.timeout.ms");
    c.retry_backoff = config_millis(s_, "retry.backoff.ms");
    c.revoke_cost = s_.costs.revoke;
    c.assign_cost = s_.costs.assign;
    c.parallel = !s_.connectors.empty();  // Connect workers
    for (const auto& con : s_.connectors) {
      const std::string topic = protocols::Topic::connector(con.name).name();
      if (con.revoke_cost) c.revoke_cost_of_topic[topic] = *con.revoke_cost;
      if (con.assign_cost) c.assign_cost_of_topic[topic] = *con.assign_cost;
    }
    if (consumer_ || upgraded_.count(spec.id) != 0) {
      auto p = std::make_unique<ProcessOf<protocols::consumer::ConsumerMember>>(
          protocols::consumer::MemberContext{kernel_, network_, trace_, consumer_directory_}, c);
      consumer_members_[spec.id] = &p->m;
      if (consumer_) {
        members_.emplace(spec.id, std::move(p));
      } else {
        upgraded_processes_.emplace(spec.id, std::move(p));  // what the member restarts as
      }
    }
    if (!consumer_) {
      auto p = std::make_unique<ProcessOf<cl::ClassicMember>>(
          cl::MemberContext{kernel_, network_, trace_, directory_, metadata_, *assignor_, *embedded_}, c);
      classic_members_[spec.id] = &p->m;
      members_.emplace(spec.id, std::move(p));
    }
    order_.push_back(spec.id);
  }

  Process& member(const std::string& id) { return *members_.at(id); }

  std::unique_ptr<protocols::consumer::ConsumerCoordinator> make_consumer_coordinator() {
    return std::make_unique<protocols::consumer::ConsumerCoordinator>(
        kernel_, trace_, metadata_, server_assignor_ ? *server_assignor_ : *assignor_,
        protocols::consumer::CoordinatorConfig{config_millis(s_, "group.consumer.session.timeout.ms"),
                                               config_millis(s_, "group.consumer.heartbeat.interval.ms")});
  }

  // KIP-848: the group starts at epoch 1 with every member owning its part.
  void start_consumer_stable() {
    std::vector<protocols::consumer::MemberView> seeds;
    for (const auto& m : s_.members) {
      if (m.start != Duration{0}) continue;
      protocols::consumer::MemberView v;
      v.member_id = fmt::format("{}-0", m.id);
      v.client_id = m.id;
      v.instance_id = m.instance_id;
      v.topics = resources_of(s_, m.subscribe);
      v.rebalance_timeout = config_millis(s_, "max.poll.interval.ms");
      auto it = s_.initial_assignment->find(m.id);
      if (it != s_.initial_assignment->end())
        for (const auto& tp : parse_resources(s_, it->second)) v.assigned.insert(tp);
      seeds.push_back(v);
    }
    consumer_coordinator_->continue_member_numbers(1);
    consumer_coordinator_->seed_stable(seeds);
    for (const auto& v : seeds)
      consumer_members_.at(v.client_id)->start_stable(v.member_id, consumer_coordinator_->state().target_epoch,
                                                      {v.assigned.begin(), v.assigned.end()});
  }

  void emit_config() {
    trace_.emit(kTimeZero, "scenario", "run",
                {{"scenario", s_.name}, {"protocol", protocol_name_}, {"assignor", std::string(assignor_->name())}});
  }

  void start_members() {
    if (s_.initial_assignment && consumer_) {
      start_consumer_stable();
    } else if (s_.initial_assignment) {
      // The group is Stable at generation 1 with every member present at 0s.
      std::vector<cl::SeedMember> seeds;
      for (const auto& m : s_.members) {
        if (m.start != Duration{0}) continue;
        cl::SeedMember seed;
        seed.member_id = fmt::format("{}-0", m.id);
        auto it = s_.initial_assignment->find(m.id);
        if (it != s_.initial_assignment->end()) seed.assignment.partitions = parse_resources(s_, it->second);
        seed.join.client_id = m.id;
        seed.join.instance_id = m.instance_id;
        seed.join.session_timeout = config_millis(s_, "session.timeout.ms");
        seed.join.rebalance_timeout = config_millis(s_, s_.connectors.empty() ? "max.poll.interval.ms" : "rebalance.timeout.ms");
        seed.join.subscription = embedded_->subscription(*assignor_, resources_of(s_, m.subscribe),
                                                         seed.assignment.partitions, seed.assignment.partitions, 1);
        seeds.push_back(seed);
      }
      coordinator_->seed_stable(1, seeds);
      const std::string leader = seeds.empty() ? std::string() : seeds.front().member_id;
      std::map<std::string, std::vector<protocols::TopicPartition>> by_client, by_member;
      for (const auto& seed : seeds) {
        classic_members_.at(seed.join.client_id)->start_stable(seed.member_id, leader, 1, seed.assignment.partitions);
        by_client[seed.join.client_id] = seed.assignment.partitions;
        by_member[seed.member_id] = seed.assignment.partitions;
      }
      if (!seeds.empty()) classic_members_.at(seeds.front().join.client_id)->remember_assignment(by_client, by_member);
    }
    for (const auto& m : s_.members) {
      if (s_.initial_assignment && m.start == Duration{0}) continue;
      kernel_.schedule_at(time_at(m.start), [this, id = m.id] { member(id).start(); });
    }
  }

  // Marks a disruption in the trace: time-to-stable is measured from here.
  void disruption(const std::string& action, const std::string& member_id) {
    trace_.emit(kernel_.now(), "scenario", "disruption", {{"action", action}, {"member", member_id}});
  }

  void bounce(const std::string& id, Duration down) {
    disruption("bounce", id);
    member(id).crash();
    kernel_.schedule_in(down, [this, id] { start_again(id); });
  }

  void restart(const std::string& id, Duration down) {
    disruption("restart", id);
    member(id).leave([this, id, down] {
      kernel_.schedule_in(down, [this, id] { start_again(id); });
    });
  }

  std::unique_ptr<cl::ClassicCoordinator> make_coordinator() {
    return std::make_unique<cl::ClassicCoordinator>(
        kernel_, trace_, cl::CoordinatorConfig{config_millis(s_, "group.initial.rebalance.delay.ms")});
  }

  // The coordinator's broker fails: connections to it break, in-flight
  // requests are lost; after `down` another broker loads the group from what
  // was persisted and members find it through FindCoordinator.
  // Online migration: a classic member restarts speaking the consumer
  // protocol. The first to do so converts the group (once it is Stable: no
  // rebalance in flight), as Kafka converts a classic group when a consumer
  // member joins it; the classic members then talk to the consumer group's
  // coordinator through the classic protocol.
  void upgrade(const std::string& id, Duration down) {
    disruption("upgrade", id);
    member(id).leave([this, id, down] { kernel_.schedule_in(down, [this, id] { start_upgraded(id); }); });
  }

  void start_upgraded(const std::string& id) {
    if (!converted()) {
      if (coordinator_ == nullptr || coordinator_->state() != cl::GroupState::Stable) {
        kernel_.schedule_in(std::chrono::milliseconds(10), [this, id] { start_upgraded(id); });
        return;
      }
      const std::string policy = config_text(s_, "group.consumer.migration.policy");
      if (policy != "bidirectional" && policy != "upgrade") {
        // A consumer member cannot join a classic group that may not upgrade.
        trace_.emit(kernel_.now(), id, "join-refused",
                    {{"error", std::string("INCONSISTENT_GROUP_PROTOCOL")}, {"reason", "group.consumer.migration.policy is " + policy}});
        return;
      }
      convert_group();
    }
    auto it = upgraded_processes_.find(id);
    if (it != upgraded_processes_.end()) {
      members_[id] = std::move(it->second);
      upgraded_processes_.erase(it);
      speaks_consumer_.insert(id);
    }
    if (!member(id).running()) member(id).start();
  }

  // A process back after a bounce or restart. One speaking the consumer
  // protocol in a group that is classic (again) converts it first.
  void start_again(const std::string& id) {
    if (member(id).running()) return;
    if (!consumer_ && !converted() && speaks_consumer_.count(id) != 0) {
      start_upgraded(id);
      return;
    }
    member(id).start();
  }

  bool converted() const { return consumer_coordinator_ != nullptr; }

  void convert_group() {
    const cl::PersistedGroup g = coordinator_->persisted();
    std::vector<protocols::consumer::MemberView> members;
    for (const auto& seed : g.members) {
      protocols::consumer::MemberView v;
      v.member_id = seed.member_id;
      v.client_id = seed.join.client_id;
      v.instance_id = seed.join.instance_id;
      v.topics = seed.join.subscription.topics;
      v.rebalance_timeout = seed.join.rebalance_timeout;
      v.classic = true;
      v.session_timeout = seed.join.session_timeout;
      v.assigned.insert(seed.assignment.partitions.begin(), seed.assignment.partitions.end());
      members.push_back(v);
    }
    consumer_coordinator_ = make_consumer_coordinator();
    consumer_coordinator_->continue_member_numbers(coordinator_->next_member_number());
    consumer_coordinator_->adopt_classic_group(g.generation, members);
    consumer_directory_.coordinator = consumer_coordinator_.get();
    directory_.coordinator = consumer_coordinator_.get();
    coordinator_.reset();
    watch_for_downgrade();
  }

  // The way back: when the last member speaking the consumer protocol leaves
  // and the policy allows it, the group turns classic again and its members
  // rejoin (Kafka's convertToClassicGroup).
  void watch_for_downgrade() {
    const std::string policy = config_text(s_, "group.consumer.migration.policy");
    if (policy != "bidirectional" && policy != "downgrade") return;
    consumer_coordinator_->on_classic_only([this] {
      kernel_.schedule_in(Duration{0}, [this] {
        if (converted() && consumer_coordinator_->state().members.size() > 0) convert_back();
      });
    });
  }

  void convert_back() {
    const auto& st = consumer_coordinator_->state();
    if (!std::all_of(st.members.begin(), st.members.end(), [](const auto& e) { return e.second.classic; })) return;
    cl::PersistedGroup g;
    g.generation = st.group_epoch;
    for (const auto& [member_id, v] : st.members) {
      cl::SeedMember seed;
      seed.member_id = member_id;
      seed.join.member_id = member_id;
      seed.join.client_id = v.client_id;
      seed.join.instance_id = v.instance_id;
      seed.join.session_timeout = v.session_timeout;
      seed.join.rebalance_timeout = v.rebalance_timeout;
      seed.join.subscription.topics = v.topics;
      seed.join.subscription.owned = {v.assigned.begin(), v.assigned.end()};
      seed.join.subscription.client_id = v.client_id;
      seed.assignment.partitions = {v.assigned.begin(), v.assigned.end()};
      g.members.push_back(seed);
    }
    g.leader = g.members.front().member_id;
    trace_.emit(kernel_.now(), "coordinator", "converted", {{"from", std::string("consumer")}, {"epoch", g.generation}});
    coordinator_ = make_coordinator();
    coordinator_->continue_member_numbers(consumer_coordinator_->next_member_number());
    directory_.coordinator = coordinator_.get();
    consumer_directory_.coordinator = nullptr;
    consumer_coordinator_.reset();
    coordinator_->load(g);
    coordinator_->rebalance("converted back from the consumer protocol");
  }

  void failover(Duration down) {
    trace_.emit(kernel_.now(), "coordinator", "failover", {{"down_us", down.count()}});
    if (converted()) {
      // KIP-848: a new coordinator replays the group's records.
      network_.crash(directory_.node);
      consumer_directory_.available = false;
      directory_.available = false;
      const auto log = consumer_coordinator_->log();
      const std::uint64_t next_number = consumer_coordinator_->next_member_number();
      consumer_directory_.coordinator = nullptr;
      directory_.coordinator = nullptr;
      consumer_coordinator_.reset();
      for (const auto& id : order_) member(id).coordinator_disconnected();
      kernel_.schedule_in(down, [this, log, next_number] {
        consumer_coordinator_ = make_consumer_coordinator();
        consumer_coordinator_->continue_member_numbers(next_number);
        consumer_coordinator_->replay(log);
        consumer_directory_.coordinator = consumer_coordinator_.get();
        directory_.coordinator = consumer_coordinator_.get();
        network_.restart(directory_.node);
        consumer_directory_.available = true;
        directory_.available = true;
      });
      return;
    }
    network_.crash(directory_.node);
    directory_.available = false;
    const cl::PersistedGroup persisted = coordinator_->persisted();
    const std::uint64_t next_number = coordinator_->next_member_number();
    directory_.coordinator = nullptr;
    coordinator_.reset();
    for (const auto& id : order_) member(id).coordinator_disconnected();
    kernel_.schedule_in(down, [this, persisted, next_number] {
      coordinator_ = make_coordinator();
      coordinator_->continue_member_numbers(next_number);
      coordinator_->load(persisted);
      directory_.coordinator = coordinator_.get();
      network_.restart(directory_.node);
      directory_.available = true;
    });
  }

  // The group's resources are the partitions of the topics its members
  // subscribe to; a topic's partitions join them when it gets its first
  // subscriber, and grow with add-partitions.
  void subscribed(const std::vector<std::string>& topics) {
    for (const auto& t : topics) {
      if (!group_topics_.insert(t).second || !started_) continue;
      std::vector<std::string> added;
      for (int p = 0; p < metadata_.at(t); ++p) added.push_back(resource_name(t, p));
      trace_.emit(kernel_.now(), "scenario", "resources-added", {{"topic", t}, {"resources", added}});
    }
  }

  void add_partitions(const std::string& topic, int count) {
    int& current = metadata_.at(topic);
    std::vector<std::string> added;
    for (int p = current; p < count; ++p) added.push_back(partition_name(topic, p));
    current = count;
    if (group_topics_.count(topic) != 0)
      trace_.emit(kernel_.now(), "scenario", "resources-added", {{"topic", topic}, {"resources", added}});
  }

  void schedule(const Event& ev) {
    kernel_.schedule_at(time_at(ev.at), [this, &ev] { apply(ev); });
  }

  void apply(const Event& ev) {
    std::visit(
        [&](const auto& a) {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, Join>) {
            disruption("join", a.member.id);
            subscribed(resources_of(s_, a.member.subscribe));
            member(a.member.id).start();
          } else if constexpr (std::is_same_v<A, Leave>) {
            disruption("leave", a.member);
            member(a.member).leave();
          } else if constexpr (std::is_same_v<A, Crash>) {
            disruption("crash", a.member);
            member(a.member).crash();
          } else if constexpr (std::is_same_v<A, Bounce>) {
            bounce(a.member, a.down);
          } else if constexpr (std::is_same_v<A, Restart>) {
            restart(a.member, a.down);
          } else if constexpr (std::is_same_v<A, Pause>) {
            disruption("pause", a.member);
            member(a.member).pause(a.length);
          } else if constexpr (std::is_same_v<A, Slow>) {
            disruption("slow", a.member);
            member(a.member).slow(a.batch, a.length);
          } else if constexpr (std::is_same_v<A, Subscribe>) {
            disruption("subscribe", a.member);
            subscribed(a.topics);
            member(a.member).subscribe(a.topics);
          } else if constexpr (std::is_same_v<A, AddPartitions>) {
            disruption("add-partitions", a.topic);
            add_partitions(a.topic, a.count);
          } else if constexpr (std::is_same_v<A, CoordinatorFailover>) {
            disruption("coordinator-failover", "");
            failover(a.down);
          } else if constexpr (std::is_same_v<A, RollingBounce> || std::is_same_v<A, RollingRestart>) {
            Duration offset{0};
            for (const auto& id : a.members.ids) {
              kernel_.schedule_in(offset, [this, id, down = a.down] {
                if constexpr (std::is_same_v<A, RollingBounce>) bounce(id, down);
                else restart(id, down);
              });
              offset += a.interval;
            }
          } else if constexpr (std::is_same_v<A, ScaleOut>) {
            subscribed(resources_of(s_, a.subscribe));
            for (const auto& id : a.ids) {
              disruption("join", id);
              member(id).start();
            }
          } else if constexpr (std::is_same_v<A, ScaleIn>) {
            for (const auto& id : a.members) {
              disruption("leave", id);
              member(id).leave();
            }
          } else if constexpr (std::is_same_v<A, Upgrade>) {
            for (const auto& id : a.members) upgrade(id, a.down);
          } else if constexpr (std::is_same_v<A, RollingUpgrade>) {
            Duration offset{0};
            for (const auto& id : a.members.ids) {  // `all` is resolved by the loader
              kernel_.schedule_in(offset, [this, id, down = a.down] { upgrade(id, down); });
              offset += a.interval;
            }
          } else if constexpr (std::is_same_v<A, Isolate>) {
            disruption("isolate", a.member);
            const NodeId node = member(a.member).node();
            network_.cut(node, directory_.node);
            trace_.emit(kernel_.now(), a.member, "isolated", {{"for_us", a.length.count()}});
            kernel_.schedule_in(a.length, [this, node, id = a.member] {
              network_.heal(node, directory_.node);
              trace_.emit(kernel_.now(), id, "reconnected");
            });
          } else {
            // check_supported() refused every other kind before the run.
            std::abort();
          }
        },
        ev.action);
  }

  const Scenario& s_;
  Kernel kernel_;
  Trace trace_;
  Network network_;
  bool consumer_;  // the KIP-848 protocol, else the classic family
  std::unique_ptr<cl::ClassicCoordinator> coordinator_;
  cl::CoordinatorDirectory directory_;
  std::unique_ptr<protocols::consumer::ConsumerCoordinator> consumer_coordinator_;
  protocols::consumer::Directory consumer_directory_;
  cl::Metadata metadata_;
  std::unique_ptr<protocols::Assignor> assignor_;
  std::unique_ptr<cl::EmbeddedProtocol> embedded_;
  std::string protocol_name_;
  std::map<std::string, std::unique_ptr<Process>> members_;
  std::map<std::string, cl::ClassicMember*> classic_members_;
  std::map<std::string, protocols::consumer::ConsumerMember*> consumer_members_;
  std::set<std::string> upgraded_;  // members an upgrade event restarts under the consumer protocol
  std::set<std::string> speaks_consumer_;  // upgraded members that have restarted
  std::map<std::string, std::unique_ptr<Process>> upgraded_processes_;
  std::unique_ptr<protocols::Assignor> server_assignor_;  // the converted group's
  std::vector<std::string> order_;
  std::set<std::string> group_topics_;
  bool started_ = false;
};

}  // namespace

RunResult run(const Scenario& scenario, const RunOptions& options) {
  const std::string protocol = effective_protocol(scenario, options);
  const std::string assignor = effective_assignor(scenario, options);
  check_supported(scenario, protocol, assignor);
  check_budget(scenario, protocol);  // `--protocol` may change the heartbeat interval the loader budgeted
  const std::uint64_t seed = options.seed.value_or(scenario.seed);
  GroupRun group(scenario, protocol, assignor, seed);
  return group.run(seed, assignor);
}

}  // namespace rsim::scenario
