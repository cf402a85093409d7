#include "scenarios/streams_group.hpp"

#include "scenarios/config_keys.hpp"
#include "scenarios/streams_topology.hpp"

#include <chrono>

namespace rsim::scenario {

namespace streams = protocols::streams;

namespace {

std::set<std::string> stateful_subtopologies(const Scenario& s) {
  std::set<std::string> out;
  for (const auto& st : s.subtopologies)
    if (!st.state.empty()) out.insert(st.id);
  return out;
}

streams::StateCosts state_costs(const Scenario& s) {
  return {s.costs.state_bytes, s.costs.restore_bytes_per_s, s.costs.changelog_bytes_per_s};
}

}  // namespace

StreamsGroup::StreamsGroup(const Scenario& s, const std::map<std::string, int>& cluster)
    : cluster_(cluster),
      topology_(streams_topology(s)),
      state_(state_costs(s), stateful_subtopologies(s), config_millis(s, "state.cleanup.delay.ms")) {
  const auto now = tasks();
  known_.insert(now.begin(), now.end());
}

std::vector<std::string> StreamsGroup::tasks() const {
  const auto configured = streams::configure(topology_, streams::TopicMetadata(cluster_.begin(), cluster_.end()));
  return configured.ready() ? configured.task_ids() : std::vector<std::string>{};
}

void StreamsGroup::topics_changed(Trace& trace, Time now) {
  std::vector<std::string> added;
  for (const auto& t : tasks())
    if (known_.insert(t).second) added.push_back(t);
  if (!added.empty()) trace.emit(now, "scenario", "resources-added", {{"resources", added}});
}

streams::StreamsIdentity streams_identity(const MemberSpec& spec) {
  return {spec.process.value_or(spec.id), spec.rack};
}

streams::ha::AssignmentConfigs streams_assignment_configs(const Scenario& s) {
  streams::ha::AssignmentConfigs c;
  c.acceptable_recovery_lag = config_integer(s, "acceptable.recovery.lag");
  c.max_warmup_replicas = static_cast<int>(config_integer(s, "max.warmup.replicas"));
  c.num_standby_replicas = static_cast<int>(config_integer(s, "num.standby.replicas"));
  c.probing_rebalance_interval_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(config_millis(s, "probing.rebalance.interval.ms")).count();
  return c;
}

std::int64_t changelog_records(const Scenario& s) {
  const std::uint64_t r = s.costs.record_bytes;
  return static_cast<std::int64_t>((s.costs.state_bytes + r - 1) / r);
}

}  // namespace rsim::scenario
