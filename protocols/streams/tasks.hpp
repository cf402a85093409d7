// What a Streams group assigns: tasks, each a (sub-topology, partition) pair,
// held in one of three roles (Kafka's TasksTuple: active, standby, warm-up).
// Shared by the KIP-1071 coordinator (the traits of EpochGroup<StreamsTasks>)
// and the server-side task assignors (protocols/streams/assignor.hpp).
#pragma once

#include <compare>
#include <optional>
#include <set>

#include <boost/container/flat_set.hpp>
#include <string>
#include <string_view>

namespace rsim::protocols::streams {

struct TaskId {
  std::string subtopology;
  int partition = 0;
  auto operator<=>(const TaskId&) const = default;
};

// `SUBTOPOLOGY_PARTITION` (`0_3`), as Kafka Streams prints a TaskId; parsed
// at the last underscore, so sub-topology ids may contain one.
std::string to_string(const TaskId& t);
std::optional<TaskId> parse_task(std::string_view text);

// Sorted and contiguous: a member holds up to thousands of tasks, and the
// coordinator copies, compares and splits them at every step.
using TaskSet = boost::container::flat_set<TaskId>;

// A member's tasks by role. A warm-up is a standby the assignor places on a
// process that is not caught up, to move an active task there later.
struct TasksTuple {
  TaskSet active, standby, warmup;
  bool empty() const { return active.empty() && standby.empty() && warmup.empty(); }
  friend bool operator==(const TasksTuple&, const TasksTuple&) = default;
};

}  // namespace rsim::protocols::streams
