// Baselines for `check`: the metrics of each scenario's run, saved as JSON,
// and the comparison of a new run against them. Every metric here is
// better when lower, so a regression is a rise beyond the tolerance.
#pragma once

#include "metrics/summary.hpp"

#include <map>
#include <string>
#include <vector>

namespace rsim::report {

// The metrics a baseline keeps, by contract name (durations in seconds).
std::map<std::string, double> baseline_metrics(const metrics::Summary& s);

struct BaselineEntry {
  std::string protocol;
  std::string assignor;
  std::uint64_t seed = 0;
  std::map<std::string, double> metrics;
};

using Baseline = std::map<std::string, BaselineEntry>;  // scenario name (older baselines: file) -> entry

// Throws scenario::InputError on a file that is not a baseline.
Baseline read_baseline(const std::string& path);
// `simulator`: the version that wrote it (kept for the reader; a baseline
// from another version may differ by its changes, not by a regression).
void write_baseline(const std::string& path, const Baseline& b, const std::string& simulator);

struct MetricChange {
  std::string metric;
  double old_value = 0;
  double new_value = 0;
  double tolerance_pct = 0;
  bool regression = false;
};

// Compares every metric of `old_entry`; `tolerance_pct` per metric name.
std::vector<MetricChange> compare_to_baseline(const BaselineEntry& old_entry, const std::map<std::string, double>& now,
                                              const std::map<std::string, double>& tolerance_pct);

}  // namespace rsim::report
