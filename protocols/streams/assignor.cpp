#include "protocols/streams/assignor.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <map>
#include <span>
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

// The tasks of the topology numbered in TaskId order (sub-topologies by id,
// then partitions), so that ordering tasks is ordering numbers and per-task
// state lives in vectors: the assignor runs at every group epoch, over up to
// hundreds of thousands of tasks.
class TaskIndex {
 public:
  explicit TaskIndex(const TopologyDescriber& topology) {
    for (const auto& [id, sub] : topology.subtopologies) {
      subs_.push_back(Sub{SubtopologyId(id), size_, sub.tasks, sub.stateful});
      size_ += std::max(sub.tasks, 0);
      max_tasks_ = std::max(max_tasks_, sub.tasks);
    }
  }

  int size() const { return size_; }
  bool stateful(int task) const { return subs_[sub_of(task)].stateful; }

  // -1 for a task the topology does not have (a stale current assignment).
  int find(const TaskId& t) const {
    const auto it = std::lower_bound(subs_.begin(), subs_.end(), t.subtopology,
                                     [](const Sub& s, SubtopologyId id) { return s.id < id; });
    if (it == subs_.end() || it->id != t.subtopology || t.partition < 0 || t.partition >= it->tasks) return -1;
    return it->base + t.partition;
  }

  TaskId task(int index) const {
    const Sub& s = subs_[sub_of(index)];
    return TaskId{s.id, index - s.base};
  }

  // Every task (or every stateful one) ordered by (partition, sub-topology).
  std::vector<int> by_partition(bool stateful_only) const {
    std::vector<int> out;
    for (int p = 0; p < max_tasks_; ++p)
      for (const Sub& s : subs_)
        if (p < s.tasks && (s.stateful || !stateful_only)) out.push_back(s.base + p);
    return out;
  }

 private:
  struct Sub {
    SubtopologyId id;
    int base, tasks;
    bool stateful;
  };
  std::size_t sub_of(int index) const {
    const auto it = std::upper_bound(subs_.begin(), subs_.end(), index, [](int i, const Sub& s) { return i < s.base; });
    return static_cast<std::size_t>(it - subs_.begin()) - 1;
  }
  std::vector<Sub> subs_;
  int size_ = 0, max_tasks_ = 0;
};

// One KafkaStreams instance (Kafka's ProcessState): its members (stream
// threads, by index, in member-id order) and how many tasks it holds.
struct ProcessState {
  std::vector<int> members;
  std::int64_t task_count = 0;
  Load load() const { return Load{task_count, static_cast<std::int64_t>(members.size())}; }
};

// Members are numbered in member-id order and processes in process-id order,
// so Kafka's passes run over vectors and ties broken by name are ties broken
// by number.
class StickyTaskAssignment {
 public:
  StickyTaskAssignment(const StreamsGroupSpec& group, const TopologyDescriber& topology)
      : group_(group), tasks_(topology) {
    if (group.num_standby_replicas < 0) throw TaskAssignorError("num.standby.replicas must not be negative");
    count_tasks(topology);
    number_members();
    read_previous();
  }

  StreamsGroupAssignment run() {
    assign_active();
    if (group_.num_standby_replicas > 0) assign_standby();
    return result();
  }

 private:
  // The quotas: active tasks per member, and all tasks (standbys included)
  // per member. Each shrinks as members reach it (maybe_update_*).
  void count_tasks(const TopologyDescriber& topology) {
    for (const auto& [id, sub] : topology.subtopologies) {
      total_active_ += sub.tasks;
      total_tasks_ += sub.tasks * (sub.stateful ? 1 + group_.num_standby_replicas : 1);
    }
    members_with_active_capacity_ = members_with_capacity_ = static_cast<int>(group_.members.size());
    active_per_member_ = tasks_per_member(total_active_, members_with_active_capacity_);
    tasks_per_member_ = tasks_per_member(total_tasks_, members_with_capacity_);
  }

  void number_members() {
    std::map<std::string_view, int> process_numbers;
    for (const auto& [id, spec] : group_.members) process_numbers.emplace(spec.process_id, 0);
    int n = 0;
    for (auto& [pid, number] : process_numbers) number = n++;
    processes_.resize(process_numbers.size());
    for (const auto& [id, spec] : group_.members) {
      const int process = process_numbers.at(spec.process_id);
      processes_[static_cast<std::size_t>(process)].members.push_back(static_cast<int>(member_ids_.size()));
      member_ids_.push_back(&id);
      member_process_.push_back(process);
    }
    member_tasks_.assign(member_ids_.size(), 0);
    active_of_.resize(member_ids_.size());
    standby_of_.resize(member_ids_.size());
    // Each list grown once to about its quota (a 1,000-member group on
    // 100,000 tasks regrew every list at every target, issue 16).
    // A quota below 0 (a hand-built spec's negative task count) reserves nothing.
    auto at_least_0 = [](std::int64_t n) { return static_cast<std::size_t>(std::max<std::int64_t>(0, n)); };
    for (auto& tasks : active_of_) tasks.reserve(at_least_0(active_per_member_));
    if (group_.num_standby_replicas > 0)
      for (auto& tasks : standby_of_)
        tasks.reserve(at_least_0(std::int64_t{tasks_per_member_} - std::int64_t{active_per_member_}));
    // A process holds at most one copy of a task, and a task has at most one
    // active and num.standby.replicas standbys.
    holders_per_task_ = static_cast<std::size_t>(
        std::min<std::int64_t>(1 + static_cast<std::int64_t>(group_.num_standby_replicas), std::max<std::int64_t>(1, processes_.size())));
    holders_.assign(static_cast<std::size_t>(tasks_.size()) * holders_per_task_, -1);
  }

  // Who held what: the previous active owner of each task (the last member
  // read wins if two claim it, as in Kafka's map put), and its previous
  // standby holders in member order. A warm-up counts as a previous standby
  // (KAFKA-21001): the member restoring the task keeps its restored state.
  void read_previous() {
    prev_active_.assign(static_cast<std::size_t>(tasks_.size()), -1);
    std::vector<std::pair<int, int>> standby;  // task, member: in member order, standbys before warm-ups
    int member = 0;
    for (const auto& [id, spec] : group_.members) {
      for (const auto& t : spec.current.active)
        if (const int i = tasks_.find(t); i >= 0) prev_active_[static_cast<std::size_t>(i)] = member;
      for (const TaskSet* role : {&spec.current.standby, &spec.current.warmup})
        for (const auto& t : *role)
          if (const int i = tasks_.find(t); i >= 0) standby.emplace_back(i, member);
      ++member;
    }
    std::stable_sort(standby.begin(), standby.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    prev_standby_start_.assign(static_cast<std::size_t>(tasks_.size()) + 1, 0);
    for (const auto& [task, m] : standby) ++prev_standby_start_[static_cast<std::size_t>(task) + 1];
    for (std::size_t t = 1; t < prev_standby_start_.size(); ++t) prev_standby_start_[t] += prev_standby_start_[t - 1];
    for (const auto& [task, m] : standby) prev_standby_.push_back(m);
  }

  // The previous standby holders of a task, in member order (empty if none).
  std::span<const int> prev_standby(int task) const {
    const auto t = static_cast<std::size_t>(task);
    return std::span<const int>(prev_standby_).subspan(prev_standby_start_[t], prev_standby_start_[t + 1] - prev_standby_start_[t]);
  }

  ProcessState& process_of(int member) { return processes_[static_cast<std::size_t>(member_process_[static_cast<std::size_t>(member)])]; }
  int& task_count(int member) { return member_tasks_[static_cast<std::size_t>(member)]; }

  // A process holds at most one copy (active or standby) of a task.
  bool has_task(const ProcessState& p, int task) const {
    const int process = static_cast<int>(&p - processes_.data());
    const auto first = holders_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(task) * holders_per_task_);
    return std::find(first, first + static_cast<std::ptrdiff_t>(holders_per_task_), process) != first + static_cast<std::ptrdiff_t>(holders_per_task_);
  }

  // Returns the member's task count after the addition.
  int add_task(int member, int task, bool active) {
    ProcessState& p = process_of(member);
    assert(!has_task(p, task));
    ++p.task_count;
    const auto first = holders_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(task) * holders_per_task_);
    const auto free = std::find(first, first + static_cast<std::ptrdiff_t>(holders_per_task_), -1);
    assert(free != first + static_cast<std::ptrdiff_t>(holders_per_task_));
    *free = static_cast<int>(&p - processes_.data());
    (active ? active_of_ : standby_of_)[static_cast<std::size_t>(member)].push_back(task);
    return ++task_count(member);
  }

  // Gives the task to the process's member with the fewest tasks (the first
  // by id among equals); -1 if the process has no member.
  int add_task_to_least_loaded_member(ProcessState& p, int task, bool active) {
    if (p.members.empty()) return -1;
    int least = p.members.front();
    for (const int m : p.members)
      if (task_count(m) < task_count(least)) least = m;
    return add_task(least, task, active);
  }

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

  void give_active(int member, int task) {
    const int n = add_task(member, task, true);
    maybe_update_active_per_member(n);
    maybe_update_tasks_per_member(n);
  }

  // Kafka's assignActive: (1) previous owners under the active quota keep
  // their tasks, (2) previous standby holders take them, (3) the rest go to
  // the least loaded process, to its least loaded member.
  void assign_active() {
    std::vector<int> tasks = tasks_.by_partition(false);
    std::erase_if(tasks, [&](int task) {
      const int prev = prev_active_[static_cast<std::size_t>(task)];
      if (prev < 0 || task_count(prev) >= active_per_member_) return false;
      give_active(prev, task);
      return true;
    });
    std::erase_if(tasks, [&](int task) {
      const int m = prev_member_with_least_load(prev_standby(task), -1);
      if (m < 0 || task_count(m) >= active_per_member_) return false;
      give_active(m, task);
      return true;
    });
    std::sort(tasks.begin(), tasks.end());  // by sub-topology, then partition
    for (const int task : tasks) {
      ProcessState* least = least_loaded_process([](const ProcessState&) { return true; });
      if (least == nullptr) throw TaskAssignorError("no process available to assign active task " + to_string(tasks_.task(task)));
      const int n = add_task_to_least_loaded_member(*least, task, true);
      if (n == -1) throw TaskAssignorError("no member available to assign active task " + to_string(tasks_.task(task)));
      maybe_update_active_per_member(n);
      maybe_update_tasks_per_member(n);
    }
  }

  // The least loaded process that `eligible` accepts; ties by process id.
  template <typename Eligible>
  ProcessState* least_loaded_process(Eligible eligible) {
    ProcessState* least = nullptr;
    for (auto& p : processes_)
      if (eligible(p) && (least == nullptr || p.load() < least->load())) least = &p;
    return least;
  }

  // Kafka 4.2's findPrevMemberWithLeastLoad, kept as it is: the first holder
  // is the candidate, a later one replaces it only if both its process load
  // and its own task count are lower (and, for a standby, its process lacks
  // the task); the final "already holds it" check looks at the first
  // holder's process. (KAFKA-20899 later rewrote this; 4.2 has this form.)
  // `task` is -1 when placing an active. Returns a member, or -1.
  int prev_member_with_least_load(std::span<const int> members, int task) {
    if (members.empty()) return -1;
    int candidate = members.front();
    const ProcessState& first = process_of(candidate);
    Load candidate_load = first.load();
    int candidate_tasks = task_count(candidate);
    for (std::size_t i = 1; i < members.size(); ++i) {
      const ProcessState& p = process_of(members[i]);
      if (!(p.load() < candidate_load) || (task >= 0 && has_task(p, task))) continue;
      const int tasks = task_count(members[i]);
      if (tasks < candidate_tasks) {
        candidate = members[i];
        candidate_load = p.load();
        candidate_tasks = tasks;
      }
    }
    return task < 0 || !has_task(first, task) ? candidate : -1;
  }

  // Places one standby of `task` on `member` if its process lacks the task
  // and the member is under the total quota.
  bool try_standby(int member, int task, bool check_process) {
    if ((check_process && has_task(process_of(member), task)) || task_count(member) >= tasks_per_member_) return false;
    maybe_update_tasks_per_member(add_task(member, task, false));
    return true;
  }

  // Kafka's assignStandby: each replica goes to the previous active owner,
  // else to a previous standby holder, while under the total quota; the
  // replicas left go, task by task, to the least loaded processes that do not
  // hold the task yet.
  void assign_standby() {
    std::vector<int> tasks = tasks_.by_partition(true);
    std::reverse(tasks.begin(), tasks.end());
    std::vector<std::pair<int, int>> to_least_loaded;  // task, replicas still to place
    for (const int task : tasks) {
      for (int i = 0; i < group_.num_standby_replicas; ++i) {
        if (const int prev = prev_active_[static_cast<std::size_t>(task)]; prev >= 0 && try_standby(prev, task, true)) continue;
        if (const int m = prev_member_with_least_load(prev_standby(task), task); m >= 0 && try_standby(m, task, false)) continue;
        to_least_loaded.emplace_back(task, group_.num_standby_replicas - i);
        break;
      }
    }
    std::sort(to_least_loaded.begin(), to_least_loaded.end(), [](const auto& a, const auto& b) { return b.first < a.first; });
    for (const auto& [task, replicas] : to_least_loaded)
      for (int i = 0; i < replicas; ++i)
        if (!standby_to_least_loaded(task)) break;  // fewer processes than copies: Kafka logs and moves on
  }

  bool standby_to_least_loaded(int task) {
    ProcessState* least = least_loaded_process([&](const ProcessState& p) { return !has_task(p, task); });
    if (least == nullptr) return false;
    const int n = add_task_to_least_loaded_member(*least, task, false);
    if (n == -1) return false;
    maybe_update_tasks_per_member(n);
    return true;
  }

  TaskSet task_set(std::vector<int>& tasks) const {  // sorts `tasks`
    std::sort(tasks.begin(), tasks.end());
    TaskSet::sequence_type ids;
    ids.reserve(tasks.size());
    for (const int t : tasks) ids.push_back(tasks_.task(t));
    TaskSet out;
    out.adopt_sequence(boost::container::ordered_unique_range, std::move(ids));  // in order: taken as it is
    return out;
  }

  StreamsGroupAssignment result() {
    StreamsGroupAssignment out;
    for (std::size_t m = 0; m < member_ids_.size(); ++m)
      out.emplace_hint(out.end(), *member_ids_[m], TasksTuple{task_set(active_of_[m]), task_set(standby_of_[m]), {}});
    return out;
  }

  const StreamsGroupSpec& group_;
  const TaskIndex tasks_;
  std::vector<ProcessState> processes_;
  std::vector<const std::string*> member_ids_;
  std::vector<int> member_process_, member_tasks_;
  std::vector<std::vector<int>> active_of_, standby_of_;
  std::size_t holders_per_task_ = 1;
  std::vector<int> holders_;  // per task, the processes holding a copy; -1: free
  std::vector<int> prev_active_;  // per task, its previous active owner; -1: none
  std::vector<int> prev_standby_;  // previous standby holders, grouped by task
  std::vector<std::size_t> prev_standby_start_;
  int total_active_ = 0, total_tasks_ = 0;
  int members_with_active_capacity_ = 0, members_with_capacity_ = 0;
  int active_per_member_ = 0, tasks_per_member_ = 0;
};

}  // namespace

StreamsGroupAssignment sticky_task_assign(const StreamsGroupSpec& group, const TopologyDescriber& topology) {
  return StickyTaskAssignment(group, topology).run();
}

}  // namespace rsim::protocols::streams
