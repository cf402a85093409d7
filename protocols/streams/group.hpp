// What a Streams group assigns, as the epoch-group core sees it: the traits
// with which protocols/epoch/ becomes the KIP-1071 group (EpochGroup,
// Record and GroupImage over StreamsTasks). A member's assignment is a
// TasksTuple (active, standby, warm-up); members belong to processes
// (application instances; several members = its stream threads).
// Facts: Kafka's streams CurrentAssignmentBuilder (4.1): the unreleased
// rules by role and process id.
#pragma once

#include "protocols/epoch/group.hpp"
#include "protocols/streams/tasks.hpp"
#include "sim/time.hpp"

#include <map>
#include <optional>
#include <string>

namespace rsim::protocols::streams {

enum class Role { Active, Standby, Warmup };

// One task in one role: what a member owns, on both sides of the protocol.
struct RoleTask {
  Role role = Role::Active;
  TaskId task;
  auto operator<=>(const RoleTask&) const = default;
};

// StreamsGroupMemberMetadata (the design's fields).
struct MemberMetadata {
  std::string member_id, client_id;
  std::optional<std::string> instance_id;
  Duration rebalance_timeout{0};
  std::optional<std::string> rack_id;
  std::string client_host;
  int topology_epoch = 0;
  std::string process_id;
  std::string user_endpoint;  // host:port of interactive queries; empty: none
  std::map<std::string, std::string> client_tags;
  friend bool operator==(const MemberMetadata&, const MemberMetadata&) = default;
};

// What a group epoch was computed from: the topology's epoch and the
// partition counts of its source topics (StreamsGroupPartitionMetadata).
struct GroupMetadata {
  int topology_epoch = 0;
  std::map<std::string, int> partitions;
  friend bool operator==(const GroupMetadata&, const GroupMetadata&) = default;
};

struct StreamsTasks {
  using Assignment = TasksTuple;
  using Owned = TasksTuple;  // activeTasks / standbyTasks / warmupTasks of the heartbeat
  using MemberMetadata = streams::MemberMetadata;
  using GroupMetadata = streams::GroupMetadata;

  template <class Held>
  static epoch::Step<TasksTuple> step(const TasksTuple& assigned, const TasksTuple& target, const Held& held) {
    auto in = [&](Role r) { return [&held, r](const TaskId& t) { return held(RoleTask{r, t}); }; };
    auto a = epoch::split(assigned.active, target.active, in(Role::Active));
    auto s = epoch::split(assigned.standby, target.standby, in(Role::Standby));
    auto w = epoch::split(assigned.warmup, target.warmup, in(Role::Warmup));
    return {{a.keep, s.keep, w.keep},
            {a.revoke, s.revoke, w.revoke},
            {a.add, s.add, w.add},
            a.withheld || s.withheld || w.withheld};
  }

  // Kafka's isUnreleasedTask, by role: an active task waits while any member
  // holds it active; a task in any role waits while the asker's own process
  // holds it in any role (assigned or pending revocation).
  template <class M>
  static bool unreleased(const M& other, const M& asker, const RoleTask& u) {
    if (u.role == Role::Active && (has(other.assigned.active, u.task) || has(other.revoking.active, u.task))) return true;
    return other.process_id == asker.process_id && (holds_any(other.assigned, u.task) || holds_any(other.revoking, u.task));
  }
  static bool empty(const TasksTuple& t) { return t.empty(); }
  static TasksTuple merge(TasksTuple keep, const TasksTuple& add);
  // TasksTuple.containsAny: a task of `revoking` still owned in its role.
  static bool owns_any(const TasksTuple& owned, const TasksTuple& revoking);
  static bool within(const TasksTuple& owned, const TasksTuple& assigned, const TasksTuple& revoking);

 private:
  static bool has(const TaskSet& s, const TaskId& t) { return s.count(t) != 0; }
  static bool holds_any(const TasksTuple& x, const TaskId& t) {
    return has(x.active, t) || has(x.standby, t) || has(x.warmup, t);
  }
};

using MemberView = epoch::Member<StreamsTasks>;
using GroupImage = epoch::GroupImage<StreamsTasks>;
using Record = epoch::Record<StreamsTasks>;

// The owned units of a tuple, sorted, and back.
std::vector<RoleTask> units_of(const TasksTuple& t);
TasksTuple tuple_of(const std::vector<RoleTask>& units);

}  // namespace rsim::protocols::streams

namespace rsim::protocols::epoch {
extern template class EpochGroup<streams::StreamsTasks>;
}
