#include "tools/swarm/generator.hpp"

#include "metrics/liveness.hpp"
#include "scenarios/assignor_lists.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/limits.hpp"
#include "protocols/catalog.hpp"
#include "sim/random.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace rsim::swarm {

using namespace std::chrono_literals;
using scenario::Event;
using scenario::MemberSpec;
using scenario::Scenario;

namespace {

const std::vector<std::string> kFaultKinds{"join",    "leave",          "crash",           "bounce",         "restart",
                                           "pause",   "slow",           "rolling-bounce",  "rolling-restart", "scale-out",
                                           "scale-in", "isolate",       "coordinator-failover", "add-partitions",
                                           "subscribe", "upgrade",      "rolling-upgrade"};

Duration ms(std::int64_t n) { return Duration{n * 1000}; }

class Generator {
 public:
  Generator(std::uint64_t seed, const std::string& protocol, int scale)
      : rng_(Rng::stream(seed, "swarm")), upgrade_rng_(Rng::stream(seed, "swarm-classic-upgrade")),
        classic_streams_rng_(Rng::stream(seed, "swarm-classic-streams")), protocol_(protocol), scale_(scale) {
    s_.name = scale == 1 ? fmt::format("swarm-{}-{}", protocol, seed) : fmt::format("swarm-{}-{}-x{}", protocol, seed, scale);
    s_.seed = seed;
    s_.protocol = protocol;
    classic_ = protocols::find_protocol(protocol)->family == protocols::Family::Classic;
    streams_ = protocols::find_protocol(protocol)->family == protocols::Family::Streams;
    // A Streams application over the classic protocol, on its own random
    // stream so the other classic seeds stay what they were.
    if (protocol == "eager" || protocol == "cooperative") classic_streams_ = classic_streams_rng_.chance(0.3);
    streams_ = streams_ || classic_streams_;
  }

  Scenario build() {
    resources();
    members();
    config();
    network();
    costs();
    enable_faults();
    faults();
    second_bounces();
    keep_an_assignor_in_common();
    horizon();
    return std::move(s_);
  }

 private:
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[rng_.below(v.size())]; }
  Duration between_ms(std::int64_t lo, std::int64_t hi) { return ms(rng_.between(lo, hi)); }

  // ---- the group ----
  void resources() {
    connect_ = classic_ && !classic_streams_ && rng_.chance(0.2);
    if (connect_) {
      const int n = static_cast<int>(rng_.between(1, 2));
      for (int i = 0; i < n; ++i) {
        scenario::Connector c;
        c.name = fmt::format("c{}", i);
        c.tasks = static_cast<int>(rng_.between(0, 6)) * scale_;
        if (rng_.chance(0.3)) c.revoke_cost = pick(std::vector<Duration>{0ms, 5ms, 2s});
        s_.connectors.push_back(c);
      }
      return;
    }
    const int n = static_cast<int>(rng_.between(1, 3));
    for (int i = 0; i < n; ++i) {
      scenario::Topic t;
      t.name = fmt::format("T{}", i);
      t.partitions = static_cast<int>(rng_.between(1, 12)) * scale_;
      partitions_[t.name] = t.partitions;
      s_.topics.push_back(t);
    }
    if (streams_) topology();
  }

  // A Streams application: sub-topology 0 reads the topics, sometimes
  // through a repartition topic into a stateful sub-topology 1; state,
  // restore and changelog rates from small to large.
  void topology() {
    scenario::Subtopology first;
    first.id = "0";
    for (const auto& t : s_.topics) first.source.push_back(t.name);
    if (rng_.chance(0.5)) first.state.push_back("store0");
    if (rng_.chance(0.5)) {
      first.repartition_sink.push_back("R0");
      scenario::Subtopology second;
      second.id = "1";
      second.source.push_back("R0");
      second.state.push_back("store1");
      s_.subtopologies.push_back(first);
      s_.subtopologies.push_back(second);
    } else {
      s_.subtopologies.push_back(first);
    }
    s_.costs.state_bytes = pick(std::vector<std::uint64_t>{0, 1 << 20, 100 << 20});
    s_.costs.restore_bytes_per_s = pick(std::vector<std::uint64_t>{10 << 20, 100 << 20});
    s_.costs.changelog_bytes_per_s = pick(std::vector<std::uint64_t>{0, 1 << 20});
  }

  std::vector<std::string> subscription() {
    std::vector<std::string> out;
    if (connect_ || streams_) return out;  // a Connect worker runs every connector; Streams, its topology
    for (const auto& t : s_.topics)
      if (homogeneous_ || rng_.chance(0.6)) out.push_back(t.name);
    if (out.empty()) out.push_back(pick(s_.topics).name);
    return out;
  }

  void members() {
    homogeneous_ = rng_.chance(0.5);
    const int n = static_cast<int>(rng_.between(2, 6)) * scale_;
    bool all_at_zero = true;
    for (int i = 0; i < n; ++i) {
      MemberSpec m;
      m.id = fmt::format("m{:03}", i);
      m.subscribe = subscription();
      if (rng_.chance(0.25)) m.instance_id = "i-" + m.id;
      if (streams_ && i % 2 == 1 && rng_.chance(0.4)) m.process = fmt::format("p{:03}", i - 1);  // two threads of one instance
      if (i > 0 && rng_.chance(0.1)) {
        m.start = between_ms(1000, 30000);
        all_at_zero = false;
      }
      present_[m.id] = m.start;
      s_.members.push_back(m);
    }
    next_number_ = n;  // where the loader numbers scale-out members from
    if (all_at_zero && !streams_ && rng_.chance(0.3)) initial_assignment();
  }

  // Round robin over each resource's subscribers: complete, as a stable group's.
  void initial_assignment() {
    std::map<std::string, std::vector<std::string>> a;
    std::size_t next = 0;
    auto give = [&](const std::string& resource, const std::string& topic) {
      std::vector<const MemberSpec*> subscribers;
      for (const auto& m : s_.members)
        if (connect_ || std::find(m.subscribe.begin(), m.subscribe.end(), topic) != m.subscribe.end())
          subscribers.push_back(&m);
      if (subscribers.empty()) return;
      a[subscribers[next++ % subscribers.size()]->id].push_back(resource);
    };
    for (const auto& t : s_.topics) {
      bool subscribed = false;
      for (const auto& m : s_.members)
        subscribed |= std::find(m.subscribe.begin(), m.subscribe.end(), t.name) != m.subscribe.end();
      if (!subscribed) continue;
      for (int p = 0; p < t.partitions; ++p) give(fmt::format("{}-{}", t.name, p), t.name);
    }
    for (const auto& c : s_.connectors) {
      give(c.name, "");
      for (int k = 0; k < c.tasks; ++k) give(fmt::format("{}/{}", c.name, k), "");
    }
    s_.initial_assignment = a;
  }

  void set(const std::string& key, scenario::ConfigValue v) { s_.config[key] = scenario::ConfigEntry{std::move(v), {}}; }

  void config() {
    const std::int64_t session = pick(std::vector<std::int64_t>{6000, 10000, 20000, 30000});
    const std::int64_t heartbeat = std::min<std::int64_t>(session / 3, pick(std::vector<std::int64_t>{1000, 2000, 3000}));
    // Drawn whatever the protocol (the draws that follow stay the same), set
    // where Kafka takes them: its consumer refuses them under the consumer protocol.
    if (protocol_ != "consumer") {
      set("session.timeout.ms", ms(session));
      set("heartbeat.interval.ms", ms(heartbeat));
    }
    set(connect_ ? "rebalance.timeout.ms" : "max.poll.interval.ms", ms(pick(std::vector<std::int64_t>{10000, 20000, 45000})));
    set("request.timeout.ms", ms(pick(std::vector<std::int64_t>{5000, 10000, 30000})));
    set("group.initial.rebalance.delay.ms", ms(pick(std::vector<std::int64_t>{0, 500, 3000})));
    set("metadata.max.age.ms", ms(pick(std::vector<std::int64_t>{10000, 60000, 300000})));
    set("retry.backoff.ms", ms(pick(std::vector<std::int64_t>{50, 100, 500})));
    set("scheduled.rebalance.max.delay.ms", ms(pick(std::vector<std::int64_t>{5000, 20000, 60000})));
    set("incremental.max.moves.per.round", std::int64_t{rng_.between(1, 3)});
    set("incremental.round.interval.ms", ms(pick(std::vector<std::int64_t>{1000, 5000, 10000})));
    const std::int64_t consumer_session = pick(std::vector<std::int64_t>{10000, 20000, 45000});
    set("group.consumer.session.timeout.ms", ms(consumer_session));
    set("group.consumer.heartbeat.interval.ms",
        ms(std::min<std::int64_t>(consumer_session / 3, pick(std::vector<std::int64_t>{1000, 2000, 5000}))));
    if (rng_.chance(0.3))
      set("group.consumer.migration.policy", pick(std::vector<std::string>{"upgrade", "downgrade", "disabled"}));
    if (!streams_) return;
    set("group.streams.session.timeout.ms", ms(pick(std::vector<std::int64_t>{45000, 60000})));
    set("group.streams.heartbeat.interval.ms", ms(pick(std::vector<std::int64_t>{5000, 15000})));
    set("num.standby.replicas", std::int64_t{rng_.between(0, 2)});
    if (!classic_streams_) return;
    Rng& r = classic_streams_rng_;
    set("max.warmup.replicas", std::int64_t{r.between(1, 3)});
    set("acceptable.recovery.lag", r.chance(0.5) ? std::int64_t{10000} : std::int64_t{r.between(0, 1000)});
    set("probing.rebalance.interval.ms", ms(r.chance(0.5) ? 60000 : 600000));
    if (r.chance(0.3)) s_.costs.record_bytes = r.chance(0.5) ? 100 : 10000;
  }

  void network() {
    switch (rng_.below(3)) {
      case 0:
        s_.latency = LatencyModel::fixed(Duration{pick(std::vector<std::int64_t>{500, 1000, 5000})});
        break;
      case 1:
        s_.latency = LatencyModel::uniform(Duration{100}, Duration{rng_.between(200, 10000)});
        break;
      default:
        s_.latency = LatencyModel::exponential(Duration{pick(std::vector<std::int64_t>{1000, 3000})});
        break;
    }
    if (rng_.chance(0.4)) s_.drop = pick(std::vector<double>{0.01, 0.05, 0.1});
    if (rng_.chance(0.1)) s_.bandwidth_bytes_per_s = pick(std::vector<std::uint64_t>{100 << 10, 1 << 20});
  }

  void costs() {
    const std::vector<Duration> costs{0ms, 1ms, 20ms, 500ms};
    s_.costs.revoke = pick(costs);
    s_.costs.assign = pick(costs);
  }

  // Swarm testing: each seed turns some kinds of fault off altogether, so
  // rare combinations of the others get room.
  void enable_faults() {
    for (const auto& k : kFaultKinds) {
      const bool migration = k == "upgrade" || k == "rolling-upgrade";
      const bool topics_only = migration || k == "add-partitions" || k == "subscribe";
      if (migration && (!classic_ || streams_)) continue;
      if (streams_ && k == "subscribe") continue;  // a Streams member runs its topology
      if (topics_only && connect_) continue;
      if (rng_.chance(0.5)) enabled_.push_back(k);
    }
    if (enabled_.empty()) enabled_.push_back("crash");
  }

  // ---- the faults ----
  std::vector<std::string> running(Duration at) const {
    std::vector<std::string> out;
    for (const auto& [id, start] : present_)
      if (start <= at && gone_.count(id) == 0) out.push_back(id);
    return out;
  }

  std::vector<std::string> some_of(std::vector<std::string> ids, std::size_t at_most) {
    std::vector<std::string> out;
    while (!ids.empty() && out.size() < at_most) {
      const auto i = rng_.below(ids.size());
      out.push_back(ids[i]);
      ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(i));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void faults() {
    const Duration phase = pick(std::vector<Duration>{60s, 120s, 300s});
    const int n = static_cast<int>(rng_.between(1, 12)) * scale_;
    std::vector<Duration> times;
    for (int i = 0; i < n; ++i) times.push_back(between_ms(5000, phase.count() / 1000));
    std::sort(times.begin(), times.end());
    for (const Duration at : times) fault(at);
  }

  void add(Duration at, std::string kind, scenario::EventAction action) {
    Event ev;
    ev.at = at;
    ev.kind = std::move(kind);
    ev.action = std::move(action);
    s_.events.push_back(std::move(ev));
  }

  void fault(Duration at) {
    const std::string kind = pick(enabled_);
    const auto up = running(at);
    if (up.empty()) return;
    const std::string& who = pick(up);
    const bool can_lose = up.size() > 1;  // someone stays to the end
    namespace sc = scenario;
    if (kind == "join") {
      MemberSpec m;
      m.id = fmt::format("x{:03}", joined_++);
      m.subscribe = subscription();
      m.start = at;
      if (rng_.chance(0.2)) m.instance_id = "i-" + m.id;
      if (cooperative_only_) {
        m.assignors = bridge();  // shares an assignor with every member
        lists_[m.id] = {m.assignors, at};
      }
      present_[m.id] = at;
      add(at, kind, sc::Join{m});
    } else if ((kind == "leave" || kind == "crash") && can_lose) {
      gone_.insert(who);
      if (kind == "leave") left_.insert(who);
      else crashed_[who] = at;
      if (kind == "leave") add(at, kind, sc::Leave{who});
      else add(at, kind, sc::Crash{who});
    } else if (kind == "bounce") {
      add(at, kind, sc::Bounce{who, between_ms(1000, 60000)});
    } else if (kind == "restart") {
      add(at, kind, sc::Restart{who, between_ms(1000, 20000)});
    } else if (kind == "pause") {
      add(at, kind, sc::Pause{who, between_ms(1000, 60000)});
    } else if (kind == "isolate") {
      add(at, kind, sc::Isolate{who, between_ms(1000, 60000)});
    } else if (kind == "slow") {
      add(at, kind, sc::Slow{who, between_ms(1000, 40000), between_ms(5000, 60000)});
    } else if (kind == "rolling-bounce" || kind == "rolling-restart" || kind == "rolling-upgrade") {
      sc::Targets t;
      t.ids = some_of(up, up.size());
      const Duration down = between_ms(1000, kind == "rolling-bounce" ? 20000 : 10000);
      const Duration interval = between_ms(5000, 40000);
      if (kind == "rolling-bounce") add(at, kind, sc::RollingBounce{t, down, interval});
      else if (kind == "rolling-restart") add(at, kind, sc::RollingRestart{t, down, interval});
      else if (classic_upgrade_now()) two_bounces(at, t, down, interval);
      else add(at, kind, sc::RollingUpgrade{t, "consumer", down, interval, {}, {}});
    } else if (kind == "scale-out" && cooperative_only_) {
      return;  // scale-out members take the scenario's [range], which a cooperative-sticky-only member does not list
    } else if (kind == "scale-out") {
      sc::ScaleOut so;
      so.count = static_cast<int>(rng_.between(1, 3));
      so.subscribe = subscription();
      for (int i = 0; i < so.count; ++i) {
        std::string id;
        do {
          id = fmt::format("m{:03}", next_number_++);
        } while (present_.count(id) != 0);
        present_[id] = at;
      }
      add(at, kind, so);
    } else if (kind == "scale-in" && can_lose) {
      const auto out = some_of(up, rng_.between(1, static_cast<std::int64_t>(up.size()) - 1));
      gone_.insert(out.begin(), out.end());
      left_.insert(out.begin(), out.end());
      add(at, kind, sc::ScaleIn{out});
    } else if (kind == "coordinator-failover") {
      add(at, kind, sc::CoordinatorFailover{between_ms(0, 15000)});
    } else if (kind == "add-partitions") {
      const std::string& topic = pick(s_.topics).name;
      int& count = partitions_[topic];
      count += static_cast<int>(rng_.between(1, 6));
      add(at, kind, sc::AddPartitions{topic, count});
    } else if (kind == "subscribe") {
      add(at, kind, sc::Subscribe{who, subscription()});
    } else if (kind == "upgrade") {
      const auto ids = some_of(up, 2);
      const Duration down = between_ms(1000, 10000);
      if (classic_upgrade_now()) add(at, kind, sc::Upgrade{ids, "cooperative", down, upgrade_list(ids, at, Duration{0}), {}});
      else add(at, kind, sc::Upgrade{ids, "consumer", down, {}, {}});
    }
  }

  // Kafka's classic upgrade path (KIP-429) in eager consumer groups, half
  // of the upgrades, drawn from a stream of its own so the other protocols'
  // and the other faults' draws stay as they were.
  // A rolling upgrade to cooperative and, half the time, Kafka's second
  // bounce once the first is done, of the members running then (added when
  // every fault is drawn). From then on joins take the bridge list.
  void two_bounces(Duration at, const scenario::Targets& t, Duration down, Duration interval) {
    auto list = upgrade_list(t.ids, at, interval);
    add(at, "rolling-upgrade", scenario::RollingUpgrade{t, "cooperative", down, interval, list, {}});
    if (list.size() == 1 || !upgrade_rng_.chance(0.5)) return;
    const Duration second = at + interval * static_cast<std::int64_t>(t.ids.size()) + down + ms(upgrade_rng_.between(1000, 20000));
    second_bounces_.push_back({second, down, interval});
    cooperative_only_ = true;
  }

  void second_bounces() {
    for (const auto& [at, down, interval] : second_bounces_) {
      scenario::Targets t;
      t.ids = running(at);
      if (t.ids.empty()) continue;
      add(at, "rolling-upgrade", scenario::RollingUpgrade{t, "cooperative", down, interval, upgrade_list(t.ids, at, interval), {}});
    }
    std::stable_sort(s_.events.begin(), s_.events.end(), [](const Event& a, const Event& b) { return a.at < b.at; });
  }

  // The lists are drawn as the faults are, but a member that rejoins later
  // with the scenario's [range] can leave a [cooperative-sticky] list with
  // nothing in common with it (Kafka refuses that JoinGroup, and so does the
  // loader): then every upgrade keeps the bridge list, which always shares
  // an assignor with everyone.
  void keep_an_assignor_in_common() {
    try {
      scenario::check_assignor_lists(s_);
    } catch (const scenario::InputError&) {
      for (auto& ev : s_.events) {
        if (auto* u = std::get_if<scenario::Upgrade>(&ev.action); u != nullptr && u->to == "cooperative") u->assignors = bridge();
        if (auto* u = std::get_if<scenario::RollingUpgrade>(&ev.action); u != nullptr && u->to == "cooperative")
          u->assignors = bridge();
      }
    }
  }

  bool classic_upgrade_now() { return protocol_ == "eager" && !connect_ && upgrade_rng_.chance(0.5); }
  static std::vector<std::string> bridge() { return {"cooperative-sticky", "range"}; }
  // The first bounce's [cooperative-sticky, range] always shares an assignor
  // with the group; [cooperative-sticky] only once every member still in
  // the group (a crashed one is, until its session expires; the event's own
  // targets, which restart one by one) lists it, from
  // a time no later than `at` (a rolling event's later steps count from then).
  std::vector<std::string> upgrade_list(const std::vector<std::string>& ids, Duration at, Duration interval) {
    bool all_cooperative_sticky = true;
    for (const auto& [id, start] : present_) {
      if (left_.count(id) != 0) continue;  // the targets too: they restart one by one
      const auto crash = crashed_.find(id);
      if (crash != crashed_.end() && crash->second + std::get<Duration>(s_.config.at("session.timeout.ms").value) <= at) continue;
      auto it = lists_.find(id);
      all_cooperative_sticky &= it != lists_.end() && it->second.second <= at &&
                                std::find(it->second.first.begin(), it->second.first.end(), "cooperative-sticky") != it->second.first.end();
    }
    auto list = all_cooperative_sticky && upgrade_rng_.chance(0.8) ? std::vector<std::string>{"cooperative-sticky"} : bridge();
    cooperative_only_ |= list.size() == 1;
    Duration step = at;
    for (const auto& id : ids) {
      lists_[id] = {list, step};
      step += interval;
    }
    return list;
  }

  // Faults end, the network heals, and the group has its liveness bound and
  // two minutes more to settle and show it stays settled.
  // Revoking everything must fit well inside the poll deadline, or a
  // rebalance storm never ends (Kafka's too; liveness is then not checked).
  void affordable_revocations() {
    const Duration poll = std::get<Duration>(s_.config.at(connect_ ? "rebalance.timeout.ms" : "max.poll.interval.ms").value);
    int resources = 0;
    int most = 0;
    for (const auto& [topic, count] : partitions_) {
      resources += count;
      most = std::max(most, count);
    }
    for (const auto& c : s_.connectors) resources += c.tasks + 1;
    // A Streams sub-topology reading a repartition topic has its own tasks,
    // as many as the topic's partitions (its upstream's largest count): a
    // member revokes those too (swarm seed 131809: 18 tasks at 500 ms each,
    // 9 s of a 10 s rebalance timeout, counted as 9).
    for (const auto& sub : s_.subtopologies)
      for (const auto& source : sub.source)
        if (partitions_.count(source) == 0) resources += most;
    if (!connect_ && resources * s_.costs.revoke * 2 >= poll) s_.costs.revoke = 1ms;
  }

  void horizon() {
    affordable_revocations();
    const double drop = s_.drop;
    s_.drop = 0;  // the faults' end alone
    const Time quiet = *metrics::quiet_start(s_);
    s_.drop = drop;
    if (drop > 0) s_.drop_until = quiet.time_since_epoch();
    const Duration end = quiet.time_since_epoch() + metrics::settle_bound(s_, protocol_) + 120s;
    s_.duration = std::chrono::ceil<std::chrono::seconds>(end);
    // A large group (--scale) may not afford the bound's horizon: a run that
    // keeps its trace executes at most kMaxRunEvents. It ends sooner then,
    // its liveness unchecked (the report's `unchecked`), its safety judged.
    const Duration floor{std::chrono::ceil<std::chrono::seconds>(quiet.time_since_epoch() + 120s)};
    while (s_.duration > floor && scenario::estimated_run_events(s_, protocol_) > 0.9 * scenario::kMaxRunEvents)
      s_.duration = std::max(floor, Duration{std::chrono::ceil<std::chrono::seconds>(s_.duration * 3 / 4)});
  }

  Rng rng_;
  Rng upgrade_rng_;
  Rng classic_streams_rng_;
  std::string protocol_;
  Scenario s_;
  bool classic_ = true;
  bool connect_ = false;
  bool streams_ = false;
  bool classic_streams_ = false;  // streams_ over eager or cooperative
  bool homogeneous_ = true;
  std::map<std::string, int> partitions_;
  std::map<std::string, Duration> present_;  // as the loader replays membership
  std::set<std::string> gone_;
  std::vector<std::string> enabled_;
  std::map<std::string, std::pair<std::vector<std::string>, Duration>> lists_;  // members given an assignor list, from when
  std::set<std::string> left_;                             // left cleanly: out of the group
  std::map<std::string, Duration> crashed_;                // out once its session expires
  std::vector<std::tuple<Duration, Duration, Duration>> second_bounces_;  // at, down, interval
  bool cooperative_only_ = false;                          // a member lists only cooperative-sticky
  int joined_ = 0;
  int next_number_ = 0;
  int scale_ = 1;  // members, partitions, tasks and faults multiplied by it
};

}  // namespace

Scenario random_scenario(std::uint64_t seed, const std::string& protocol, int scale) {
  if (scale < 1 || scale > kMaxSwarmScale) throw std::invalid_argument("random_scenario: scale out of range");
  return Generator(seed, protocol, scale).build();
}

}  // namespace rsim::swarm
