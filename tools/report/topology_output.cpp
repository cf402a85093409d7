#include "tools/report/topology_output.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cassert>

namespace rsim::report {

namespace {

namespace streams = protocols::streams;

std::string task_range(const streams::ConfiguredSubtopology& st) {
  assert(st.tasks > 0);
  if (st.tasks == 1) return streams::task_id(st.id, 0);
  return fmt::format("{} .. {}", streams::task_id(st.id, 0), streams::task_id(st.id, st.tasks - 1));
}

// "8 (derived)" or "8 (enforced)": a repartition topic's count and whence.
std::string repartition_count(const streams::Topology& t, const streams::ConfiguredTopology& c, const std::string& topic) {
  return fmt::format("{} ({})", c.repartition_partitions.at(topic), t.repartition_topics().at(topic) ? "enforced" : "derived");
}

// "8" for a topic of the cluster, "8 (repartition, derived)" for a repartition topic.
std::string source_count(const streams::Topology& t, const streams::ConfiguredTopology& c, const std::string& topic,
                         const streams::TopicMetadata& metadata) {
  if (!t.is_repartition_topic(topic)) return std::to_string(metadata.at(topic));
  return "repartition " + repartition_count(t, c, topic);
}

void write_subtopology(std::ostream& out, const streams::Topology& t, const streams::ConfiguredTopology& c,
                       std::size_t i, const streams::TopicMetadata& metadata) {
  const auto& spec = t.subtopologies()[i];
  const auto& st = c.subtopologies[i];
  out << fmt::format("subtopology {}: {} tasks {}, {}\n", st.id, st.tasks, task_range(st), st.stateful ? "stateful" : "stateless");
  for (const auto& topic : spec.source_topics) out << fmt::format("  source {} {}\n", topic, source_count(t, c, topic, metadata));
  for (const auto& sink : spec.repartition_sinks)
    out << fmt::format("  repartition-sink {} {}\n", sink.name, repartition_count(t, c, sink.name));
  for (const auto& group : spec.copartition_groups) out << fmt::format("  copartition [{}]\n", fmt::join(group, ", "));
  for (const auto& log : st.changelogs) out << fmt::format("  changelog {} {}\n", log.name, log.partitions);
}

}  // namespace

void write_topology(std::ostream& out, const streams::Topology& t, const streams::ConfiguredTopology& c,
                    const streams::TopicMetadata& metadata) {
  out << "status " << streams::status_name(c.status);
  if (!c.status_detail.empty()) out << " (" << c.status_detail << ")";
  out << '\n';
  std::vector<std::string> order;
  for (std::size_t i : t.dependency_order()) order.push_back(t.subtopologies()[i].id);
  out << fmt::format("dependency order {}\n", fmt::join(order, ", "));
  if (!c.ready()) {
    out << "no tasks: the group assigns none until the topology is configured\n";
    return;
  }
  for (std::size_t i = 0; i < c.subtopologies.size(); ++i) write_subtopology(out, t, c, i, metadata);
  out << fmt::format("tasks {}\n", c.task_ids().size());
}

}  // namespace rsim::report
