#include "scenarios/streams_topology.hpp"

namespace rsim::scenario {

namespace streams = protocols::streams;

std::vector<streams::SubtopologySpec> subtopology_specs(const std::vector<Subtopology>& subtopologies) {
  std::vector<streams::SubtopologySpec> out;
  for (const auto& st : subtopologies) {
    streams::SubtopologySpec spec{st.id, st.source, {}, st.state, st.copartition};
    for (const auto& sink : st.repartition_sink) {
      const auto it = st.sink_partitions.find(sink);
      spec.repartition_sinks.push_back({sink, it == st.sink_partitions.end() ? std::nullopt : std::optional<int>(it->second)});
    }
    out.push_back(std::move(spec));
  }
  return out;
}

streams::TopicMetadata initial_topic_metadata(const Scenario& s) {
  streams::TopicMetadata out;
  for (const auto& t : s.topics) out.emplace(t.name, t.partitions);
  return out;
}

streams::Topology streams_topology(const Scenario& s) { return streams::Topology::build(subtopology_specs(s.subtopologies)); }

}  // namespace rsim::scenario
