#include "metrics/liveness.hpp"

#include "metrics/processing.hpp"
#include "scenarios/config_keys.hpp"
#include "scenarios/resources.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <set>

namespace rsim::metrics {

using namespace std::chrono_literals;
using scenario::config_integer;
using scenario::config_millis;

namespace {

// The last moment an event's own effect lasts to.
Duration effect_end(const scenario::Event& ev) {
  return std::visit(
      [&](const auto& a) -> Duration {
        using A = std::decay_t<decltype(a)>;
        namespace sc = scenario;
        if constexpr (std::is_same_v<A, sc::Bounce> || std::is_same_v<A, sc::Restart> ||
                      std::is_same_v<A, sc::CoordinatorFailover> || std::is_same_v<A, sc::Upgrade>) {
          return ev.at + a.down;
        } else if constexpr (std::is_same_v<A, sc::Pause> || std::is_same_v<A, sc::Isolate>) {
          return ev.at + a.length;
        } else if constexpr (std::is_same_v<A, sc::Slow>) {
          return ev.at + a.length + a.batch;
        } else if constexpr (std::is_same_v<A, sc::RollingBounce> || std::is_same_v<A, sc::RollingRestart> ||
                             std::is_same_v<A, sc::RollingUpgrade>) {
          const auto steps = static_cast<std::int64_t>(a.members.ids.empty() ? 0 : a.members.ids.size() - 1);
          return ev.at + a.interval * steps + a.down;
        } else {
          return ev.at;
        }
      },
      ev.action);
}

int resource_count(const scenario::Scenario& s) {
  std::map<std::string, int> partitions;
  for (const auto& t : s.topics) partitions[t.name] = t.partitions;
  for (const auto& ev : s.events)
    if (const auto* ap = std::get_if<scenario::AddPartitions>(&ev.action))
      partitions[ap->topic] = std::max(partitions[ap->topic], ap->count);
    else if (const auto* ct = std::get_if<scenario::CreateTopic>(&ev.action))
      partitions[ct->topic] = std::max(partitions[ct->topic], ct->partitions);
  int n = 0;
  for (const auto& [t, p] : partitions) n += p;
  for (const auto& c : s.connectors) n += c.tasks + 1;
  return n;
}

Duration slowest(const scenario::Scenario& s, Duration base, bool revoke) {
  Duration d = base;
  for (const auto& c : s.connectors) d = std::max(d, (revoke ? c.revoke_cost : c.assign_cost).value_or(Duration{0}));
  return d;
}

using Subscriptions = std::map<std::string, std::vector<std::string>>;  // member -> topics (or connectors)

// What a member subscribes to: its topics; a Connect worker without topics
// runs every connector.
std::vector<std::string> subscription_of(const scenario::Scenario& s, const std::vector<std::string>& subscribe) {
  if (!subscribe.empty() || s.connectors.empty()) return subscribe;
  std::vector<std::string> all;
  for (const auto& c : s.connectors) all.push_back(c.name);
  return all;
}

// Every member's subscription when it starts (the scenario's members and
// those that join later).
Subscriptions starting_subscriptions(const scenario::Scenario& s) {
  namespace sc = scenario;
  Subscriptions out;
  for (const auto& m : s.members) out[m.id] = subscription_of(s, m.subscribe);
  for (const auto& ev : s.events) {
    if (const auto* j = std::get_if<sc::Join>(&ev.action)) out[j->member.id] = subscription_of(s, j->member.subscribe);
    if (const auto* so = std::get_if<sc::ScaleOut>(&ev.action))
      for (const auto& id : so->ids) out[id] = subscription_of(s, so->subscribe);
  }
  return out;
}

// The resources the group must process once the faults are over: those of
// the topics its live members subscribe to (a topic whose last subscriber is
// gone has nobody to process it, in Kafka too).
std::vector<std::string> required_resources(const scenario::Scenario& s, const scenario::RunResult& run) {
  Subscriptions subscribed = starting_subscriptions(s);
  for (const auto& ev : s.events)
    if (const auto* sub = std::get_if<scenario::Subscribe>(&ev.action)) subscribed[sub->member] = sub->topics;
  std::set<std::string> alive;
  for (const auto& ev : run.trace.events()) {
    if (ev.kind == "start") alive.insert(ev.actor);
    if (ev.kind == "crash" || ev.kind == "stopped") alive.erase(ev.actor);
  }
  std::set<std::string> needed;
  for (const auto& m : alive)
    if (auto it = subscribed.find(m); it != subscribed.end()) needed.insert(it->second.begin(), it->second.end());
  const scenario::ResourceIndex index(s);
  std::vector<std::string> out;
  for (const auto& r : run.resources)
    if (needed.count(scenario::owner_of(index, r)) != 0) out.push_back(r);
  return out;
}

// Kafka's own stall (KIP-429 with KIP-345). A cooperative leader withholds a
// partition from everyone while its owner must revoke it, and only the member
// that revokes asks for the follow-up rebalance (ConsumerCoordinator.
// onJoinComplete: "need to revoke partitions and re-join"). When that owner
// is a static member whose process ended after it had joined the rebalance
// (the coordinator keeps the parked JoinGroup, so the leader saw the old
// process's ownedPartitions) and whose new process then joined the Stable
// group, the coordinator hands the new process the stored assignment without
// a rebalance (GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin)
// and the new process owns nothing to revoke: the partition stays unassigned
// until some other cause rebalances the group. The same happens when the
// static member is kept in the generation without rejoining (stuck in a
// batch: no LeaveGroup from a static member) and loses its partitions at the
// poll timeout afterwards, and when the owner did revoke them but the
// JoinGroup that asks for the follow-up never reached the coordinator (lost
// on the way, its retry due only after the request timeout) before its
// process ended, or whose JoinGroup reached a coordinator that failed over
// before the rebalance completed (the log keeps generations, not a rebalance
// in progress: the new coordinator loads the same generation Stable and the
// follow-up is forgotten). The resources this left unassigned at the end of the run:
// nobody holds them; their last holder let them go without a cooperative
// revocation (its process ended, a clean stop, which revokes first, or they
// were lost), or revoked them in this generation, sent the JoinGroup asking
// for the follow-up and was replaced since; it
// is in the last generation of the classic group, and it was replaced after
// that, with nothing since (no generation, failover or conversion). (A
// follow-up JoinGroup that arrives starts a rebalance, so a last generation
// formed before it means none arrived.) Eager assignors withhold
// nothing, and KIP-848 groups do not work this way: not for them.
std::set<std::string> stranded_by_static_restart(const std::vector<TraceEvent>& trace, const std::string& protocol) {
  std::set<std::string> out;
  if (protocol == "consumer") return out;
  // Under eager only members configured with cooperative-sticky (an
  // upgrade's assignor list) can meet a withholding assignor.
  const bool lists = std::any_of(trace.begin(), trace.end(), [](const TraceEvent& ev) {
    return ev.kind == "start" && ev.text("rebalance-protocol") != nullptr;
  });
  if (protocol == "eager" && !lists) return out;
  std::map<std::string, std::set<std::string>> holders;  // resource -> members holding it
  std::map<std::string, std::string> last_holder;        // resource -> member
  std::set<std::string> leaving;                         // members stopping (a clean stop revokes first)
  std::set<std::string> let_go_at_end;                   // resources last let go without a cooperative revocation
  bool classic_generation = false;                       // the last boundary is a classic generation, formed at:
  std::optional<std::int64_t> generation;                // its number
  std::set<std::string> generation_members;
  std::set<std::string> replaced_since;                  // static members replaced since it formed
  // member -> what it revoked since it formed, before / after the JoinGroup asking for the follow-up
  std::map<std::string, std::set<std::string>> revoked_unasked, revoked_asked;
  auto release = [&](const std::string& m, const NameList& rs, bool at_end) {
    for (const auto& r : rs) {
      if (holders[r].erase(m) == 0) continue;
      if (at_end) let_go_at_end.insert(r);
      else revoked_unasked[m].insert(r);
    }
  };
  // A replaced member's follow-up JoinGroup will never come.
  auto replaced = [&](const std::string& m) {
    replaced_since.insert(m);
    for (const auto& r : revoked_asked[m])
      if (holders[r].empty()) let_go_at_end.insert(r);
    revoked_asked.erase(m);
    revoked_unasked.erase(m);
  };
  for (const auto& ev : trace) {
    if (ev.actor == "coordinator") {
      // A new coordinator that loads the same generation goes on with it;
      // the follow-ups the old one had are forgotten.
      if (ev.kind == "loaded" && classic_generation && ev.integer("generation") == generation) continue;
      if (ev.kind == "generation" || ev.kind == "loaded" || ev.kind == "converted") {
        classic_generation = false;
        generation = ev.integer("generation");
        generation_members.clear();
        replaced_since.clear();
        revoked_unasked.clear();
        revoked_asked.clear();
        if (ev.kind != "generation" || ev.find("leader") == nullptr) continue;  // not a classic generation
        classic_generation = true;
        if (const auto* members = ev.list("members")) generation_members.insert(members->begin(), members->end());
      } else if (ev.kind == "member-replaced") {
        if (const std::string* m = ev.text("member")) replaced(*m);
      }
      continue;
    }
    if (ev.kind == "assigned") {
      if (const auto* rs = ev.list("resources"))
        for (const auto& r : *rs) {
          holders[r].insert(ev.actor);
          last_holder[r] = ev.actor;
          let_go_at_end.erase(r);
        }
    } else if (ev.kind == "join") {
      revoked_asked[ev.actor].merge(revoked_unasked[ev.actor]);
    } else if (ev.kind == "leave") {
      leaving.insert(ev.actor);
    } else if (ev.kind == "start") {
      leaving.erase(ev.actor);
    } else if (ev.kind == "revoked" || ev.kind == "lost") {
      if (const auto* rs = ev.list("resources")) release(ev.actor, *rs, ev.kind == "lost" || leaving.count(ev.actor) != 0);
    } else if (ev.kind == "crash" || ev.kind == "stopped") {
      leaving.erase(ev.actor);
      for (auto& [r, hs] : holders)
        if (hs.erase(ev.actor) != 0) let_go_at_end.insert(r);
    }
  }
  if (!classic_generation) return out;
  for (const auto& [r, m] : last_holder) {
    if (!holders[r].empty() || let_go_at_end.count(r) == 0) continue;
    if (generation_members.count(m) != 0 && replaced_since.count(m) != 0) out.insert(r);
  }
  return out;
}

// Kafka's stall of a changed subscription (KIP-345 with KIP-814). A static
// member's new process that joins a Stable group replaces the old one and is
// handed the stored assignment without a rebalance, even when it subscribes
// to more than the old process had joined with: only a change of the
// group's selected protocol rebalances (GroupMetadataManager.
// updateStaticMemberThenRebalanceOrCompleteJoin). Its client sees nothing to
// rejoin for: it joined with its current subscription (ConsumerCoordinator.
// rejoinNeededOrPending compares joinedSubscription), and as a returning
// leader it skips the assignment and takes the metadata it has now as the
// assignment's snapshot (onLeaderElected). So the topics only it wants stay
// unassigned until something else rebalances the group. The resources
// nobody holds at the end whose topic no member of the last classic
// generation had joined with and a static member replaced since subscribes
// to. KIP-848 groups take the new subscription at the rejoin: not for them.
std::set<std::string> uncovered_after_static_rejoin(const scenario::Scenario& s, const scenario::RunResult& run) {
  std::set<std::string> out;
  if (run.protocol == "consumer") return out;
  Subscriptions subscribed = starting_subscriptions(s);
  // The scenario's subscription changes, each member's in order: a member
  // that is down when its change comes traces nothing, and its next process
  // starts with the new subscription.
  std::map<std::string, std::deque<std::vector<std::string>>> changes;
  for (const auto& ev : s.events)
    if (const auto* sub = std::get_if<scenario::Subscribe>(&ev.action)) changes[sub->member].push_back(sub->topics);
  Subscriptions joined;                                   // member -> what its last JoinGroup carried
  std::map<std::string, std::set<std::string>> held;     // member -> resources it holds
  bool classic_generation = false;                       // the last boundary is a classic generation
  std::optional<std::int64_t> generation;                // its number
  std::set<std::string> covered;                         // what that generation's members had joined with
  std::set<std::string> replaced_since;                  // static members replaced since it formed
  for (const auto& ev : run.trace.events()) {
    if (ev.actor == "coordinator") {
      // A new coordinator that loads the same generation goes on with it.
      if (ev.kind == "loaded" && classic_generation && ev.integer("generation") == generation) continue;
      if (ev.kind == "generation" || ev.kind == "loaded" || ev.kind == "converted") {
        classic_generation = ev.kind == "generation" && ev.find("leader") != nullptr;
        generation = ev.integer("generation");
        covered.clear();
        replaced_since.clear();
        if (const auto* members = classic_generation ? ev.list("members") : nullptr)
          for (const auto& m : *members) {
            // A member placed in the group by an initial assignment never joined.
            const auto& topics = joined.count(m) != 0 ? joined[m] : subscribed[m];
            covered.insert(topics.begin(), topics.end());
          }
      } else if (ev.kind == "member-replaced") {
        if (const std::string* m = ev.text("member")) replaced_since.insert(*m);
      }
      continue;
    }
    if (ev.actor == "scenario") {
      const std::string* action = ev.text("action");
      const std::string* member = ev.text("member");
      if (ev.kind != "disruption" || action == nullptr || *action != "subscribe" || member == nullptr) continue;
      if (auto& queue = changes[*member]; !queue.empty()) {
        subscribed[*member] = std::move(queue.front());
        queue.pop_front();
      }
    } else if (ev.kind == "subscribe") {
      if (const auto* topics = ev.list("topics")) subscribed[ev.actor].assign(topics->begin(), topics->end());
    } else if (ev.kind == "join") {
      joined[ev.actor] = subscribed[ev.actor];
    } else if (ev.kind == "assigned") {
      if (const auto* rs = ev.list("resources")) held[ev.actor].insert(rs->begin(), rs->end());
    } else if (ev.kind == "revoked" || ev.kind == "lost") {
      if (const auto* rs = ev.list("resources"))
        for (const auto& r : *rs) held[ev.actor].erase(r);
    } else if (ev.kind == "crash" || ev.kind == "stopped") {
      held.erase(ev.actor);
    }
  }
  if (!classic_generation) return out;
  std::set<std::string> held_by_someone;
  for (const auto& [m, rs] : held) held_by_someone.insert(rs.begin(), rs.end());
  std::set<std::string> wanted;  // topics a replaced member wants that the generation does not cover
  for (const auto& m : replaced_since)
    for (const auto& topic : subscribed[m])
      if (covered.count(topic) == 0) wanted.insert(topic);
  const scenario::ResourceIndex index(s);
  for (const auto& r : run.resources)
    if (held_by_someone.count(r) == 0 && wanted.count(scenario::owner_of(index, r)) != 0) out.insert(r);
  return out;
}

// Kafka's stall of a converted group: a consumer group converted from a classic group
// notices new partitions only at a ConsumerGroupHeartbeat or a classic
// member's JoinGroup (GroupMetadataManager: onNewMetadataImage only asks for
// a metadata refresh, which those two paths do; a classic Heartbeat does
// not, classicGroupHeartbeatToConsumerGroup). With only classic members
// left, none of which rejoins (a follower's client does not watch metadata),
// partitions added meanwhile stay unassigned. The resources added while the
// group was a converted consumer group, with no group epoch since.
std::set<std::string> unnoticed_by_converted_group(const std::vector<TraceEvent>& trace) {
  std::set<std::string> out;
  bool converted = false;
  for (const auto& ev : trace) {
    if (ev.actor == "coordinator" && ev.kind == "converted") {
      const std::string* from = ev.text("from");
      converted = from != nullptr && *from == "classic" && ev.integer("new-group").value_or(0) == 0;
      out.clear();
    } else if (ev.actor == "coordinator" && (ev.kind == "group-epoch" || ev.kind == "loaded")) {
      out.clear();
    } else if (converted && ev.actor == "scenario" && ev.kind == "resources-added") {
      if (const auto* rs = ev.list("resources")) out.insert(rs->begin(), rs->end());
    }
  }
  return out;
}

}  // namespace

std::optional<Time> quiet_start(const scenario::Scenario& s) {
  if (s.drop > 0 && !s.drop_until) return std::nullopt;
  Duration t = s.drop > 0 ? *s.drop_until : Duration{0};
  for (const auto& m : s.members) t = std::max(t, m.start);
  for (const auto& ev : s.events) t = std::max(t, effect_end(ev));
  return time_at(t);
}

// A Streams member restoring the state of every task, one after another:
// what a move can cost at most before a task processes again. Tasks are
// bounded by every topic's partitions per sub-topology.
static Duration restoring_everything(const scenario::Scenario& s) {
  if (s.subtopologies.empty() || s.costs.restore_bytes_per_s == 0) return Duration{0};
  const auto tasks = static_cast<std::int64_t>(resource_count(s)) * static_cast<std::int64_t>(s.subtopologies.size());
  const double seconds = static_cast<double>(s.costs.state_bytes) / static_cast<double>(s.costs.restore_bytes_per_s);
  return Duration{static_cast<std::int64_t>(seconds * 1e6) + 1} * tasks;
}

Duration settle_bound(const scenario::Scenario& s, const std::string& protocol) {
  const bool connect_workers = !s.connectors.empty();
  const Duration session = std::max({config_millis(s, "session.timeout.ms"), config_millis(s, "group.consumer.session.timeout.ms"),
                                      config_millis(s, "group.streams.session.timeout.ms")});
  const Duration heartbeat = std::max({config_millis(s, "heartbeat.interval.ms"), config_millis(s, "group.consumer.heartbeat.interval.ms"),
                                       config_millis(s, "group.streams.heartbeat.interval.ms")});
  const Duration rebalance = config_millis(s, connect_workers ? "rebalance.timeout.ms" : "max.poll.interval.ms");
  // One round: a member noticed gone at its session timeout, a join phase
  // held to the rebalance timeout, a lost request found at its timeout.
  const Duration round = session + rebalance + 5s + config_millis(s, "request.timeout.ms") +
                         config_millis(s, "group.initial.rebalance.delay.ms") + config_millis(s, "retry.backoff.max.ms") +
                         2 * heartbeat;
  Duration bound = 3 * round + config_millis(s, "metadata.max.age.ms");
  if (protocol == "deferred" || protocol == "incremental" || protocol == "connect")
    bound += 2 * config_millis(s, "scheduled.rebalance.max.delay.ms");
  const int resources = resource_count(s);
  if (protocol == "incremental") {
    const auto moves = std::max<std::int64_t>(1, config_integer(s, "incremental.max.moves.per.round"));
    bound += config_millis(s, "incremental.round.interval.ms") * ((resources + moves - 1) / moves + 1);
  }
  bound += 2 * resources * (slowest(s, s.costs.revoke, true) + slowest(s, s.costs.assign, false));
  bound += 2 * restoring_everything(s);
  // Classic Streams: warm-ups hand over at probing rebalances, at most
  // max.warmup.replicas per round, every copy (active and standbys) perhaps
  // moving; a warm-up may take its whole restoration to catch up.
  if (!s.subtopologies.empty() && (protocol == "eager" || protocol == "cooperative")) {
    const auto tasks = static_cast<std::int64_t>(resources) * static_cast<std::int64_t>(s.subtopologies.size());
    const auto copies = tasks * (1 + config_integer(s, "num.standby.replicas"));
    const auto warmups = std::max<std::int64_t>(1, config_integer(s, "max.warmup.replicas"));
    bound += config_millis(s, "probing.rebalance.interval.ms") * ((copies + warmups - 1) / warmups + 2) + restoring_everything(s);
  }
  return bound;
}

LivenessResult check_liveness(const scenario::Scenario& s, const scenario::RunResult& run) {
  LivenessResult out;
  out.quiet_from = quiet_start(s);
  out.bound = settle_bound(s, run.protocol);
  if (!out.quiet_from) {
    out.skipped = "the network drops messages to the end of the run (set network.drop-until)";
    return out;
  }
  // Kafka's rebalance storm: revoking what a member may hold takes longer
  // than its poll deadline, so a rejoin can time out forever.
  const Duration revoke_all = s.connectors.empty() ? resource_count(s) * s.costs.revoke
                                                   : slowest(s, s.costs.revoke, true);
  const Duration deadline_poll = config_millis(s, s.connectors.empty() ? "max.poll.interval.ms" : "rebalance.timeout.ms");
  if (revoke_all >= deadline_poll) {
    out.skipped = fmt::format("revoking every resource ({}) takes as long as the poll deadline ({}): a rebalance storm "
                              "may never end, in Kafka too",
                              format_duration(revoke_all), format_duration(deadline_poll));
    return out;
  }
  const Time deadline = *out.quiet_from + out.bound;
  if (run.end < deadline) {
    out.skipped = fmt::format("the run ends at {}, before the faults' end ({}) plus the bound ({})", format_time(run.end),
                              format_time(*out.quiet_from), format_duration(out.bound));
    return out;
  }
  std::vector<std::string> required = required_resources(s, run);
  std::set<std::string> stranded = stranded_by_static_restart(run.trace.events(), run.protocol);
  if (run.protocol != "consumer") stranded.merge(unnoticed_by_converted_group(run.trace.events()));
  stranded.merge(uncovered_after_static_rejoin(s, run));
  std::erase_if(required, [&](const std::string& r) {
    if (stranded.count(r) == 0) return false;
    out.stranded.push_back(r);
    return true;
  });
  const auto processing = measure_processing(run.trace.events(), required, kTimeZero, run.end);
  const EndState& end = processing.end_state;
  out.settled_at = end.settled_since;
  if (end.settled_since && *end.settled_since <= deadline) return out;
  std::string what;
  if (end.settled_since) {
    out.shape = "late";
    what = fmt::format("settled only at {}, {} after the faults ended at {} (bound {})", format_time(*end.settled_since),
                       format_duration(*end.settled_since - *out.quiet_from), format_time(*out.quiet_from),
                       format_duration(out.bound));
  } else {
    const std::size_t shown = std::min<std::size_t>(end.unprocessed.size(), 8);
    std::string detail = fmt::format("{} resource(s) not processed", end.unprocessed.size());
    if (shown > 0)
      detail += fmt::format(" ({}{})", fmt::join(end.unprocessed.begin(), end.unprocessed.begin() + shown, ","),
                            shown < end.unprocessed.size() ? ",..." : "");
    detail += end.coordinator_stable ? ", coordinator Stable" : ", coordinator not Stable";
    if (!end.unsettled.empty()) detail += fmt::format(", joining: {}", fmt::join(end.unsettled, ","));
    what = fmt::format("never settled after the faults ended at {}: at the end {}", format_time(*out.quiet_from), detail);
    std::vector<std::string> wrong;
    if (!end.unprocessed.empty()) wrong.push_back("unprocessed");
    if (!end.coordinator_stable) wrong.push_back("not stable");
    if (!end.unsettled.empty()) wrong.push_back("joining");
    out.shape = fmt::format("{}", fmt::join(wrong, "+"));
  }
  out.finding = Finding{"liveness", deadline, what, end.unsettled};
  return out;
}

}  // namespace rsim::metrics
