// The KIP-1071 server-side task assignor "sticky": the broker's port of
// Kafka's StickyTaskAssignor (group-coordinator, streams/assignor/).
//
// Followed: Apache Kafka 4.2.0 (released 2026-02-17), the assignor as left by
// KAFKA-19661 [4/N] "Prefer range-style assignment" (merged 2025-09, after
// the 4.1 branch) and before the 2026 changes to the file (KAFKA-20719 task
// offsets at startup, KAFKA-20899 standby candidate fix, KAFKA-21060
// stateful/stateless split, rack-aware standbys). One later change is taken
// on purpose: KAFKA-21001 (merged 2026-09) counts a member's warm-up tasks as
// previous standbys, because the shared vector case
// standby-to-previous-warmup asserts it. The 4.2 assignor does not read
// client tags, racks or task offsets; they are carried in the spec for the
// coordinator and later assignors.
#pragma once

#include "protocols/streams/tasks.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rsim::protocols::streams {

// group.streams.num.standby.replicas (group level, overridable per group as
// streams.num.standby.replicas): default 0, and a group may not ask for more
// than group.streams.max.standby.replicas, default 2 (GroupCoordinatorConfig).
inline constexpr int kNumStandbyReplicasDefault = 0;
inline constexpr int kMaxStandbyReplicasDefault = 2;

// What the assignor knows of one member (Kafka's AssignmentMemberSpec).
struct AssignmentMemberSpec {
  std::optional<std::string> instance_id, rack_id;
  std::string process_id;  // the KafkaStreams instance; its threads are members
  TasksTuple current;      // the member's current target assignment
  std::map<std::string, std::string> client_tags;
  std::map<TaskId, std::int64_t> task_offsets;  // reported offset sums (not read by 4.2)
};

struct SubtopologyTasks {
  int tasks = 0;  // max number of input partitions of the sub-topology
  bool stateful = false;  // has changelog topics: gets standby replicas
};

struct TopologyDescriber {
  std::map<std::string, SubtopologyTasks> subtopologies;
};

struct StreamsGroupSpec {
  std::map<std::string, AssignmentMemberSpec> members;  // by member id
  int num_standby_replicas = kNumStandbyReplicasDefault;
};

// Every member of the spec gets an entry (empty when it got nothing). The
// sticky assignor fills active and standby; warm-ups stay empty.
using StreamsGroupAssignment = std::map<std::string, TasksTuple>;

// Kafka's TaskAssignorException: the input cannot be assigned (tasks but no
// member, a negative standby count).
class TaskAssignorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

StreamsGroupAssignment sticky_task_assign(const StreamsGroupSpec& group, const TopologyDescriber& topology);

// The coordinator's task assignor (Kafka's TaskAssignor interface): the
// built-in sticky, or a plug-in process (exec_task_assignor.hpp).
class TaskAssignor {
 public:
  virtual ~TaskAssignor() = default;
  virtual std::string_view name() const = 0;
  virtual StreamsGroupAssignment assign(const StreamsGroupSpec& group, const TopologyDescriber& topology) const = 0;
};

class StickyTaskAssignor final : public TaskAssignor {
 public:
  std::string_view name() const override { return "sticky"; }
  StreamsGroupAssignment assign(const StreamsGroupSpec& group, const TopologyDescriber& topology) const override {
    return sticky_task_assign(group, topology);
  }
};

}  // namespace rsim::protocols::streams
