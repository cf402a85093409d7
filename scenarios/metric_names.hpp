// The metric names of the scenario contract (scenario-format.md, "Metric
// names"), shared by `expect:`, --format json and the summary table.
#pragma once

#include <string_view>
#include <vector>

namespace rsim::scenario {

enum class MetricKind { Count, Seconds, Invariants, Assignment };

struct MetricName {
  std::string_view name;
  MetricKind kind;
  std::string_view meaning;
};

const std::vector<MetricName>& metric_names();
const MetricName* find_metric(std::string_view name);
std::vector<std::string_view> metric_name_list();

}  // namespace rsim::scenario
