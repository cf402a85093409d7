#include "scenarios/runner.hpp"

#include "protocols/catalog.hpp"
#include "protocols/classic/coordinator.hpp"
#include "protocols/classic/member.hpp"
#include "protocols/consumer/member.hpp"
#include "protocols/group_host.hpp"
#include "scenarios/member_slot.hpp"
#include "protocols/assignors/server.hpp"
#include "scenarios/assignor_lists.hpp"
#include "scenarios/config_keys.hpp"
#include "scenarios/limits.hpp"
#include "scenarios/resources.hpp"
#include "scenarios/values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <memory>
#include <utility>

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
    // The loader checked the classic path (assignor_lists.hpp); under another variant it is a restart.
    if (classic_upgrade(to)) continue;
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
    if (const auto* u = std::get_if<Upgrade>(&ev.action); u != nullptr && !classic_upgrade(u->to))
      out.insert(u->members.begin(), u->members.end());
    if (const auto* u = std::get_if<RollingUpgrade>(&ev.action); u != nullptr && !classic_upgrade(u->to))
      out.insert(u->members.ids.begin(), u->members.ids.end());
  }
  return out;
}

// Resources by the names the loader already checked.
std::vector<protocols::TopicPartition> parse_resources(const Scenario& s, const std::vector<std::string>& names) {
  const ResourceIndex index(s);
  std::vector<protocols::TopicPartition> out;
  for (const auto& n : names) out.push_back(topic_partition(index, n));
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

class GroupRun {
 public:
  GroupRun(const Scenario& s, std::string protocol, std::string assignor, std::uint64_t seed)
      : s_(s),
        network_(kernel_, trace_, s.latency, s.drop, Rng::stream(seed, "network")),
        consumer_(protocol == "consumer"),
        assignor_(consumer_ ? protocols::make_consumer_assignor(assignor) : protocols::make_classic_assignor(assignor)),
        server_assignor_(consumer_ ? nullptr : protocols::make_consumer_assignor("uniform")),
        host_(kernel_, trace_, network_, metadata_, consumer_ ? *assignor_ : *server_assignor_, host_config(s)),
        protocol_name_(std::move(protocol)) {
    network_.set_bandwidth(s.bandwidth_bytes_per_s);
    if (s.drop_until) network_.set_drop_until(time_at(*s.drop_until));
    for (const auto& t : s.topics) metadata_[t.name] = t.partitions;
    for (const auto& c : s.connectors) metadata_[protocols::Topic::connector(c.name).name()] = c.tasks + 1;
    embedded_ = make_embedded();
    upgraded_ = upgraded_members(s);
    // Assignor lists are the scenario's own variant's: another variant
    // (--protocol, --assignor) runs every member with its own assignor.
    lists_apply_ = !consumer_ && protocol_name_ == s.protocol && assignor == default_assignors(s).front();
    host_.on_disconnect([this] {
      for (const auto& id : order_) slots_.at(id).current().coordinator_disconnected();
    });
    // Every process the scenario can start gets its node now, in a fixed
    // order, so node ids never depend on when events happen.
    for (const auto& m : s.members) add_member(m);
    for (const auto& ev : s.events) {
      if (const auto* j = std::get_if<Join>(&ev.action)) add_member(j->member);
      if (const auto* so = std::get_if<ScaleOut>(&ev.action))
        for (const auto& id : so->ids) add_member(MemberSpec{id, so->subscribe, std::nullopt, std::nullopt, ev.at, ev.mark, {}, {}});
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
        for (int p = 0; p < metadata_.at(t.name); ++p) r.resources.push_back(resource_name({t.name, p}));
    for (const auto& c : s_.connectors) {
      const std::string topic = protocols::Topic::connector(c.name).name();
      if (group_topics_.count(topic) != 0)
        for (int p = 0; p <= c.tasks; ++p) r.resources.push_back(resource_name({topic, p}));
    }
    r.network = network_.stats();
    r.events_executed = kernel_.executed();
    r.trace = std::move(trace_);
    return r;
  }

 private:
  static protocols::HostConfig host_config(const Scenario& s) {
    protocols::HostConfig c;
    c.classic.initial_rebalance_delay = config_millis(s, "group.initial.rebalance.delay.ms");
    c.consumer.session_timeout = config_millis(s, "group.consumer.session.timeout.ms");
    c.consumer.heartbeat_interval = config_millis(s, "group.consumer.heartbeat.interval.ms");
    c.migration_policy = config_text(s, "group.consumer.migration.policy");
    return c;
  }

  std::unique_ptr<cl::EmbeddedProtocol> make_embedded() const {
    cl::StrategySettings settings;
    settings.max_delay = config_millis(s_, "scheduled.rebalance.max.delay.ms");
    settings.max_moves = static_cast<int>(config_integer(s_, "incremental.max.moves.per.round"));
    settings.round_interval = config_millis(s_, "incremental.round.interval.ms");
    const auto* p = protocols::find_protocol(protocol_name_);
    return p->make_strategy ? p->make_strategy(settings) : nullptr;  // the consumer protocol has none
  }

  cl::MemberConfig member_config(const MemberSpec& spec) const {
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
    c.retry_backoff_max = config_millis(s_, "retry.backoff.max.ms");
    c.revoke_cost = s_.costs.revoke;
    c.assign_cost = s_.costs.assign;
    c.parallel = !s_.connectors.empty();  // Connect workers
    if (lists_apply_ && !spec.assignors.empty()) client_assignors(c, spec.assignors);
    for (const auto& con : s_.connectors) {
      const std::string topic = protocols::Topic::connector(con.name).name();
      if (con.revoke_cost) c.revoke_cost_of_topic[topic] = *con.revoke_cost;
      if (con.assign_cost) c.assign_cost_of_topic[topic] = *con.assign_cost;
    }
    return c;
  }

  // partition.assignment.strategy: the assignors (one instance per name, the
  // leader's) and the rebalance protocol they allow the client.
  void client_assignors(cl::MemberConfig& c, const std::vector<std::string>& names) const {
    c.assignors.clear();
    for (const auto& n : names) {
      auto& a = list_assignors_[n];
      if (!a) a = protocols::make_classic_assignor(n);
      c.assignors.push_back(a.get());
    }
    const std::string protocol(protocols::client_rebalance_protocol(names));
    auto& strategy = list_strategies_[protocol];
    if (!strategy) strategy = protocols::find_protocol(protocol)->make_strategy(cl::StrategySettings{});
    c.protocol = strategy.get();
  }

  template <class Member, class Context>
  Member& make_process(Context ctx, cl::MemberConfig config) {
    auto p = std::make_unique<ProcessOf<Member>>(ctx, std::move(config));
    Member& m = p->m;
    processes_.push_back(std::move(p));
    return m;
  }

  void add_member(const MemberSpec& spec) {
    if (slots_.count(spec.id) != 0) return;  // a member that joins again reuses its process
    cl::MemberConfig c = member_config(spec);
    const protocols::consumer::MemberContext consumer_ctx{kernel_, network_, trace_, host_.consumer_directory()};
    Process* upgraded = nullptr;
    Process* speaks = nullptr;
    if (consumer_ || upgraded_.count(spec.id) != 0) {
      auto& m = make_process<protocols::consumer::ConsumerMember>(consumer_ctx, c);
      consumer_members_[spec.id] = &m;
      c.node = m.node();  // the member's processes share its node
      (consumer_ ? speaks : upgraded) = processes_.back().get();
    }
    if (!consumer_) {
      auto& m = make_process<cl::ClassicMember>(
          cl::MemberContext{kernel_, network_, trace_, host_.classic_directory(), metadata_, *assignor_, *embedded_}, c);
      classic_members_[spec.id] = &m;
      speaks = processes_.back().get();
    }
    slots_.try_emplace(spec.id, kernel_, *speaks, upgraded);
    order_.push_back(spec.id);
  }

  MemberSlot& member(const std::string& id) { return slots_.at(id); }

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
    auto& coordinator = host_.start_consumer();
    coordinator.continue_member_numbers(1);
    coordinator.seed_stable(seeds);
    for (const auto& v : seeds) {
      consumer_members_.at(v.client_id)->start_stable(v.member_id, coordinator.state().target_epoch,
                                                      {v.assigned.begin(), v.assigned.end()});
      member(v.client_id).started();
    }
  }

  // The group is Stable at generation 1 with every member present at 0s.
  void start_classic_stable() {
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
      seed.join.subscription = embedded_->subscription(*assignor_, resources_of(s_, m.subscribe), seed.assignment.partitions,
                                                       seed.assignment.partitions, 1);
      seed.join.protocols = lists_apply_ && !m.assignors.empty() ? m.assignors
                                                                 : std::vector<std::string>{std::string(assignor_->name())};
      seeds.push_back(seed);
    }
    auto& coordinator = host_.start_classic();
    coordinator.seed_stable(1, seeds);
    const std::string leader = seeds.empty() ? std::string() : seeds.front().member_id;
    std::map<std::string, std::vector<protocols::TopicPartition>> by_client, by_member;
    for (const auto& seed : seeds) {
      classic_members_.at(seed.join.client_id)->start_stable(seed.member_id, leader, 1, seed.assignment.partitions,
                                                             coordinator.protocol_name());
      member(seed.join.client_id).started();
      by_client[seed.join.client_id] = seed.assignment.partitions;
      by_member[seed.member_id] = seed.assignment.partitions;
    }
    if (!seeds.empty()) classic_members_.at(seeds.front().join.client_id)->remember_assignment(by_client, by_member);
  }

  void emit_config() {
    trace_.emit(kTimeZero, "scenario", "run",
                {{"scenario", s_.name}, {"protocol", protocol_name_}, {"assignor", std::string(assignor_->name())}});
  }

  void start_members() {
    if (s_.initial_assignment) {
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

  // The group's resources are the partitions of the topics its members
  // subscribe to; a topic's partitions join them when it gets its first
  // subscriber, and grow with add-partitions.
  void subscribed(const std::vector<std::string>& topics) {
    for (const auto& t : topics) {
      if (!group_topics_.insert(t).second || !started_) continue;
      std::vector<std::string> added;
      for (int p = 0; p < metadata_.at(t); ++p) added.push_back(resource_name({t, p}));
      trace_.emit(kernel_.now(), "scenario", "resources-added", {{"topic", t}, {"resources", added}});
    }
  }

  void add_partitions(const std::string& topic, int count) {
    int& current = metadata_.at(topic);
    std::vector<std::string> added;
    for (int p = current; p < count; ++p) added.push_back(resource_name({topic, p}));
    current = count;
    if (group_topics_.count(topic) != 0)
      trace_.emit(kernel_.now(), "scenario", "resources-added", {{"topic", topic}, {"resources", added}});
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

  void isolate(const std::string& id, Duration length) {
    const NodeId node = member(id).current().node();
    network_.cut(node, host_.classic_directory().node);
    trace_.emit(kernel_.now(), id, "isolated", {{"for_us", length.count()}});
    kernel_.schedule_in(length, [this, node, id] {
      network_.heal(node, host_.classic_directory().node);
      trace_.emit(kernel_.now(), id, "reconnected");
    });
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
            disruption("bounce", a.member);
            member(a.member).bounce(a.down);
          } else if constexpr (std::is_same_v<A, Restart>) {
            disruption("restart", a.member);
            member(a.member).restart(a.down);
          } else if constexpr (std::is_same_v<A, Pause>) {
            disruption("pause", a.member);
            member(a.member).current().pause(a.length);
          } else if constexpr (std::is_same_v<A, Slow>) {
            disruption("slow", a.member);
            member(a.member).current().slow(a.batch, a.length);
          } else if constexpr (std::is_same_v<A, Subscribe>) {
            disruption("subscribe", a.member);
            subscribed(a.topics);
            member(a.member).subscribe(a.topics);
          } else if constexpr (std::is_same_v<A, AddPartitions>) {
            disruption("add-partitions", a.topic);
            add_partitions(a.topic, a.count);
          } else if constexpr (std::is_same_v<A, CoordinatorFailover>) {
            disruption("coordinator-failover", "");
            host_.failover(a.down);
          } else if constexpr (std::is_same_v<A, RollingBounce>) {
            rolling(a.members.ids, a.interval, [this, down = a.down](const std::string& id) {
              disruption("bounce", id);
              member(id).bounce(down);
            });
          } else if constexpr (std::is_same_v<A, RollingRestart>) {
            rolling(a.members.ids, a.interval, [this, down = a.down](const std::string& id) {
              disruption("restart", id);
              member(id).restart(down);
            });
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
            for (const auto& id : a.members) upgrade(id, a.down, a.to, a.assignors);
          } else if constexpr (std::is_same_v<A, RollingUpgrade>) {
            rolling(a.members.ids, a.interval, [this, &a](const std::string& id) { upgrade(id, a.down, a.to, a.assignors); });
          } else if constexpr (std::is_same_v<A, Isolate>) {
            disruption("isolate", a.member);
            isolate(a.member, a.length);
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
  // A classic upgrade (KIP-429's rolling bounces) restarts the member with
  // its new assignor list; under another variant, with what it runs.
  void upgrade(const std::string& id, Duration down, const std::string& to, const std::vector<std::string>& assignors) {
    disruption("upgrade", id);
    if (classic_upgrade(to)) {
      const auto list = upgrade_assignors(assignors, to);
      if (lists_apply_ && !list.empty()) {
        cl::MemberConfig c;
        client_assignors(c, list);
        classic_members_.at(id)->configure_on_restart(c.assignors, c.protocol);
      }
      member(id).restart(down);
      return;
    }
    if (consumer_) member(id).restart(down);
    else member(id).upgrade(down);
  }

  const Scenario& s_;
  Kernel kernel_;
  Trace trace_;
  Network network_;
  bool consumer_;  // the KIP-848 protocol, else the classic family
  cl::Metadata metadata_;
  std::unique_ptr<protocols::Assignor> assignor_;
  std::unique_ptr<protocols::Assignor> server_assignor_;  // a converted group's (classic protocols)
  protocols::GroupHost host_;
  std::unique_ptr<cl::EmbeddedProtocol> embedded_;
  std::string protocol_name_;
  std::vector<std::unique_ptr<Process>> processes_;  // every process of the run, alive to its end
  std::map<std::string, MemberSlot> slots_;
  std::map<std::string, cl::ClassicMember*> classic_members_;
  std::map<std::string, protocols::consumer::ConsumerMember*> consumer_members_;
  std::set<std::string> upgraded_;  // members an upgrade event restarts under the consumer protocol
  bool lists_apply_ = false;        // members' and upgrades' assignor lists (the scenario's own variant)
  mutable std::map<std::string, std::unique_ptr<protocols::Assignor>> list_assignors_;
  mutable std::map<std::string, std::unique_ptr<cl::EmbeddedProtocol>> list_strategies_;
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
