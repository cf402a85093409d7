// The metrics of one run, computed from the trace alone (metrics read the
// trace; they never reach into actors). Definitions: DESIGN.md, "metrics/".
#pragma once

#include "metrics/invariants.hpp"
#include "metrics/lag.hpp"
#include "metrics/ownership.hpp"
#include "metrics/processing.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"
#include "sim/trace.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rsim::metrics {

using Violation = Finding;

struct Summary {
  // Start of the measurement window: `metrics.from`, or the first moment the
  // group is stable with every resource owned and ready. Unset if never.
  std::optional<Time> window_start;
  Time end;
  int rebalances = 0;   // coordinator generations that became Stable inside the window
  int moves = 0;        // resources that passed to a different member inside the window
  int revocations = 0;  // resources revoked inside the window
  // JoinGroup and SyncGroup bytes (requests and responses) of the round
  // trips completed inside the window.
  std::int64_t protocol_bytes = 0;
  int final_generation = 0;
  DowntimeStats downtime;             // over resources, inside the window
  Duration stop_the_world{0};         // nothing processed while a member is alive
  std::map<std::string, Duration> downtime_by_resource;
  // The longest time, over disruptions in the window, until the group was
  // stable again (to the window's end for one that never was).
  Duration time_to_stable{0};
  std::vector<Recovery> recoveries;
  // Streams only: time spent restoring state before processing, summed over
  // the restorations started in the window (each from `restoring` to the
  // time it announced; part of the downtime, shown apart from the waiting).
  std::optional<Duration> restoration;
  // Consumer and Streams groups: the largest target assignment batch the
  // coordinator wrote (bytes, with Kafka's encodings), and how many batches
  // were over message.max.bytes, over the whole run.
  std::optional<std::int64_t> target_batch_max;
  int target_batch_over_limit = 0;
  std::optional<LagResult> lag;  // only with the scenario's load:
  std::map<std::string, std::vector<std::string>> final_assignment;  // member -> resources
  std::optional<Violation> violation;  // the first broken safety invariant
  std::vector<Finding> findings;       // every broken safety invariant, in time order
  int generations_reissued = 0;        // generations formed again after a failover (Kafka's behaviour)
  // Resources still held by a member the coordinator had removed when they
  // were given to another (classic protocol, frozen or cut-off members).
  std::vector<Zombie> zombies;
};

// Message rates per partition, for the lag model.
using LoadRates = LagRates;

// The scenario's load: (unset without one), for lag.
std::optional<LoadRates> load_rates(const scenario::Scenario& s);

// `resources` lists every resource in declaration order (it orders the final
// assignment); `from` is the scenario's metrics.from; `load` enables lag.
Summary summarize(const std::vector<TraceEvent>& trace, const std::vector<std::string>& resources, Time end,
                  std::optional<Duration> from, std::optional<LoadRates> load = std::nullopt,
                  const InvariantRules& rules = {});

// A run's summary folded as the run goes (scenario::RunOptions::observer):
// the run need keep no trace, so its memory does not grow with its events.
// Gives what summarize gives for the same run.
class SummaryFold final : public scenario::RunObserver {
 public:
  SummaryFold(std::optional<Duration> from, std::optional<LoadRates> load, const InvariantRules& rules);
  // A scenario's window, load and invariants under `protocol`.
  SummaryFold(const scenario::Scenario& s, const std::string& protocol);
  ~SummaryFold() override;
  SummaryFold(const SummaryFold&) = delete;
  SummaryFold& operator=(const SummaryFold&) = delete;

  void start(const std::vector<std::string>& initial_resources, Time end,
             scenario::ResourceFilter is_resource) override;
  void observe(const TraceEvent& ev) override;
  // `resources`: every resource at the end, in declaration order.
  Summary finish(const std::vector<std::string>& resources);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// A run and its summary, folded as it went: the run's trace is empty unless
// `options.keep_trace` (RunOptions::observer is the fold's).
struct SummarizedRun {
  scenario::RunResult run;
  Summary summary;
};
SummarizedRun run_summarized(const scenario::Scenario& s, scenario::RunOptions options);

// The invariants a scenario's run is held to: its protocol's rules, its
// static members, and how long a zombie may last, from its timeouts.
InvariantRules invariant_rules(const scenario::Scenario& s, const std::string& protocol);

// The summary of a scenario's run, with its window and load.
Summary summarize(const scenario::Scenario& s, const scenario::RunResult& run);

std::string describe(const Violation& v);

// A numeric metric of scenario::metric_names() read off a run, durations in
// seconds; unset when the run has none (lag without load:) or the metric is
// not a number (invariants, final-assignment).
std::optional<double> value(const Summary& s, std::string_view metric);

}  // namespace rsim::metrics
