#include "scenarios/runner.hpp"

#include "protocols/catalog.hpp"
#include "protocols/classic/member.hpp"
#include "protocols/consumer/member.hpp"
#include "protocols/streams/classic_leader.hpp"
#include "protocols/streams/classic_thread.hpp"
#include "protocols/streams/exec_task_assignor.hpp"
#include "protocols/assignors/exec.hpp"
#include "protocols/assignors/server.hpp"
#include "protocols/group_host.hpp"
#include "scenarios/assignor_lists.hpp"
#include "scenarios/group_topics.hpp"
#include "scenarios/limits.hpp"
#include "scenarios/member_config.hpp"
#include "scenarios/member_slot.hpp"
#include "scenarios/resources.hpp"
#include "scenarios/streams_group.hpp"
#include "scenarios/supported.hpp"

#include <map>
#include <memory>
#include <set>
#include <utility>

namespace rsim::scenario {

namespace cl = protocols::classic;

namespace {

// The run's plug-in process, when its assignor is one: every side that asks
// (the run's assignor, members' lists) speaks to this one process.
std::shared_ptr<protocols::PluginSession> plugin_session(const AssignorExec* exec) {
  if (exec == nullptr) return nullptr;
  return std::make_shared<protocols::PluginSession>(
      protocols::ExecSettings{exec->command, std::chrono::duration_cast<std::chrono::milliseconds>(exec->timeout)});
}

// The run's assignor: a built-in by name, or the plug-in, told which side of
// which protocol asks and held to that protocol's rules.
std::unique_ptr<protocols::Assignor> make_assignor(const std::string& protocol, const std::string& assignor,
                                                   const std::shared_ptr<protocols::PluginSession>& plugin) {
  if (assignor == "exec") {
    const auto side = protocol == "consumer"  ? protocols::AssignorSide::ConsumerGroup
                      : protocol == "connect" ? protocols::AssignorSide::ConnectLeader
                                              : protocols::AssignorSide::ClientLeader;
    // These revoke before they reassign; incremental asks for a target and withholds itself.
    const bool cooperative = protocol == "cooperative" || protocol == "deferred" || protocol == "connect";
    return std::make_unique<protocols::ExecAssignor>(plugin, side, protocol, cooperative);
  }
  return protocol == "consumer" ? protocols::make_consumer_assignor(assignor) : protocols::make_classic_assignor(assignor);
}

// A Streams group's task assignor when it is the plug-in; null: the built-in sticky.
std::unique_ptr<protocols::streams::TaskAssignor> make_task_assignor(const std::string& protocol, const std::string& assignor,
                                                                      const std::shared_ptr<protocols::PluginSession>& plugin) {
  if (protocol != "streams" || assignor != "exec") return nullptr;
  return std::make_unique<protocols::streams::ExecTaskAssignor>(plugin);
}

class GroupRun {
 public:
  GroupRun(const Scenario& s, std::string protocol, std::string assignor, std::uint64_t seed, const AssignorExec* exec,
           std::ostream* records)
      : s_(s),
        records_(records ? std::make_unique<protocols::epoch::RecordsOut>(*records) : nullptr),
        network_(kernel_, trace_, s.latency, s.drop, Rng::stream(seed, "network")),
        consumer_(protocol == "consumer"),
        kip1071_(protocol == "streams"),
        topics_(s, kernel_, trace_),
        snapshots_(topics_.metadata(), topics_.version()),
        streams_(!s.subtopologies.empty() ? std::make_unique<StreamsGroup>(s, topics_.metadata()) : nullptr),
        plugin_(plugin_session(exec)),
        assignor_(make_assignor(protocol, assignor, plugin_)),
        task_assignor_(make_task_assignor(protocol, assignor, plugin_)),
        server_assignor_(consumer_ ? nullptr : protocols::make_consumer_assignor("uniform")),
        host_(kernel_, trace_, network_, topics_.metadata(), consumer_ ? *assignor_ : *server_assignor_,
              host_config(s, records_.get(), task_assignor_.get(), topics_)),
        protocol_name_(std::move(protocol)),
        lists_(s, protocol_name_, assignor, plugin_) {
    network_.set_bandwidth(s.bandwidth_bytes_per_s);
    if (s.drop_until) network_.set_drop_until(time_at(*s.drop_until));
    embedded_ = make_strategy();
    upgraded_ = upgraded_members(s);
    host_.on_disconnect([this] {
      for (const auto& id : order_) slots_.at(id).current().coordinator_disconnected();
    });
    // Every process the scenario can start gets its node now, in a fixed
    // order, so node ids never depend on when events happen.
    for (const auto& m : s.members) add_member(m);
    for (const auto& ev : s.events) {
      if (const auto* j = std::get_if<Join>(&ev.action)) add_member(j->member);
      if (const auto* so = std::get_if<ScaleOut>(&ev.action))
        for (const auto& id : so->ids) add_member(scaled_out(id, so->subscribe, ev));
    }
  }

  std::string stopped_at(const std::exception& e) const {
    return fmt::format("at {} (simulated): {}", format_duration(kernel_.now().time_since_epoch()), e.what());
  }

  void keep_routine(bool keep) { trace_.keep_routine(keep); }

  RunResult run(std::uint64_t seed, const std::string& assignor_name, const std::function<void(Time, Time)>& progress,
                RunObserver* observer, bool keep_trace) {
    const std::vector<std::string>* last = nullptr;  // members made by `count` subscribe alike: once each
    for (const auto& m : s_.members) {
      if (last == nullptr || *last != m.subscribe) topics_.initial(resources_of(s_, m.subscribe));
      last = &m.subscribe;
    }
    const Time horizon = time_at(s_.duration);
    if (observer) {  // told what the processes' creation emitted, then the run
      ResourceFilter is_resource = [](const std::string&) { return true; };
      if (streams_) is_resource = [this](const std::string& r) { return streams_->is_task(r); };
      observer->start(resources(), horizon, std::move(is_resource));
      trace_.observe(observer, keep_trace);
    }
    std::vector<TraceField> run{{"scenario", s_.name}, {"protocol", protocol_name_}, {"assignor", std::string(assignor_->name())}};
    if (instance_ids_dropped_) run.push_back({"instance-ids", "ignored"});  // said where the run starts
    trace_.emit(kTimeZero, "scenario", "run", std::move(run));
    try {
      play(horizon, progress);
    } catch (const protocols::PluginRefusal& e) {  // the run cannot go on: say when it stopped, keep the kind
      throw protocols::PluginRefusal(stopped_at(e));
    } catch (const protocols::PluginError& e) {
      throw protocols::PluginError(stopped_at(e));
    }
    trace_.observe(nullptr, true);  // the result's trace outlives the observer
    RunResult r;
    r.protocol = protocol_name_;
    r.assignor = assignor_name;
    r.seed = seed;
    r.end = kernel_.now();
    r.resources = resources();
    r.network = network_.stats();
    r.events_executed = kernel_.executed();
    r.trace = std::move(trace_);
    return r;
  }

 private:
  std::vector<std::string> resources() const { return streams_ ? streams_->tasks() : topics_.resources(); }

  void play(Time horizon, const std::function<void(Time, Time)>& progress) {
    start_members();
    for (const auto& ev : s_.events) schedule(ev);
    if (progress) {
      constexpr std::int64_t kSlices = 100;
      for (std::int64_t i = 1; i < kSlices; ++i) {
        kernel_.run_until(time_at(Duration{s_.duration.count() / kSlices * i}));
        progress(kernel_.now(), horizon);
      }
    }
    kernel_.run_until(horizon);
    if (progress) progress(kernel_.now(), horizon);
  }

  std::unique_ptr<cl::EmbeddedProtocol> make_strategy() const {
    if (streams_ && !kip1071_)  // a Streams application over the classic protocol
      return protocols::streams::make_classic_streams_protocol(streams_->topology(), streams_assignment_configs(s_),
                                                               protocol_name_ == "cooperative", changelog_records(s_));
    const auto* p = protocols::find_protocol(protocol_name_);
    return p->make_strategy ? p->make_strategy(strategy_settings(s_)) : nullptr;  // the consumer protocol has none
  }

  template <class Member, class Context>
  Member& make_process(Context ctx, cl::MemberConfig config) {
    auto p = std::make_unique<Member>(ctx, std::move(config));
    Member& m = *p;
    processes_.push_back(std::move(p));
    return m;
  }

  void add_member(const MemberSpec& spec) {
    if (slots_.count(spec.id) != 0) return;  // a member that joins again reuses its process
    cl::MemberConfig c = member_config(s_, spec);
    if (c.instance_id && !protocols::sends_instance_id(protocol_name_)) {  // a Connect worker: dynamic
      c.instance_id.reset();
      instance_ids_dropped_ = true;
    }
    c.topics = shared_subscription(c.topics);
    if (lists_.apply() && !spec.assignors.empty()) lists_.configure(c, spec.assignors);
    const protocols::consumer::MemberContext consumer_ctx{kernel_, network_, trace_, host_.consumer_directory()};
    protocols::MemberProcess* upgraded = nullptr;
    protocols::MemberProcess* speaks = nullptr;
    if (streams_ && !kip1071_) {
      threads_.push_back(std::make_unique<protocols::streams::ClassicThread>(
          kernel_, trace_, streams_->state(), spec.id, streams_identity(spec).process_id, c.assign_cost, s_.costs.record_bytes));
      c.tasks = threads_.back().get();
      c.topics = shared_subscription(streams_->topology().external_source_topics());
      trace_.emit(kTimeZero, "scenario", "process", {{"member", spec.id}, {"process", streams_identity(spec).process_id}});
    } else if (streams_) {
      const protocols::streams::MemberContext ctx{kernel_, network_, trace_, host_.streams_directory(), streams_->state(),
                                                        streams_->topology()};
      processes_.push_back(std::make_unique<protocols::streams::StreamsMember>(ctx, c, streams_identity(spec)));
      streams_members_[spec.id] = static_cast<protocols::streams::StreamsMember*>(processes_.back().get());
      trace_.emit(kTimeZero, "scenario", "process", {{"member", spec.id}, {"process", streams_identity(spec).process_id}});
      speaks = processes_.back().get();
    } else if (consumer_ || upgraded_.count(spec.id) != 0) {
      auto& m = make_process<protocols::consumer::ConsumerMember>(consumer_ctx, c);
      consumer_members_[spec.id] = &m;
      c.node = m.node();  // the member's processes share its node
      (consumer_ ? speaks : upgraded) = processes_.back().get();
    }
    if (!consumer_ && !kip1071_) {
      auto& m = make_process<cl::ClassicMember>(
          cl::MemberContext{kernel_, network_, trace_, host_.classic_directory(), topics_.metadata(), *assignor_, *embedded_, &snapshots_},
          c);
      classic_members_[spec.id] = &m;
      speaks = processes_.back().get();
    }
    MemberSlot& slot = slots_.try_emplace(spec.id, kernel_, *speaks, upgraded).first->second;
    if (streams_)
      slot.on_alive([this, process = streams_identity(spec).process_id](bool alive) {
        streams_->state().member_alive(process, alive, kernel_.now());
      });
    order_.push_back(spec.id);
  }

  static MemberSpec scaled_out(const std::string& id, const std::vector<std::string>& subscribe, const Event& ev) {
    MemberSpec m;
    m.id = id;
    m.subscribe = subscribe;
    m.start = ev.at;
    m.mark = ev.mark;
    return m;
  }

  MemberSlot& member(const std::string& id) { return slots_.at(id); }

  // Members subscribing alike share one list: the leader's snapshot and the
  // checks of a subscription's topics then find them equal by pointer, not
  // by comparing 1,000 names per member (issue 16).
  protocols::TopicNames shared_subscription(const protocols::TopicNames& topics) {
    return subscriptions_.try_emplace(topics.list(), topics).first->second;
  }

  // KIP-848: the group starts at epoch 1 with every member owning its part.
  void start_consumer_stable() {
    std::vector<protocols::consumer::MemberView> seeds;
    const ResourceIndex index(s_);
    for (const auto& m : s_.members)
      if (m.start == Duration{0}) seeds.push_back(consumer_seed(s_, index, m));
    auto& coordinator = host_.start_consumer();
    coordinator.continue_member_numbers(1);
    coordinator.seed_stable(seeds);
    for (const auto& v : seeds) {
      consumer_members_.at(v.client_id)->start_stable(v.member_id, coordinator.state().target_epoch,
                                                      {v.assigned.begin(), v.assigned.end()});
      member(v.client_id).started();
    }
  }

  // The group is Stable at generation 1 with every member present at 0s; the
  // first is the leader and knows the assignment.
  void start_classic_stable() {
    std::vector<cl::SeedMember> seeds;
    const ResourceIndex index(s_);
    for (const auto& m : s_.members)
      if (m.start == Duration{0}) {
        seeds.push_back(classic_seed(s_, index, m, *embedded_, *assignor_));
        if (!protocols::sends_instance_id(protocol_name_)) seeds.back().join.instance_id.reset();
        seeds.back().join.protocols = lists_.listed(m, std::string(assignor_->name()));
      }
    host_.start_classic().seed_stable(1, seeds);
    const std::string leader = seeds.empty() ? std::string() : seeds.front().member_id;
    std::map<std::string, std::vector<protocols::TopicPartition>> by_client, by_member;
    for (const auto& seed : seeds) {
      classic_members_.at(seed.join.client_id)->start_stable(seed.member_id, leader, 1, seed.assignment.partitions);
      member(seed.join.client_id).started();
      by_client[seed.join.client_id] = seed.assignment.partitions;
      by_member[seed.member_id] = seed.assignment.partitions;
    }
    if (!seeds.empty()) classic_members_.at(seeds.front().join.client_id)->remember_assignment(by_client, by_member);
  }

  // KIP-1071: the group starts at epoch 1, every member present at 0s owning
  // its initial active tasks and the standbys the coordinator places.
  void start_streams_stable() {
    namespace st = protocols::streams;
    std::vector<std::pair<st::HeartbeatRequest, st::TaskSet>> seeds;
    for (const auto& m : s_.members) {
      if (m.start != Duration{0}) continue;
      st::HeartbeatRequest req = streams_members_.at(m.id)->join_request();
      req.member_id = fmt::format("{}-0", m.id);
      st::TaskSet actives;
      if (auto it = s_.initial_assignment->find(m.id); it != s_.initial_assignment->end())
        for (const auto& name : it->second) actives.insert(*st::parse_task(name));
      seeds.emplace_back(std::move(req), std::move(actives));
    }
    auto& coordinator = host_.start_streams(streams_->topology());
    coordinator.continue_member_numbers(1);
    coordinator.seed_stable(seeds);
    for (const auto& [req, actives] : seeds) {
      const auto& view = coordinator.state().members.at(req.member_id);
      streams_members_.at(req.client_id)->start_seeded(req.member_id, coordinator.state().target_epoch, st::units_of(view.assigned));
      member(req.client_id).started();
    }
  }

  void start_members() {
    if (kip1071_ && s_.initial_assignment) {
      start_streams_stable();
    } else if (kip1071_) {
      host_.start_streams(streams_->topology());
    } else if (s_.initial_assignment) {
      if (consumer_) start_consumer_stable();
      else start_classic_stable();
    } else if (consumer_) {
      host_.start_consumer();
    } else {
      host_.start_classic();
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
  // The same, for what the scenario does to a member: the member.
  MemberSlot& disrupt(const std::string& action, const std::string& member_id) {
    disruption(action, member_id);
    return member(member_id);
  }

  void schedule(const Event& ev) {
    kernel_.schedule_at(time_at(ev.at), [this, &ev] { apply(ev); });
  }

  // One step of a rolling event, `interval` after the previous one.
  template <class Step>
  void rolling(const std::vector<std::string>& ids, Duration interval, Step step) {
    Duration offset{0};
    for (const auto& id : ids) {
      kernel_.schedule_in(offset, [id, step] { step(id); });
      offset = later(time_at(offset), interval).time_since_epoch();
    }
  }



  void apply(const Event& ev) {
    std::visit(
        [&](const auto& a) {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, Join>) {
            disruption("join", a.member.id);
            topics_.subscribed(resources_of(s_, a.member.subscribe));
            member(a.member.id).start();
          } else if constexpr (std::is_same_v<A, Leave>) {
            disrupt("leave", a.member).leave();
          } else if constexpr (std::is_same_v<A, Crash>) {
            disrupt("crash", a.member).crash();
          } else if constexpr (std::is_same_v<A, Bounce>) {
            disrupt("bounce", a.member).bounce(a.down);
          } else if constexpr (std::is_same_v<A, Restart>) {
            disrupt("restart", a.member).restart(a.down);
          } else if constexpr (std::is_same_v<A, Pause>) {
            disrupt("pause", a.member).current().pause(a.length);
          } else if constexpr (std::is_same_v<A, Slow>) {
            disrupt("slow", a.member).current().slow(a.batch, a.length);
          } else if constexpr (std::is_same_v<A, Subscribe>) {
            disruption("subscribe", a.member);
            topics_.subscribed(a.topics);
            member(a.member).subscribe(a.topics);
          } else if constexpr (std::is_same_v<A, AddPartitions>) {
            disruption("add-partitions", a.topic);
            topics_.add_partitions(a.topic, a.count);
            if (streams_) streams_->topics_changed(trace_, kernel_.now());
          } else if constexpr (std::is_same_v<A, CreateTopic>) {
            disruption("create-topic", a.topic);
            topics_.create(a.topic, a.partitions);
            streams_->topics_changed(trace_, kernel_.now());
          } else if constexpr (std::is_same_v<A, CoordinatorFailover>) {
            disruption("coordinator-failover", "");
            host_.failover(a.down);
          } else if constexpr (std::is_same_v<A, RollingBounce>) {
            rolling(a.members.ids, a.interval, [this, down = a.down](const std::string& id) {
              disrupt("bounce", id).bounce(down);
            });
          } else if constexpr (std::is_same_v<A, RollingRestart>) {
            rolling(a.members.ids, a.interval, [this, down = a.down](const std::string& id) {
              disrupt("restart", id).restart(down);
            });
          } else if constexpr (std::is_same_v<A, ScaleOut>) {
            topics_.subscribed(resources_of(s_, a.subscribe));
            for (const auto& id : a.ids) disrupt("join", id).start();
          } else if constexpr (std::is_same_v<A, ScaleIn>) {
            for (const auto& id : a.members) disrupt("leave", id).leave();
          } else if constexpr (std::is_same_v<A, Upgrade>) {
            for (const auto& id : a.members) upgrade(id, a.down, a.to, a.assignors);
          } else if constexpr (std::is_same_v<A, RollingUpgrade>) {
            rolling(a.members.ids, a.interval, [this, &a](const std::string& id) { upgrade(id, a.down, a.to, a.assignors); });
          } else if constexpr (std::is_same_v<A, Isolate>) {
            host_.isolate(a.member, disrupt("isolate", a.member).current().node(), a.length);
          } else {
            // check_supported() refused every other kind before the run.
            std::abort();
          }
        },
        ev.action);
  }

  // Online migration: the member restarts speaking the consumer protocol
  // (a restart to what it speaks already, in a consumer group). Its first
  // heartbeat converts the group (GroupHost).
  void upgrade(const std::string& id, Duration down, const std::string& to, const std::vector<std::string>& assignors) {
    disruption("upgrade", id);
    const bool classic = classic_upgrade(to);  // KIP-429's rolling bounces: back with the new assignor list
    if (classic && !consumer_) lists_.on_restart(*classic_members_.at(id), upgrade_assignors(assignors, to));
    if (classic || consumer_) member(id).restart(down);
    else member(id).upgrade(down);
  }

  static protocols::HostConfig host_config(const Scenario& s, protocols::epoch::RecordsOut* records,
                                           const protocols::streams::TaskAssignor* task_assignor,
                                           const GroupTopics& topics) {
    protocols::HostConfig c = scenario::host_config(s);
    c.records_out = records;
    c.streams.assignor = task_assignor;
    c.cluster_version = &topics.version();
    return c;
  }

  const Scenario& s_;
  std::unique_ptr<protocols::epoch::RecordsOut> records_;  // `run --records`
  Kernel kernel_;
  Trace trace_;
  Network network_;
  bool consumer_;  // the KIP-848 protocol, else the classic family
  bool kip1071_;   // the streams protocol
  GroupTopics topics_;
  cl::MetadataSnapshots snapshots_;  // what classic members see after a refresh, shared
  std::unique_ptr<StreamsGroup> streams_;  // a Streams application's topology and state; null otherwise
  std::shared_ptr<protocols::PluginSession> plugin_;  // the plug-in's process, if the run has one
  std::unique_ptr<protocols::Assignor> assignor_;
  std::unique_ptr<protocols::streams::TaskAssignor> task_assignor_;  // a Streams group's plug-in
  std::unique_ptr<protocols::Assignor> server_assignor_;  // a converted group's (classic protocols)
  protocols::GroupHost host_;
  std::unique_ptr<cl::EmbeddedProtocol> embedded_;
  std::string protocol_name_;
  bool instance_ids_dropped_ = false;  // the protocol sends none (connect) and the scenario names some
  ClientAssignors lists_;  // members' and upgrades' partition.assignment.strategy
  std::vector<std::unique_ptr<protocols::MemberProcess>> processes_;  // every process of the run, alive to its end
  std::vector<std::unique_ptr<protocols::streams::ClassicThread>> threads_;  // classic Streams: each member's tasks
  std::map<std::string, MemberSlot> slots_;
  std::map<std::string, cl::ClassicMember*> classic_members_;
  std::map<std::string, protocols::consumer::ConsumerMember*> consumer_members_;
  std::map<std::string, protocols::streams::StreamsMember*> streams_members_;
  std::set<std::string> upgraded_;  // members an upgrade event restarts under the consumer protocol
  std::map<std::vector<std::string>, protocols::TopicNames> subscriptions_;  // shared_subscription's lists
  std::vector<std::string> order_;
};

}  // namespace

RunResult run(const Scenario& scenario, const RunOptions& options) {
  const std::string protocol = effective_protocol(scenario, options);
  const std::string assignor = effective_assignor(scenario, options);
  check_supported(scenario, protocol, assignor);
  // `--protocol` may change the heartbeat interval the loader budgeted, and a
  // kept trace bounds events more tightly (without an observer the trace is
  // kept whatever keep_trace says).
  check_budget(scenario, protocol, options.keep_trace || options.observer == nullptr);
  check_classic_streams(scenario, protocol);
  const AssignorExec* exec = effective_exec(scenario, options);
  if (assignor == "exec" && exec == nullptr)
    throw InputError(scenario.file, scenario.assignor_mark, "assignor exec needs a command: assignor: {exec: [python3, my_assignor.py]} or --assignor-exec");
  const std::uint64_t seed = options.seed.value_or(scenario.seed);
  GroupRun group(scenario, protocol, assignor, seed, exec, options.records);
  group.keep_routine(options.routine_events);
  return group.run(seed, assignor, options.progress, options.observer, options.keep_trace);
}

}  // namespace rsim::scenario
