#include "protocols/streams/assignor.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

// Order. Kafka keeps processes and members in HashMaps and picks the least
// loaded one from java.util.PriorityQueues ordered by load alone, so among
// equally loaded processes (or members) the pick follows the hash layout and
// the heap's shape. No shared vector case depends on that choice, so this port
// breaks every tie by name instead: members are read in member-id order,
// processes compare by (load, process id), members within a process by (task
// count, member id). Everything else (task orders, quotas, the passes) is
// Kafka's.

namespace rsim::protocols::streams {

namespace {

// A process's load, tasks per member, compared exactly (Kafka compares the
// doubles taskCount / capacity; cross-multiplying orders the same fractions
// without rounding).
struct Load {
  std::int64_t tasks = 0;
  std::int64_t members = 1;
  friend bool operator<(const Load& a, const Load& b) { return a.tasks * b.members < b.tasks * a.members; }
};

int tasks_per_member(int tasks, int members) { return members == 0 ? 0 : (tasks + members - 1) / members; }

// One KafkaStreams instance: its members (stream threads) and what they were
// given. Kafka's ProcessState.
class ProcessState {
 public:
  void add_member(const std::string& member) { member_task_counts_.emplace(member, 0); }

  Load load() const { return Load{task_count_, static_cast<std::int64_t>(member_task_counts_.size())}; }
  int task_count(const std::string& member) const { return member_task_counts_.at(member); }
  // A process holds at most one copy (active or standby) of a task.
  bool has_task(const TaskId& task) const { return assigned_.count(task) != 0; }

  // Returns the member's task count after the addition.
  int add_task(const std::string& member, const TaskId& task, bool active) {
    assert(!has_task(task));
    ++task_count_;
    assigned_.insert(task);
    (active ? active_ : standby_)[member].insert(task);
    return ++member_task_counts_.at(member);
  }

  // Gives the task to the member with the fewest tasks; -1 if the process has
  // no member.
  int add_task_to_least_loaded_member(const TaskId& task, bool active) {
    if (member_task_counts_.empty()) return -1;
    auto least = member_task_counts_.begin();
    for (auto it = member_task_counts_.begin(); it != member_task_counts_.end(); ++it)
      if (it->second < least->second) least = it;
    return add_task(least->first, task, active);
  }

  const std::map<std::string, TaskSet>& active_by_member() const { return active_; }
  const std::map<std::string, TaskSet>& standby_by_member() const { return standby_; }

 private:
  std::map<std::string, int> member_task_counts_;
  std::int64_t task_count_ = 0;
  TaskSet assigned_;
  std::map<std::string, TaskSet> active_, standby_;
};

struct Member {
  std::string process, id;
};

// Tasks in the order Kafka's passes walk them. Actives are first kept in place
// by partition, so that a range-style assignment (member 1: 0_0, 1_0; member 2:
// 0_1, 1_1) survives; new tasks are dealt by sub-topology to build one.
bool by_partition(const TaskId& a, const TaskId& b) {
  return a.partition != b.partition ? a.partition < b.partition : a.subtopology < b.subtopology;
}
bool by_subtopology(const TaskId& a, const TaskId& b) { return a < b; }

class StickyTaskAssignment {
 public:
  StickyTaskAssignment(const StreamsGroupSpec& group, const TopologyDescriber& topology) : group_(group) {
    if (group.num_standby_replicas < 0) throw TaskAssignorError("num.standby.replicas must not be negative");
    count_tasks(topology);
    for (const auto& [id, spec] : group.members) read_member(id, spec);
  }

  StreamsGroupAssignment run() {
    assign_active(active_tasks_);
    if (group_.num_standby_replicas > 0) assign_standby(stateful_tasks_);
    return result();
  }

 private:
  // The quotas: active tasks per member, and all tasks (standbys included)
  // per member. Each shrinks as members reach it (maybe_update_*).
  void count_tasks(const TopologyDescriber& topology) {
    for (const auto& [id, sub] : topology.subtopologies) {
      for (int p = 0; p < sub.tasks; ++p) {
        active_tasks_.push_back(TaskId{id, p});
        if (sub.stateful) stateful_tasks_.push_back(TaskId{id, p});
      }
      total_active_ += sub.tasks;
      total_tasks_ += sub.tasks * (sub.stateful ? 1 + group_.num_standby_replicas : 1);
    }
    members_with_active_capacity_ = members_with_capacity_ = static_cast<int>(group_.members.size());
    active_per_member_ = tasks_per_member(total_active_, members_with_active_capacity_);
    tasks_per_member_ = tasks_per_member(total_tasks_, members_with_capacity_);
  }

  // Who held what: the previous active owner of each task (the last member
  // read wins if two claim it, as in Kafka's map put), and its previous
  // standby holders in member order. A warm-up counts as a previous standby
  // (KAFKA-21001): the member restoring the task keeps its restored state.
  void read_member(const std::string& id, const AssignmentMemberSpec& spec) {
    processes_[spec.process_id].add_member(id);
    const Member member{spec.process_id, id};
    for (const auto& t : spec.current.active) prev_active_.insert_or_assign(t, member);
    for (const auto& t : spec.current.standby) prev_standby_[t].push_back(member);
    for (const auto& t : spec.current.warmup) prev_standby_[t].push_back(member);
  }

  ProcessState& process(const Member& m) { return processes_.at(m.process); }

  void maybe_update_active_per_member(int member_tasks) {
    if (member_tasks != active_per_member_) return;
    --members_with_active_capacity_;
    total_active_ -= member_tasks;
    active_per_member_ = tasks_per_member(total_active_, members_with_active_capacity_);
  }

  void maybe_update_tasks_per_member(int member_tasks) {
    if (member_tasks != tasks_per_member_) return;
    --members_with_capacity_;
    total_tasks_ -= member_tasks;
    tasks_per_member_ = tasks_per_member(total_tasks_, members_with_capacity_);
  }

  void give_active(const Member& m, const TaskId& task) {
    const int n = process(m).add_task(m.id, task, true);
    maybe_update_active_per_member(n);
    maybe_update_tasks_per_member(n);
  }

  // Kafka's assignActive: (1) previous owners under the active quota keep
  // their tasks, (2) previous standby holders take them, (3) the rest go to
  // the least loaded process, to its least loaded member.
  void assign_active(std::vector<TaskId> tasks) {
    std::sort(tasks.begin(), tasks.end(), by_partition);
    std::erase_if(tasks, [&](const TaskId& task) {
      const auto prev = prev_active_.find(task);
      if (prev == prev_active_.end() || process(prev->second).task_count(prev->second.id) >= active_per_member_) return false;
      give_active(prev->second, task);
      return true;
    });
    std::erase_if(tasks, [&](const TaskId& task) {
      const auto holders = prev_standby_.find(task);
      if (holders == prev_standby_.end()) return false;
      const Member* m = prev_member_with_least_load(holders->second, nullptr);
      if (m == nullptr || process(*m).task_count(m->id) >= active_per_member_) return false;
      give_active(*m, task);
      return true;
    });
    std::sort(tasks.begin(), tasks.end(), by_subtopology);
    for (const auto& task : tasks) {
      ProcessState* least = least_loaded_process([](const ProcessState&) { return true; });
      if (least == nullptr) throw TaskAssignorError("no process available to assign active task " + to_string(task));
      const int n = least->add_task_to_least_loaded_member(task, true);
      if (n == -1) throw TaskAssignorError("no member available to assign active task " + to_string(task));
      maybe_update_active_per_member(n);
      maybe_update_tasks_per_member(n);
    }
  }

  // The least loaded process that `eligible` accepts; ties by process id.
  template <typename Eligible>
  ProcessState* least_loaded_process(Eligible eligible) {
    ProcessState* least = nullptr;
    for (auto& [id, p] : processes_)
      if (eligible(p) && (least == nullptr || p.load() < least->load())) least = &p;
    return least;
  }

  // Kafka 4.2's findPrevMemberWithLeastLoad, kept as it is: the first holder
  // is the candidate, a later one replaces it only if both its process load
  // and its own task count are lower (and, for a standby, its process lacks
  // the task); the final "already holds it" check looks at the first
  // holder's process. (KAFKA-20899 later rewrote this; 4.2 has this form.)
  const Member* prev_member_with_least_load(const std::vector<Member>& members, const TaskId* task) {
    if (members.empty()) return nullptr;
    const Member* candidate = &members.front();
    const ProcessState& first = process(members.front());
    Load candidate_load = first.load();
    int candidate_tasks = first.task_count(candidate->id);
    for (std::size_t i = 1; i < members.size(); ++i) {
      const ProcessState& p = process(members[i]);
      if (!(p.load() < candidate_load) || (task != nullptr && p.has_task(*task))) continue;
      const int tasks = p.task_count(members[i].id);
      if (tasks < candidate_tasks) {
        candidate = &members[i];
        candidate_load = p.load();
        candidate_tasks = tasks;
      }
    }
    return task == nullptr || !first.has_task(*task) ? candidate : nullptr;
  }

  // Places one standby of `task` on `m` if its process lacks the task and
  // the member is under the total quota.
  bool try_standby(const Member& m, const TaskId& task, bool check_process) {
    ProcessState& p = process(m);
    if ((check_process && p.has_task(task)) || p.task_count(m.id) >= tasks_per_member_) return false;
    maybe_update_tasks_per_member(p.add_task(m.id, task, false));
    return true;
  }

  // Kafka's assignStandby: each replica goes to the previous active owner,
  // else to a previous standby holder, while under the total quota; the
  // replicas left go, task by task, to the least loaded processes that do not
  // hold the task yet.
  void assign_standby(std::vector<TaskId> tasks) {
    std::sort(tasks.begin(), tasks.end(), [](const TaskId& a, const TaskId& b) { return by_partition(b, a); });
    std::vector<std::pair<TaskId, int>> to_least_loaded;  // task, replicas still to place
    for (const auto& task : tasks) {
      for (int i = 0; i < group_.num_standby_replicas; ++i) {
        if (const auto prev = prev_active_.find(task); prev != prev_active_.end() && try_standby(prev->second, task, true))
          continue;
        if (const auto holders = prev_standby_.find(task); holders != prev_standby_.end()) {
          const Member* m = prev_member_with_least_load(holders->second, &task);
          if (m != nullptr && try_standby(*m, task, false)) continue;
        }
        to_least_loaded.emplace_back(task, group_.num_standby_replicas - i);
        break;
      }
    }
    std::sort(to_least_loaded.begin(), to_least_loaded.end(), [](const auto& a, const auto& b) { return b.first < a.first; });
    for (const auto& [task, replicas] : to_least_loaded)
      for (int i = 0; i < replicas; ++i)
        if (!standby_to_least_loaded(task)) break;  // fewer processes than copies: Kafka logs and moves on
  }

  bool standby_to_least_loaded(const TaskId& task) {
    ProcessState* least = least_loaded_process([&](const ProcessState& p) { return !p.has_task(task); });
    if (least == nullptr) return false;
    const int n = least->add_task_to_least_loaded_member(task, false);
    if (n == -1) return false;
    maybe_update_tasks_per_member(n);
    return true;
  }

  StreamsGroupAssignment result() const {
    StreamsGroupAssignment out;
    for (const auto& [id, spec] : group_.members) out[id];
    for (const auto& [pid, p] : processes_) {
      for (const auto& [m, tasks] : p.active_by_member()) out[m].active = tasks;
      for (const auto& [m, tasks] : p.standby_by_member()) out[m].standby = tasks;
    }
    return out;
  }

  const StreamsGroupSpec& group_;
  std::vector<TaskId> active_tasks_, stateful_tasks_;
  std::map<std::string, ProcessState> processes_;
  std::map<TaskId, Member> prev_active_;
  std::map<TaskId, std::vector<Member>> prev_standby_;
  int total_active_ = 0, total_tasks_ = 0;
  int members_with_active_capacity_ = 0, members_with_capacity_ = 0;
  int active_per_member_ = 0, tasks_per_member_ = 0;
};

}  // namespace

StreamsGroupAssignment sticky_task_assign(const StreamsGroupSpec& group, const TopologyDescriber& topology) {
  return StickyTaskAssignment(group, topology).run();
}

}  // namespace rsim::protocols::streams
