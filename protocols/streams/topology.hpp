// A Kafka Streams application's topology as the KIP-1071 coordinator sees
// it: sub-topologies that read source topics and repartition topics, write
// repartition topics and keep state in stores backed by changelog topics.
//
// Two stages, as in Kafka's group coordinator (kip1071 branch,
// group-coordinator/.../coordinator/group/streams/topics/):
//   Topology::build   the structure, checked once: sub-topology ids are
//                     unique, a repartition topic is not also an external
//                     topic, co-partition groups name the sub-topology's own
//                     sources, and the sub-topology graph (an edge where one
//                     writes a repartition topic another reads) has no cycle.
//                     Violations are TopologyError: the input is wrong.
//   configure         the partition counts for the cluster's current topic
//                     metadata (InternalTopicManager.configureTopics): missing
//                     source topics, repartition topic counts, co-partitioning,
//                     changelog counts, tasks. A pure function of the metadata,
//                     so a later topic creation or add-partitions flips the
//                     status; nothing here is an error of the input.
//
// Task ids print as Kafka Streams prints them: SUBTOPOLOGY_PARTITION (`0_3`).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rsim::protocols::streams {

// A repartition topic as its writer declares it; `partitions` set means the
// count is enforced (ConfiguredInternalTopic.hasEnforcedNumberOfPartitions).
struct RepartitionTopic {
  std::string name;
  std::optional<int> partitions;
};

struct SubtopologySpec {
  std::string id;
  std::vector<std::string> source_topics;          // external and repartition topics it reads
  std::vector<RepartitionTopic> repartition_sinks;  // repartition topics it writes
  std::vector<std::string> state_stores;           // one changelog topic each
  std::vector<std::vector<std::string>> copartition_groups;  // each a subset of source_topics
};

// Where a structural error lies, so that the loader can point at the file:
// the sub-topology (index in declaration order), the field and the item.
enum class Field { Id, Source, RepartitionSink, Copartition };

class TopologyError : public std::runtime_error {
 public:
  TopologyError(std::size_t subtopology, Field field, std::size_t item, const std::string& message)
      : std::runtime_error(message), subtopology(subtopology), field(field), item(item) {}
  std::size_t subtopology;
  Field field;
  std::size_t item;
};

// The validated structure: sub-topologies in declaration order and their
// dependency order (every writer of a repartition topic before its readers).
class Topology {
 public:
  static Topology build(std::vector<SubtopologySpec> subtopologies);

  const std::vector<SubtopologySpec>& subtopologies() const { return subtopologies_; }
  const std::vector<std::size_t>& dependency_order() const { return order_; }
  bool is_repartition_topic(const std::string& topic) const { return repartition_.count(topic) != 0; }
  // Repartition topic -> its enforced count, if its writers give one.
  const std::map<std::string, std::optional<int>>& repartition_topics() const { return repartition_; }
  // The sub-topologies (indices) that write a repartition topic.
  std::vector<std::size_t> writers_of(const std::string& topic) const;
  // External source topics of every sub-topology, sorted and unique.
  std::vector<std::string> external_source_topics() const;

 private:
  std::vector<SubtopologySpec> subtopologies_;
  std::vector<std::size_t> order_;
  std::map<std::string, std::optional<int>> repartition_;
};

// The cluster's topics now: name -> partition count (a TopicsImage).
using TopicMetadata = std::map<std::string, int, std::less<>>;

// Kafka's StreamsGroupHeartbeatResponse statuses and error codes this step
// can produce. Configured: tasks exist and can be assigned.
enum class TopologyStatus {
  Configured,
  MissingSourceTopics,         // status MISSING_SOURCE_TOPICS: no tasks until they exist
  InconsistentInternalTopics,  // STREAMS_INCONSISTENT_INTERNAL_TOPICS (co-partitioning)
};
const char* status_name(TopologyStatus status);

struct ChangelogTopic {
  std::string name;  // STORE-changelog (Kafka prefixes application.id-)
  int partitions = 0;
};

struct ConfiguredSubtopology {
  std::string id;
  int tasks = 0;  // the most partitions among its source and repartition source topics
  bool stateful = false;
  std::vector<ChangelogTopic> changelogs;
};

struct ConfiguredTopology {
  TopologyStatus status = TopologyStatus::Configured;
  std::string status_detail;  // Kafka's message
  std::vector<std::string> missing_source_topics;  // sorted
  // With InconsistentInternalTopics: the co-partition group that failed.
  std::size_t failed_subtopology = 0, failed_copartition_group = 0;
  std::map<std::string, int> repartition_partitions;  // Configured only
  std::vector<ConfiguredSubtopology> subtopologies;   // Configured only; declaration order

  bool ready() const { return status == TopologyStatus::Configured; }
  // Every task id, `0_0`, `0_1`, ..., sub-topologies in declaration order.
  std::vector<std::string> task_ids() const;
};

ConfiguredTopology configure(const Topology& topology, const TopicMetadata& metadata);

// `SUBTOPOLOGY_PARTITION`, as Kafka Streams' TaskId.toString prints it.
std::string task_id(const std::string& subtopology, int partition);
std::string changelog_topic(const std::string& store);

}  // namespace rsim::protocols::streams
