// The metrics of the scenario contract (scenario-format.md, "Metric names"):
// the one table of them. `expect:`, --format json, `compare`'s columns and
// `check`'s baseline all read it; metrics::value reads a metric off a run.
#pragma once

#include <string_view>
#include <vector>

namespace rsim::scenario {

enum class MetricKind { Count, Seconds, Invariants, Assignment };

struct MetricName {
  std::string_view name;
  MetricKind kind;
  std::string_view meaning;
  bool compared = false;  // a column of `compare`
  bool baselined = false; // kept by `check --baseline` (all better when lower)
  bool fractional = false;  // a count that is not whole (the fluid lag model's)
};

const std::vector<MetricName>& metric_names();
const MetricName* find_metric(std::string_view name);
std::vector<std::string_view> metric_name_list();

}  // namespace rsim::scenario
