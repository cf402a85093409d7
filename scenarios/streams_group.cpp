#include "scenarios/streams_group.hpp"

#include "scenarios/streams_topology.hpp"

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
    : cluster_(cluster), topology_(streams_topology(s)), state_(state_costs(s), stateful_subtopologies(s)) {
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

}  // namespace rsim::scenario
