#include "metrics/summary.hpp"

#include "metrics/member_log.hpp"
#include "metrics/ownership.hpp"
#include "protocols/catalog.hpp"
#include "scenarios/config_keys.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <set>
#include <string_view>
#include <unordered_map>

namespace rsim::metrics {

std::optional<double> value(const Summary& s, std::string_view metric) {
  auto seconds = [](Duration d) { return static_cast<double>(d.count()) / 1e6; };
  if (metric == "rebalances") return s.rebalances;
  if (metric == "stop-the-world") return seconds(s.stop_the_world);
  if (metric == "downtime.total") return seconds(s.downtime.total);
  if (metric == "downtime.max") return seconds(s.downtime.max);
  if (metric == "downtime.p50") return seconds(s.downtime.p50);
  if (metric == "downtime.p99") return seconds(s.downtime.p99);
  if (metric == "time-to-stable") return seconds(s.time_to_stable);
  if (metric == "moves") return s.moves;
  if (metric == "revocations") return s.revocations;
  if (metric == "protocol-bytes") return static_cast<double>(s.protocol_bytes);
  if (metric == "final-generation") return s.final_generation;
  if (metric == "restoration") return s.restoration ? std::optional<double>(seconds(*s.restoration)) : std::nullopt;
  if (metric == "target-batch.max") return s.target_batch_max ? std::optional<double>(static_cast<double>(*s.target_batch_max)) : std::nullopt;
  if (metric == "target-batch.over-limit") return s.target_batch_max ? std::optional<double>(s.target_batch_over_limit) : std::nullopt;
  if (!s.lag) return std::nullopt;
  if (metric == "lag.peak") return s.lag->peak;
  if (metric == "lag.catch-up") return seconds(s.lag->catch_up);
  return std::nullopt;
}

std::string describe(const Violation& v) {
  return fmt::format("{} at {} ({})", v.what, format_time(v.at), fmt::join(v.members, ", "));
}

// Named, not anonymous: SummaryFold::State, declared in the header, holds one.
namespace summary_detail {

// The default window start: the first moment at which the coordinator's
// group is Stable and every resource has exactly one owner that is ready.
// Checked after every event until then, incrementally: the resources before
// a cursor were found so (each resource's answer depends only on who
// processes it and who owns it), and those touched since are checked again
// from a queue, so a large group that becomes ready member by member is not
// walked whole at every event (issue 16: 10,000 members x 500,000 partitions
// starting from an initial assignment spent 30 s here).
class StableWatch {
 public:
  explicit StableWatch(const std::vector<std::string>& resources) : resources_(resources.begin(), resources.end()) {
    for (std::size_t i = 0; i < resources_.size(); ++i) {
      const std::size_t id = resources_[i].id();
      if (id >= position_.size()) position_.resize(id + 1, kNone);
      position_[id] = i;
    }
    queued_.resize(resources_.size(), false);
  }

  void apply(const TraceEvent& ev, const Ownership& ownership) {
    if (ev.actor == "coordinator" && ev.kind == "state") {
      const std::string* to = ev.text("to");
      stable_ = to != nullptr && *to == "Stable";
    } else if (ev.kind == "ready") {
      if (const auto* rs = ev.list("resources")) {
        const Name member(ev.actor);
        MemberLog<Name>& log = ready_log_[ev.actor];
        for (const Name r : *rs) {
          set_ready(r, member);
          log.add(r);
        }
        log.compact([&](Name r) { return ready_slot(r) == member; });
      }
    } else if (ev.kind == "revoking" || ev.kind == "lost") {
      if (const auto* rs = ev.list("resources"))
        for (const Name r : *rs) set_ready(r, Name());
    } else if (ev.kind == "crash" || ev.kind == "stopped") {
      const Name member(ev.actor);
      for (const Name r : ready_log_[ev.actor].entries())
        if (ready_slot(r) == member) set_ready(r, Name());
      ready_log_.erase(ev.actor);
    }
    if (ev.kind == "stable") stable_ = true;
    if (!first_ && stable_ && all_ready(ownership)) first_ = ev.at;
  }

  // Ownership's owners of `resource` changed.
  void touch(Name resource) {
    if (first_ || resource.id() >= position_.size()) return;
    const std::size_t i = position_[resource.id()];
    if (i == kNone || i >= cursor_ || queued_[i]) return;
    queued_[i] = true;
    touched_.push_back(i);
  }

  std::optional<Time> first() const { return first_; }

 private:
  static constexpr std::size_t kNone = SIZE_MAX;

  bool all_ready(const Ownership& ownership) {
    while (!touched_.empty()) {  // the first still not ready is asked again next time
      if (!ready(touched_.front(), ownership)) return false;
      queued_[touched_.front()] = false;
      touched_.pop_front();
    }
    while (cursor_ < resources_.size() && ready(cursor_, ownership)) ++cursor_;
    return cursor_ == resources_.size();
  }

  // resources_[i] has one owner, the member processing it.
  bool ready(std::size_t i, const Ownership& ownership) const {
    const Name r = resources_[i];
    const Name member = r.id() < ready_.size() ? ready_[r.id()] : Name();
    if (member == Name()) return false;
    const auto& holders = ownership.owners(r);
    return holders.size() == 1 && holders.front() == member;
  }

  void set_ready(Name resource, Name member) {
    ready_slot(resource) = member;
    touch(resource);
  }

  Name& ready_slot(Name resource) {
    if (resource.id() >= ready_.size()) ready_.resize(resource.id() + 1);
    return ready_[resource.id()];
  }

  std::vector<Name> resources_;
  std::vector<std::size_t> position_;  // resource's Name::id() -> its index in resources_; kNone if not one
  std::size_t cursor_ = 0;             // resources_ before it were ready when last asked ...
  std::deque<std::size_t> touched_;    // ... but for these, touched since (indexes below the cursor)
  std::vector<bool> queued_;           // index -> in touched_
  std::vector<Name> ready_;  // resource's Name::id() -> member processing it; empty if none
  std::map<std::string, MemberLog<Name>> ready_log_;  // member -> what it made ready
  bool stable_ = false;
  std::optional<Time> first_;
};

}  // namespace summary_detail

std::optional<LoadRates> load_rates(const scenario::Scenario& s) {
  if (!s.load) return std::nullopt;
  return LoadRates{s.load->produce_rate, s.load->process_rate};
}

// What the fold keeps between events: the loop of a summary, and the
// processing replay fed as the window allows.
struct SummaryFold::State {
  State(std::optional<Duration> from, std::optional<LoadRates> load, const InvariantRules& rules)
      : from(from), load(load), invariants(rules) {
    if (from) s.window_start = time_at(*from);
    ownership.on_double_ownership([this](Time at, const std::string& r, const std::string& holder,
                                         const std::string& newcomer) { invariants.double_ownership(at, r, holder, newcomer); });
    ownership.on_zombie_end([this](std::size_t index) { invariants.zombie_ended(index); });
    ownership.on_owners_change([this](Name r) {
      if (watch) watch->touch(r);
    });
    ownership.on_move([this](Time at, const std::string&, const std::string&, const std::string&) {
      if (in_window(at)) ++s.moves;
    });
  }

  // The window is (start, end]: what happens at the start instant is what
  // established it.
  bool in_window(Time at) const { return s.window_start && at > *s.window_start; }

  void count(const TraceEvent& ev, bool counted) {
    if (ev.actor == "coordinator" && ev.kind == "generation") {
      s.final_generation = static_cast<int>(ev.integer("generation").value_or(0));
      if (auto bytes = ev.integer("target-bytes")) s.target_batch_max = std::max(s.target_batch_max.value_or(0), *bytes);
    }
    if (ev.actor == "coordinator" && ev.kind == "batch-too-large") ++s.target_batch_over_limit;
    if (ev.actor == "coordinator" && ev.kind == "stable" && counted) ++s.rebalances;
    if ((ev.kind == "joined" || ev.kind == "assigned" || ev.kind == "heartbeat") && counted)
      s.protocol_bytes += ev.integer("bytes").value_or(0);
    if (ev.kind == "revoking" && counted)
      if (const auto* rs = ev.list("resources")) s.revocations += static_cast<int>(rs->size());
    if (ev.actor == "scenario" && ev.kind == "process" && !s.restoration) s.restoration = Duration{0};  // a Streams group
    if (ev.kind == "restoring" && counted)
      if (auto until = ev.integer("until_us")) *s.restoration += std::min(Time{Duration{*until}}, end) - ev.at;
  }

  // The processing replay must know the window's start before the first
  // event at that instant; found by the stable watch, it is known only at
  // some event of that instant, so the events of the latest instant wait
  // until the window starts or time moves on (then none of them is in it).
  void feed_processing(const TraceEvent& ev) {
    if (processing->window_started()) {
      processing->apply(ev);
      return;
    }
    if (s.window_start) {
      processing->start_window(*s.window_start);
      flush_waiting();
      processing->apply(ev);
      return;
    }
    if (!waiting.empty() && waiting.back().at < ev.at) flush_waiting();
    waiting.push_back(ev);
  }

  void flush_waiting() {
    for (const auto& p : waiting) processing->apply(p);
    waiting.clear();
  }

  std::optional<Duration> from;
  std::optional<LoadRates> load;
  Time end = kTimeZero;  // the run's end (its horizon), known from the start
  Summary s;
  Ownership ownership;
  InvariantChecker invariants;
  std::optional<summary_detail::StableWatch> watch;
  std::unique_ptr<ProcessingFold> processing;
  std::vector<TraceEvent> waiting;  // events of the latest instant, before the window is known
};

SummaryFold::SummaryFold(std::optional<Duration> from, std::optional<LoadRates> load, const InvariantRules& rules)
    : state_(std::make_unique<State>(from, load, rules)) {}

SummaryFold::SummaryFold(const scenario::Scenario& s, const std::string& protocol)
    : SummaryFold(s.metrics_from, load_rates(s), invariant_rules(s, protocol)) {}

SummaryFold::~SummaryFold() = default;

void SummaryFold::start(const std::vector<std::string>& initial_resources, Time end,
                        scenario::ResourceFilter is_resource) {
  State& st = *state_;
  st.end = end;
  // Resources added during the run do not hold back the default window.
  st.watch.emplace(initial_resources);
  ProcessingOptions options;
  options.keep_intervals = false;
  options.lag = st.load;
  st.processing = std::make_unique<ProcessingFold>(initial_resources, options, end, std::move(is_resource));
  if (st.s.window_start) st.processing->start_window(*st.s.window_start);
}

void SummaryFold::observe(const TraceEvent& ev) {
  State& st = *state_;
  const bool counted = st.in_window(ev.at);
  st.ownership.apply(ev);
  st.invariants.apply(ev, st.ownership);
  if (!st.from && !st.s.window_start) {
    st.watch->apply(ev, st.ownership);
    st.s.window_start = st.watch->first();
  }
  st.count(ev, counted);
  st.feed_processing(ev);
}

Summary SummaryFold::finish(const std::vector<std::string>& resources) {
  State& st = *state_;
  Summary& s = st.s;
  const Time end = st.end;
  s.end = end;
  s.zombies = st.ownership.zombies();
  st.invariants.finish(s.zombies, end);
  s.findings = st.invariants.findings();
  if (!s.findings.empty()) s.violation = s.findings.front();
  s.generations_reissued = st.invariants.generations_reissued();
  if (s.window_start) {
    auto processing = st.processing->finish(end);
    s.downtime = downtime_stats(processing.downtime);
    s.stop_the_world = processing.stop_the_world;
    s.downtime_by_resource = std::move(processing.downtime);
    for (const auto& r : processing.recoveries)
      s.time_to_stable = std::max(s.time_to_stable, r.stable.value_or(end) - r.at);
    s.recoveries = std::move(processing.recoveries);
    s.lag = processing.lag;
  }
  // Each member's resources in declaration order (the unknown last, by
  // name), each place looked up once, not at every comparison.
  std::unordered_map<std::string_view, std::size_t> order;  // never iterated
  order.reserve(resources.size());
  for (std::size_t i = 0; i < resources.size(); ++i) order.insert_or_assign(resources[i], i);
  for (auto& [member, owned] : st.ownership.by_member()) {
    std::vector<std::pair<std::size_t, std::string>> placed;
    placed.reserve(owned.size());
    for (const auto& r : owned) {
      const auto it = order.find(r);
      placed.emplace_back(it == order.end() ? SIZE_MAX : it->second, r);
    }
    std::sort(placed.begin(), placed.end());
    std::vector<std::string> list;
    list.reserve(placed.size());
    for (auto& [place, r] : placed) list.push_back(std::move(r));
    if (!list.empty()) s.final_assignment[member] = std::move(list);
  }
  return std::move(s);
}

Summary summarize(const std::vector<TraceEvent>& trace, const std::vector<std::string>& resources, Time end,
                  std::optional<Duration> from, std::optional<LoadRates> load, const InvariantRules& rules) {
  SummaryFold fold(from, load, rules);
  const std::set<std::string> later = created_later(trace);
  std::vector<std::string> initial;
  for (const auto& r : resources)
    if (later.count(r) == 0) initial.push_back(r);
  const std::set<std::string> measured(resources.begin(), resources.end());
  fold.start(initial, end, [&](const std::string& r) { return measured.count(r) != 0; });
  for (const auto& ev : trace) fold.observe(ev);
  return fold.finish(resources);
}

InvariantRules invariant_rules(const scenario::Scenario& s, const std::string& protocol) {
  using scenario::config_millis;
  InvariantRules rules;
  rules.eager = protocol == "eager";
  const bool statics = protocols::sends_instance_id(protocol);  // under connect every member is dynamic
  for (const auto& m : s.members)
    if (m.instance_id && statics) rules.static_members.insert(m.id);
  for (const auto& ev : s.events)
    if (const auto* j = std::get_if<scenario::Join>(&ev.action); j && j->member.instance_id && statics)
      rules.static_members.insert(j->member.id);
  // A removed member notices at its next heartbeat, or when a request it has
  // in flight times out (a classic JoinGroup's: the rebalance timeout + 5 s);
  // a few heartbeats more for messages lost on the way.
  const Duration heartbeat =
      std::max(config_millis(s, "heartbeat.interval.ms"), config_millis(s, "group.consumer.heartbeat.interval.ms"));
  const Duration join_timeout = std::max(config_millis(s, "max.poll.interval.ms"), config_millis(s, "rebalance.timeout.ms")) +
                                std::chrono::seconds(5);
  rules.zombie_grace = std::max(config_millis(s, "request.timeout.ms"), join_timeout) + 5 * heartbeat +
                       config_millis(s, "retry.backoff.max.ms") + std::chrono::seconds(1);
  rules.join_timeout = join_timeout;
  rules.request_timeout = config_millis(s, "request.timeout.ms");
  rules.heartbeat_interval = config_millis(s, "heartbeat.interval.ms");
  int resources = 0;
  for (const auto& t : s.topics) resources += t.partitions;
  for (const auto& ev : s.events)
    if (const auto* ap = std::get_if<scenario::AddPartitions>(&ev.action)) resources += ap->count;
    else if (const auto* ct = std::get_if<scenario::CreateTopic>(&ev.action)) resources += ct->partitions;
  Duration revoke = s.costs.revoke;
  for (const auto& c : s.connectors) {
    resources += c.tasks + 1;
    revoke = std::max(revoke, c.revoke_cost.value_or(Duration{0}));
  }
  rules.revoke_allowance = resources * revoke;
  return rules;
}

SummarizedRun run_summarized(const scenario::Scenario& s, scenario::RunOptions options) {
  SummaryFold fold(s, scenario::effective_protocol(s, options));
  options.observer = &fold;
  SummarizedRun out;
  out.run = scenario::run(s, options);
  out.summary = fold.finish(out.run.resources);
  return out;
}

Summary summarize(const scenario::Scenario& s, const scenario::RunResult& run) {
  return summarize(run.trace.events(), run.resources, run.end, s.metrics_from, load_rates(s),
                   invariant_rules(s, run.protocol));
}

}  // namespace rsim::metrics
