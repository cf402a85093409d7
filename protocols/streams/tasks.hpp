// What a Streams group assigns: tasks, each a (sub-topology, partition) pair,
// held in one of three roles (Kafka's TasksTuple: active, standby, warm-up).
// Shared by the KIP-1071 coordinator (the traits of EpochGroup<StreamsTasks>)
// and the server-side task assignors (protocols/streams/assignor.hpp).
#pragma once

#include "protocols/topic_partition.hpp"

#include <compare>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <boost/container/flat_set.hpp>

namespace rsim::protocols::streams {

// A sub-topology id, interned in the process's name table as topic names
// are (protocols/topic_partition.hpp): a 4-byte handle that copies and
// compares for equality without touching the id, so a task is 8 bytes.
// Ordering compares the ids themselves; nothing orders by the handle.
class SubtopologyId {
 public:
  SubtopologyId() = default;
  SubtopologyId(std::string_view id) : name_(id) {}  // NOLINT: implicit, a sub-topology is its id
  SubtopologyId(const std::string& id) : name_(id) {}  // NOLINT
  SubtopologyId(const char* id) : name_(id) {}  // NOLINT

  const std::string& str() const { return name_.name(); }
  operator const std::string&() const { return str(); }  // NOLINT: reads as the id it is

  friend bool operator==(SubtopologyId a, SubtopologyId b) { return a.name_ == b.name_; }
  friend std::strong_ordering operator<=>(SubtopologyId a, SubtopologyId b) { return a.name_ <=> b.name_; }
  friend bool operator==(SubtopologyId a, const std::string& b) { return a.str() == b; }
  // Dense handle, for keys that are never ordered or printed.
  std::uint32_t id() const { return name_.id(); }

 private:
  Topic name_;
};

struct TaskId {
  SubtopologyId subtopology;
  int partition = 0;
  friend bool operator==(const TaskId&, const TaskId&) = default;
  friend std::strong_ordering operator<=>(const TaskId& a, const TaskId& b) {
    if (const auto c = a.subtopology <=> b.subtopology; c != 0) return c;
    return a.partition <=> b.partition;
  }
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

template <>
struct fmt::formatter<rsim::protocols::streams::SubtopologyId> : fmt::formatter<std::string_view> {
  template <class FormatContext>
  auto format(const rsim::protocols::streams::SubtopologyId& id, FormatContext& ctx) const {
    return fmt::formatter<std::string_view>::format(id.str(), ctx);
  }
};
