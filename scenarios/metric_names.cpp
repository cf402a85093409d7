#include "scenarios/metric_names.hpp"

namespace rsim::scenario {

const std::vector<MetricName>& metric_names() {
  static const std::vector<MetricName> kNames{
      {"rebalances", MetricKind::Count, "completed rebalances in the window"},
      {"moves", MetricKind::Count, "ownership transfers between members"},
      {"revocations", MetricKind::Count, "resources revoked"},
      {"protocol-bytes", MetricKind::Count, "JoinGroup and SyncGroup bytes, requests and responses"},
      {"stop-the-world", MetricKind::Seconds, "time when nothing is processed while a member is alive"},
      {"downtime.total", MetricKind::Seconds, "not-processed time summed over resources"},
      {"downtime.max", MetricKind::Seconds, "largest not-processed time of a resource"},
      {"downtime.p50", MetricKind::Seconds, "median not-processed time over resources"},
      {"downtime.p99", MetricKind::Seconds, "99th percentile not-processed time over resources"},
      {"time-to-stable", MetricKind::Seconds, "longest time from a disruption until all is processed"},
      {"lag.peak", MetricKind::Count, "peak backlog in messages"},
      {"lag.catch-up", MetricKind::Seconds, "longest catch-up time"},
      {"invariants", MetricKind::Invariants, "ok, or the first violation"},
      {"final-assignment", MetricKind::Assignment, "ownership at the end of the run"},
      {"final-generation", MetricKind::Count, "classic generation id, or group epoch, at the end"},
  };
  return kNames;
}

const MetricName* find_metric(std::string_view name) {
  for (const auto& m : metric_names())
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string_view> metric_name_list() {
  std::vector<std::string_view> names;
  for (const auto& m : metric_names()) names.push_back(m.name);
  return names;
}

}  // namespace rsim::scenario
