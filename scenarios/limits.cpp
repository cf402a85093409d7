#include "scenarios/limits.hpp"

#include "protocols/catalog.hpp"
#include "scenarios/config_keys.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/streams_topology.hpp"
#include "scenarios/values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace rsim::scenario {

namespace {

// What a run's size follows from, counted from the file without expanding
// anything.
struct Counts {
  double members = 0;      // member processes: members, joins, scale-outs
  double resources = 0;    // partitions at their largest; connectors and tasks
  double topics = 0;       // topics declared or created, and connectors
  double disruptions = 0;  // events, a rolling one once per member it restarts
  int all_targets = 0;     // rolling events over `all` not yet resolved
  bool upgrades = false;   // some members will speak the consumer protocol
};

// Each topic's partition count at its largest: add-partitions only grows it.
std::map<std::string, int> largest_partitions(const Scenario& s) {
  std::map<std::string, int> largest;
  for (const auto& t : s.topics) largest[t.name] = t.partitions;
  for (const auto& ev : s.events)
    if (const auto* ap = std::get_if<AddPartitions>(&ev.action)) largest[ap->topic] = std::max(largest[ap->topic], ap->count);
    else if (const auto* ct = std::get_if<CreateTopic>(&ev.action)) largest[ct->topic] = std::max(largest[ct->topic], ct->partitions);
  return largest;
}

void count_event(const Event& ev, Counts& c) {
  std::visit(
      [&](const auto& a) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, RollingBounce> || std::is_same_v<A, RollingRestart> ||
                      std::is_same_v<A, RollingUpgrade>) {
          c.disruptions += static_cast<double>(a.members.ids.size());
          if (a.members.ids.empty()) ++c.all_targets;
        } else {
          c.disruptions += 1;
        }
        if constexpr (std::is_same_v<A, Join>) c.members += 1;
        if constexpr (std::is_same_v<A, ScaleOut>) c.members += a.count;
        if constexpr (std::is_same_v<A, Upgrade> || std::is_same_v<A, RollingUpgrade>) c.upgrades = true;
      },
      ev.action);
}

Counts count(const Scenario& s) {
  Counts c;
  c.members = static_cast<double>(s.members.size());
  for (const auto& ev : s.events) count_event(ev, c);
  c.disruptions += c.all_targets * c.members;  // `all`: at most every member
  for (const auto& [topic, n] : largest_partitions(s)) {
    c.resources += n;
    c.topics += 1;
  }
  for (const auto& con : s.connectors) {
    c.resources += con.tasks + 1;
    c.topics += 1;
  }
  return c;
}

// The heartbeat key that paces members under `protocol`; with upgrades to
// the consumer protocol, whichever of the two is faster.
std::string_view heartbeat_key(const Scenario& s, std::string_view protocol, bool upgrades) {
  const auto* p = protocols::find_protocol(protocol);
  std::string_view key = "heartbeat.interval.ms";
  if (p != nullptr && p->family == protocols::Family::Consumer) key = "group.consumer.heartbeat.interval.ms";
  if (p != nullptr && p->family == protocols::Family::Streams) key = "group.streams.heartbeat.interval.ms";
  const std::string_view consumer = "group.consumer.heartbeat.interval.ms";
  if (upgrades && config_millis(s, consumer) < config_millis(s, key)) key = consumer;
  return key;
}

// How many times `period` fits in the horizon. The loader has checked that
// periods are above 0; 1 us is only a guard.
double periods(const Scenario& s, Duration period) {
  return static_cast<double>(s.duration.count() / std::max(period, Duration{1}).count());
}

// The resources a group reaches, summed over the topics, the connectors,
// then the events in time order: the declaration or event at which the sum
// passes kMaxResources is what the message points at.
void check_resources(const Scenario& s) {
  std::map<std::string, int> partitions;  // each topic's, at its largest so far
  double total = 0;
  const auto add = [&](double more, const Mark& mark) {
    total += more;
    if (total <= kMaxResources) return;
    throw InputError(s.file, mark,
                     fmt::format("the group's resources (partitions of every topic at their largest, each connector "
                                 "and its tasks) reach {} here, above this simulator's limit of {} (each costs about "
                                 "0.7 KB through a run); use fewer partitions",
                                 format_count(total), format_count(kMaxResources)));
  };
  const auto grow = [&](const std::string& topic, int to, const Mark& mark) {
    int& n = partitions[topic];
    if (to <= n) return;
    const double more = to - n;
    n = to;
    add(more, mark);
  };
  for (const auto& t : s.topics) grow(t.name, t.partitions, t.mark);
  for (const auto& con : s.connectors) add(con.tasks + 1.0, con.mark);
  for (const auto& ev : s.events)
    if (const auto* ap = std::get_if<AddPartitions>(&ev.action)) grow(ap->topic, ap->count, ev.mark);
    else if (const auto* ct = std::get_if<CreateTopic>(&ev.action)) grow(ct->topic, ct->partitions, ev.mark);
}

void check_members(const Scenario& s, const Counts& c) {
  if (c.members > kMaxMembers)
    throw InputError(s.file, s.members_mark,
                     fmt::format("this run makes {} members (members, joins and scale-outs), more than the {} "
                                 "this simulator takes in one run",
                                 format_count(c.members), format_count(kMaxMembers)));
  const double pairs = c.members * c.resources;
  if (pairs > kMaxMemberResources)
    throw InputError(s.file, s.members_mark,
                     fmt::format("{} members over the run (members, joins, scale-outs) x {} resources (partitions "
                                 "at their largest, connectors and their tasks) = {} member-resource pairs, above "
                                 "this simulator's limit of {} (each group epoch or rebalance reads every member and "
                                 "partition: twice 10,000 members x 500,000 partitions); use fewer members or "
                                 "partitions",
                                 format_count(c.members), format_count(c.resources), format_count(pairs),
                                 format_count(kMaxMemberResources)));
}

void check_member_topics(const Scenario& s, const Counts& c) {
  const double pairs = c.members * c.topics;
  if (pairs <= kMaxMemberTopics) return;
  throw InputError(s.file, s.members_mark,
                   fmt::format("{} members over the run (members, joins, scale-outs) x {} topics (declared or "
                               "created, and connectors) = {} member-topic pairs, above this simulator's limit of {} "
                               "(a classic member keeps its own copy of every topic's metadata); use fewer members "
                               "or topics",
                               format_count(c.members), format_count(c.topics), format_count(pairs),
                               format_count(kMaxMemberTopics)));
}

double run_events(const Scenario& s, std::string_view protocol, const Counts& c) {
  const Duration heartbeat = config_millis(s, heartbeat_key(s, protocol, c.upgrades));
  const Duration metadata = config_millis(s, "metadata.max.age.ms");
  return c.members * (periods(s, heartbeat) + periods(s, metadata)) + c.disruptions * c.members;
}

void check_run_events(const Scenario& s, std::string_view protocol, const Counts& c, bool keeps_trace) {
  const double events = run_events(s, protocol, c);
  const double limit = keeps_trace ? kMaxRunEvents : kMaxSummaryRunEvents;
  if (events <= limit) return;
  // What the message names, read again only for a run refused.
  const std::string_view key = heartbeat_key(s, protocol, c.upgrades);
  const Duration heartbeat = config_millis(s, key);
  const Duration metadata = config_millis(s, "metadata.max.age.ms");
  const double rejoins = c.disruptions * c.members;
  const std::string also =
      rejoins > 0 ? fmt::format(", plus every member rejoining at each of {} disruptions", format_count(c.disruptions))
                  : std::string();
  const std::string why =
      keeps_trace ? fmt::format("for a run that keeps its trace (each event about 200 bytes of it; `run --timeline "
                                "none` without --out, --trace or --html keeps none and takes up to {})",
                                format_count(kMaxSummaryRunEvents))
                  : std::string("(its time grows with them)");
  throw InputError(s.file, s.duration_mark,
                   fmt::format("this run would execute about {} events, above this simulator's limit of {} {}: {} "
                               "members for {}, each heartbeating every {} ({}) and refreshing metadata every {} "
                               "(metadata.max.age.ms){}; shorten duration, use fewer members or raise {} or "
                               "metadata.max.age.ms",
                               format_count(events), format_count(limit), why, format_count(c.members),
                               format_duration(s.duration), format_duration(heartbeat), key,
                               format_duration(metadata), also, key));
}

// ---- time range ----

using Wide = __int128;  // sums and products of durations cannot wrap in it

struct Reach {
  Wide end;
  std::string how;  // the sum, term by term, for the message
};

template <class Rolling>
Reach rolling_reach(const Event& ev, const Rolling& a) {
  const std::size_t gaps = a.members.ids.empty() ? 0 : a.members.ids.size() - 1;
  return {Wide{ev.at.count()} + Wide{a.interval.count()} * static_cast<Wide>(gaps) + a.down.count(),
          fmt::format("at + interval x (members - 1) + down = {} + {} x {} + {}", format_duration(ev.at),
                      format_duration(a.interval), gaps, format_duration(a.down))};
}

Reach plus(const Event& ev, Duration d, std::string_view name) {
  return {Wide{ev.at.count()} + d.count(),
          fmt::format("at + {} = {} + {}", name, format_duration(ev.at), format_duration(d))};
}

// The latest instant an event schedules something at, if past its `at`.
std::optional<Reach> reach(const Event& ev) {
  return std::visit(
      [&](const auto& a) -> std::optional<Reach> {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, Bounce> || std::is_same_v<A, Restart> || std::is_same_v<A, Upgrade> ||
                      std::is_same_v<A, CoordinatorFailover>)
          return plus(ev, a.down, "down");
        if constexpr (std::is_same_v<A, Pause> || std::is_same_v<A, Isolate>) return plus(ev, a.length, "for");
        if constexpr (std::is_same_v<A, Slow>) return plus(ev, a.length + a.batch, "for + batch");
        if constexpr (std::is_same_v<A, RollingBounce> || std::is_same_v<A, RollingRestart> ||
                      std::is_same_v<A, RollingUpgrade>)
          return rolling_reach(ev, a);
        return std::nullopt;
      },
      ev.action);
}

// Revocation and initialisation costs are paid per resource, in turn
// (Connect workers handle theirs in parallel): a member owning every
// partition pays the cost that many times.
void check_costs(const Scenario& s) {
  if (!s.connectors.empty()) return;
  Wide partitions = 0;
  for (const auto& [topic, n] : largest_partitions(s)) partitions += n;
  for (const auto& [name, cost] : {std::pair{"revoke", s.costs.revoke}, std::pair{"assign", s.costs.assign}}) {
    if (Wide{cost.count()} * partitions <= Wide{kMaxDuration.count()}) continue;
    throw InputError(s.file, s.costs.mark,
                     fmt::format("{} cost {} x {} partitions: a member handling them all, one after another, "
                                 "would take past {}, the latest instant this simulator schedules",
                                 name, format_duration(cost), format_count(static_cast<double>(partitions)),
                                 kMaxDurationText));
  }
}

// Processes over the run: members sharing a `process` count once; joins
// and scale-outs each start one.
double processes(const Scenario& s, const Counts& c) {
  std::set<std::string> shared;
  double own = 0;
  for (const auto& m : s.members)
    if (m.process) shared.insert(*m.process);
    else ++own;
  return own + static_cast<double>(shared.size()) + (c.members - static_cast<double>(s.members.size()));
}

// Stateful tasks with every topic at its largest, as the coordinator
// configures the topology (repartition topics' partitions inferred).
double stateful_tasks(const Scenario& s) {
  const auto largest = largest_partitions(s);
  const auto configured =
      protocols::streams::configure(streams_topology(s), protocols::streams::TopicMetadata(largest.begin(), largest.end()));
  double tasks = 0;
  for (const auto& st : configured.subtopologies)
    if (st.stateful) tasks += st.tasks;
  return tasks;
}

}  // namespace

void check_classic_streams(const Scenario& s, std::string_view protocol) {
  const auto* p = protocols::find_protocol(protocol);
  if (s.subtopologies.empty() || p == nullptr || p->family == protocols::Family::Consumer ||
      p->family == protocols::Family::Streams)
    return;
  const double clients = processes(s, count(s)), tasks = stateful_tasks(s), pairs = clients * tasks;
  if (pairs <= kMaxClassicStreamsPairs) return;
  throw InputError(s.file, s.members_mark,
                   fmt::format("a Streams application over the classic protocol ({}): Streams' high-availability "
                               "assignor ranks every client for every stateful task at each rebalance, as Kafka's "
                               "does; {} processes x {} stateful tasks = {} pairs, above this simulator's limit of "
                               "{} (its memory grows with them); use fewer processes or partitions, or protocol "
                               "streams (KIP-1071)",
                               protocol, format_count(clients), format_count(tasks), format_count(pairs),
                               format_count(kMaxClassicStreamsPairs)));
}

double estimated_run_events(const Scenario& s, std::string_view protocol) { return run_events(s, protocol, count(s)); }

void check_budget(const Scenario& s, std::string_view protocol, bool keeps_trace) {
  const Counts c = count(s);
  check_members(s, c);
  check_resources(s);
  check_member_topics(s, c);
  check_run_events(s, protocol, c, keeps_trace);
}

void check_time_range(const Scenario& s) {
  for (const auto& ev : s.events) {
    const auto r = reach(ev);
    if (!r || r->end <= Wide{kMaxDuration.count()}) continue;
    throw InputError(s.file, ev.mark,
                     fmt::format("{} event at {} reaches past {}, the latest instant this simulator schedules: {}",
                                 ev.kind, format_duration(ev.at), kMaxDurationText, r->how));
  }
  check_costs(s);
}

}  // namespace rsim::scenario
