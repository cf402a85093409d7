// A topology's partition counts for the cluster's current topics, in the
// order of Kafka's InternalTopicManager.configureTopics (kip1071 branch):
// missing source topics, repartition topics (RepartitionTopics),
// co-partitioning (CopartitionedTopicsEnforcer), changelogs and tasks
// (ChangelogTopics).
#include "protocols/streams/topology.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cassert>
#include <optional>
#include <variant>

namespace rsim::protocols::streams {

namespace {

using Counts = std::map<std::string, int>;  // repartition topic -> partitions

int partitions_of(const std::string& topic, const Counts& repartition, const TopicMetadata& metadata) {
  if (auto it = repartition.find(topic); it != repartition.end()) return it->second;
  const auto it = metadata.find(topic);
  assert(it != metadata.end());  // missing source topics were ruled out first
  return it->second;
}

// The most partitions among a sub-topology's sources: its task count, and
// what each repartition topic it writes gets unless enforced.
int max_source_partitions(const SubtopologySpec& st, const Counts& repartition, const TopicMetadata& metadata) {
  int most = 0;
  for (const auto& topic : st.source_topics) most = std::max(most, partitions_of(topic, repartition, metadata));
  return most;
}

// RepartitionTopics.computePartitionCount: a repartition topic without an
// enforced count gets the most partitions among the source topics of the
// sub-topologies that write it. Kafka iterates until nothing changes;
// visiting writers in dependency order gives each topic its count in one
// pass, with every input of every writer already known.
Counts repartition_counts(const Topology& t, const TopicMetadata& metadata) {
  Counts counts;
  for (const auto& [topic, enforced] : t.repartition_topics())
    if (enforced) counts[topic] = *enforced;
  Counts derived;
  for (std::size_t i : t.dependency_order()) {
    const auto& st = t.subtopologies()[i];
    for (const auto& sink : st.repartition_sinks) {
      if (sink.partitions || t.repartition_topics().at(sink.name)) continue;
      int& count = derived[sink.name];
      count = std::max(count, max_source_partitions(st, counts, metadata));
    }
    // Readers come after every writer: publish what is final for them.
    for (const auto& [topic, count] : derived) counts[topic] = count;
  }
  return counts;
}

// Java's TreeMap.toString inside Kafka's brackets: "[{a=4, b=6}]".
std::string sorted_counts(const std::map<std::string, int>& m) {
  std::string text;
  for (const auto& [topic, count] : m) text += fmt::format("{}{}={}", text.empty() ? "" : ", ", topic, count);
  return "[{" + text + "}]";
}

struct Inconsistent {
  std::string detail;
};

// CopartitionedTopicsEnforcer.enforce for one group: the count its
// repartition topics must have, or why the group cannot be co-partitioned.
std::variant<int, Inconsistent> copartition_count(const Topology& t, const std::vector<std::string>& group,
                                                  const Counts& counts, const TopicMetadata& metadata) {
  std::map<std::string, int> repartition, external, enforced;
  for (const auto& topic : group) {
    if (t.is_repartition_topic(topic)) {
      repartition[topic] = counts.at(topic);
      if (t.repartition_topics().at(topic)) enforced[topic] = counts.at(topic);
    } else {
      external[topic] = partitions_of(topic, counts, metadata);
    }
  }
  if (!external.empty()) {
    // Otherwise, use the number of partitions from external topics (which must all be the same).
    for (const auto& [topic, count] : external)
      if (count != external.begin()->second) return Inconsistent{"Topics not co-partitioned: " + sorted_counts(external)};
    return external.begin()->second;
  }
  if (!enforced.empty()) {
    for (const auto& [topic, count] : enforced)
      if (count != enforced.begin()->second)
        return Inconsistent{"Following topics do not have the same number of partitions: " + sorted_counts(repartition)};
    return enforced.begin()->second;
  }
  int most = 0;  // all repartition topics, none enforced: the most of them
  for (const auto& [topic, count] : repartition) most = std::max(most, count);
  return most;
}

// Coerces the group's repartition topics to `count`; an enforced one that
// differs is inconsistent.
std::optional<Inconsistent> coerce(const Topology& t, const std::vector<std::string>& group, int count, Counts& counts) {
  for (const auto& topic : group) {
    if (!t.is_repartition_topic(topic)) continue;
    if (!t.repartition_topics().at(topic)) counts[topic] = count;
    if (counts[topic] != count)
      return Inconsistent{fmt::format("Number of partitions [{}] of repartition topic [{}] doesn't match number of partitions [{}] of the source topic.",
                                      counts[topic], topic, count)};
  }
  return std::nullopt;
}

bool reads_repartition_topics(const Topology& t) {
  for (const auto& st : t.subtopologies())
    for (const auto& topic : st.source_topics)
      if (t.is_repartition_topic(topic)) return true;
  return false;
}

// Kafka skips the whole step when no sub-topology reads a repartition topic
// ("Skipping the repartition topic validation since there are no
// repartition topics."): external topics alone are then not checked.
bool enforce_copartitioning(const Topology& t, Counts& counts, const TopicMetadata& metadata, ConfiguredTopology& out) {
  if (!reads_repartition_topics(t)) return true;
  const auto& subs = t.subtopologies();
  for (std::size_t i = 0; i < subs.size(); ++i) {
    for (std::size_t g = 0; g < subs[i].copartition_groups.size(); ++g) {
      const auto& group = subs[i].copartition_groups[g];
      auto count = copartition_count(t, group, counts, metadata);
      std::optional<Inconsistent> bad;
      if (const auto* c = std::get_if<int>(&count)) bad = coerce(t, group, *c, counts);
      else bad = std::get<Inconsistent>(count);
      if (!bad) continue;
      out.status = TopologyStatus::InconsistentInternalTopics;
      out.status_detail = bad->detail;
      out.failed_subtopology = i;
      out.failed_copartition_group = g;
      return false;
    }
  }
  return true;
}

// ChangelogTopics.setup: a changelog has as many partitions as its
// sub-topology has tasks, the most partitions among its sources.
ConfiguredSubtopology configure_subtopology(const SubtopologySpec& st, const Counts& counts, const TopicMetadata& metadata) {
  ConfiguredSubtopology c;
  c.id = st.id;
  c.tasks = max_source_partitions(st, counts, metadata);
  assert(c.tasks > 0);
  c.stateful = !st.state_stores.empty();
  for (const auto& store : st.state_stores) c.changelogs.push_back({changelog_topic(store), c.tasks});
  return c;
}

}  // namespace

const char* status_name(TopologyStatus status) {
  switch (status) {
    case TopologyStatus::Configured: return "CONFIGURED";
    case TopologyStatus::MissingSourceTopics: return "MISSING_SOURCE_TOPICS";
    case TopologyStatus::InconsistentInternalTopics: return "STREAMS_INCONSISTENT_INTERNAL_TOPICS";
  }
  return "?";
}

ConfiguredTopology configure(const Topology& t, const TopicMetadata& metadata) {
  ConfiguredTopology out;
  // RepartitionTopics.computeMissingExternalSourceTopics: not an error but a
  // status; the group assigns no task until the topics exist.
  for (const auto& topic : t.external_source_topics())
    if (metadata.find(topic) == metadata.end()) out.missing_source_topics.push_back(topic);
  if (!out.missing_source_topics.empty()) {
    out.status = TopologyStatus::MissingSourceTopics;
    out.status_detail = fmt::format("Missing source topics: {}", fmt::join(out.missing_source_topics, ", "));
    return out;
  }
  Counts counts = repartition_counts(t, metadata);
  if (!enforce_copartitioning(t, counts, metadata, out)) return out;
  out.repartition_partitions = counts;
  for (const auto& st : t.subtopologies()) out.subtopologies.push_back(configure_subtopology(st, counts, metadata));
  return out;
}

std::vector<std::string> ConfiguredTopology::task_ids() const {
  std::vector<std::string> out;
  for (const auto& st : subtopologies)
    for (int p = 0; p < st.tasks; ++p) out.push_back(task_id(st.id, p));
  return out;
}

}  // namespace rsim::protocols::streams
