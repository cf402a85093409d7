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

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

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

class StreamsHolders;

struct StreamsTasks {
  using Assignment = TasksTuple;
  using HolderIndex = StreamsHolders;
  using Owned = TasksTuple;  // activeTasks / standbyTasks / warmupTasks of the heartbeat
  using Unit = RoleTask;
  static std::vector<RoleTask> units(const TasksTuple& t);  // units_of
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

// Kafka's task process ids, for the rules above: how many members' logged
// current assignments hold each task active, and how many hold it in any
// role per process, kept as the records are written, so that "does another
// member still hold it?" is two lookups instead of a walk over every member.
// A member's process is its live metadata's when its record is written (a
// member id keeps its process) and is remembered for taking the record out.
class StreamsHolders {
 public:
  using Current = epoch::CurrentAssignment<TasksTuple>;

  // A member's record goes from `before` to `after` (null: none).
  void record(const std::string& member_id, const MemberView* live, const Current* before, const Current* after);
  void rebuild(const epoch::CompactedLog<StreamsTasks>& log, const std::map<std::string, MemberView>& members);
  // The walk's answer: every member's logged current assignment is its live
  // one but the asker's (its revocations were just released and are not
  // written yet), so its logged holdings are taken out of the counts and its
  // live ones asked directly.
  bool held_by_other(const MemberView& asker, const Current* logged, const RoleTask& unit) const;

 private:
  struct ProcessTask {
    std::uint32_t process;
    std::uint64_t task;
    friend bool operator==(const ProcessTask&, const ProcessTask&) = default;
  };
  struct Hash {
    // splitmix64's finaliser: process handles and task keys are both dense
    // small numbers, which a plain sum would make collide.
    std::size_t operator()(const ProcessTask& k) const {
      std::uint64_t x = k.task ^ (static_cast<std::uint64_t>(k.process) * 0x9E3779B97F4A7C15ull);
      x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
      x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
      return static_cast<std::size_t>(x ^ (x >> 31));
    }
  };
  void change(std::uint32_t process, const TaskSet& before, const TaskSet& after, bool active);
  void change(std::uint32_t process, const Current& before, const Current& after);
  static std::uint64_t key(const TaskId& t);

  // Never iterated: lookups only.
  std::unordered_map<std::uint64_t, std::uint32_t> active_;             // task -> members holding it active
  std::unordered_map<ProcessTask, std::uint32_t, Hash> in_process_;   // (process, task) -> holdings in any role
  std::unordered_map<std::string, std::uint32_t> process_of_;         // member id -> the process it was counted in
};

// The owned units of a tuple, sorted, and back.
std::vector<RoleTask> units_of(const TasksTuple& t);
TasksTuple tuple_of(const std::vector<RoleTask>& units);

}  // namespace rsim::protocols::streams

namespace rsim::protocols::epoch {
extern template class EpochGroup<streams::StreamsTasks>;
}
