#include "scenarios/metric_names.hpp"

namespace rsim::scenario {

const std::vector<MetricName>& metric_names() {
  // In the order --format json lists them.
  static const std::vector<MetricName> kNames{
      {"rebalances", MetricKind::Count, "completed rebalances in the window", true, true},
      {"stop-the-world", MetricKind::Seconds, "time when nothing is processed while a member is alive", true, true},
      {"downtime.total", MetricKind::Seconds, "not-processed time summed over resources", true, true},
      {"downtime.max", MetricKind::Seconds, "largest not-processed time of a resource", true, true},
      {"downtime.p50", MetricKind::Seconds, "median not-processed time over resources", false, true},
      {"downtime.p99", MetricKind::Seconds, "99th percentile not-processed time over resources", true, true},
      {"time-to-stable", MetricKind::Seconds, "longest time from a disruption until all is processed", true, true},
      {"lag.peak", MetricKind::Count, "peak backlog in messages", true, false, true},
      {"lag.catch-up", MetricKind::Seconds, "longest catch-up time", false, false},
      {"restoration", MetricKind::Seconds, "Streams: time spent restoring state before processing, summed", true, false},
      {"moves", MetricKind::Count, "ownership transfers between members", true, true},
      {"revocations", MetricKind::Count, "resources revoked", true, true},
      {"protocol-bytes", MetricKind::Count, "JoinGroup and SyncGroup bytes, requests and responses", true, true},
      {"target-batch.max", MetricKind::Count, "consumer, streams: largest target assignment record batch, bytes (whole run)", false, false},
      {"target-batch.over-limit", MetricKind::Count, "consumer, streams: target assignment batches over message.max.bytes (whole run)", false, true},
      {"final-generation", MetricKind::Count, "classic generation id, or group epoch, at the end", true, false},
      {"invariants", MetricKind::Invariants, "ok, or the first violation"},
      {"final-assignment", MetricKind::Assignment, "ownership at the end of the run"},
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
