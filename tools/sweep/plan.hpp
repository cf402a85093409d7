// A sweep: the cross product of --set values (points), variants (protocol,
// assignor) and seeds, numbered in that order (the seed varies fastest), so
// run K is the same run whatever --jobs or --shard is. Each run becomes one
// JSON line; a sweep's file is a header line and the run lines in run order,
// and a shard's file is the same header and its runs, so `merge` rebuilds
// exactly the unsharded file. The summary tables are computed from the lines
// alone, the same way for a sweep, a shard's merge and `compare --seeds`.
#pragma once

#include "scenarios/scenario.hpp"
#include "tools/sweep/overrides.hpp"
#include "tools/sweep/statistics.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rsim::sweep {

// A run that crashed or hung in its worker (a simulator bug): exit code 1.
struct RunFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Variant {
  std::string protocol;
  std::string assignor;
  std::string name() const { return protocol + "/" + assignor; }
};

// The variants `compare` and `sweep` run: without `protocols`, every one
// that runs the scenario's kind of group (scenario::protocols_for); each with the requested assignors it accepts, or its default
// (the scenario's own for the scenario's protocol); `plugin`: the plug-in
// (assignor exec) too, wherever it can stand in. Throws OptionError.
std::vector<Variant> resolve_variants(const scenario::Scenario& s, const std::vector<std::string>& protocols,
                                      std::vector<std::string> assignors, bool plugin = false);

struct Plan {
  std::string file;           // the scenario file, as given
  std::string scenario_name;
  std::vector<SetOption> sets;
  std::vector<Variant> variants;
  std::uint64_t first_seed = 1;
  std::uint64_t seeds = 1;
  // --assignor-exec: the plug-in the variants with assignor exec run (each
  // run its own process); unset, they run the scenario's.
  std::optional<scenario::AssignorExec> assignor_exec;

  std::size_t points() const;
  std::size_t runs() const { return points() * variants.size() * static_cast<std::size_t>(seeds); }
  // The values of point p, one per --set, in option order (the last varies fastest).
  std::vector<std::string> point_values(std::size_t point) const;
  std::string point_name(std::size_t point) const;  // "k1=v1 k2=v2", or "" without --set
  struct Run {
    std::size_t point, variant;
    std::uint64_t seed;
  };
  Run run(std::size_t index) const;
};

// The header line of a sweep's (and each shard's) JSON Lines file.
std::string header_line(const Plan& plan);
// Reads a header line back; throws OptionError naming `where`.
Plan parse_header(const std::string& line, const std::string& where);

// The metrics each run line carries: every numeric metric of the contract.
const std::vector<std::string>& run_metrics();

// One run's line (without its newline).
struct Record {
  std::size_t run = 0;
  std::vector<std::optional<double>> metrics;  // run_metrics() order
  std::string invariants;                      // "ok" or the violation
  bool violated() const { return invariants != "ok"; }
};
std::string run_line(const Plan& plan, std::size_t run, const Record& record);
// Checks it against the plan; throws OptionError naming `where`.
Record parse_run_line(const Plan& plan, const std::string& line, const std::string& where);

// The scenario of each point: the file with its point's values set, each
// judged by the loader. Throws OptionError naming the --set option.
std::vector<scenario::Scenario> point_scenarios(const Plan& plan, const std::string& text);

// Runs `indices` of the plan (all of it, or a shard) in `jobs` worker
// processes; records come back in index order. `progress` is told each
// finished run. A run the simulator refuses throws scenario::InputError.
std::vector<Record> run_plan(const Plan& plan, const std::vector<scenario::Scenario>& scenarios,
                             const std::vector<std::size_t>& indices, unsigned jobs,
                             const std::function<void(std::size_t done, std::size_t total)>& progress = {});

// "I/N" (1-based I): the runs of that shard, every N-th from I-1.
std::vector<std::size_t> shard_runs(const Plan& plan, const std::string& shard);

// The estimate of every metric for every (point, variant), from records
// that cover the whole plan.
struct Cell {
  std::vector<Estimate> metrics;  // run_metrics() order; count 0 when a metric has no value
  std::size_t violations = 0;
};
std::vector<std::vector<Cell>> estimate_cells(const Plan& plan, const std::vector<Record>& records);

// The JMH-style tables, one per point, and their rankings by the first of
// `shown` (downtime.total by default).
void write_tables(std::ostream& out, const Plan& plan, const std::vector<std::vector<Cell>>& cells,
                  const std::vector<std::string>& shown, const std::string& title);

// The metrics shown by default: compare's columns.
std::vector<std::string> default_shown_metrics();
// Checks --metrics names; throws OptionError.
std::vector<std::string> shown_metrics(const std::vector<std::string>& names);

// The unit of a metric's column: s, bytes, messages, count.
std::string unit_of(const std::string& metric);

}  // namespace rsim::sweep
