// The state a Streams application keeps on its machines: each process's
// local copy of each stateful task (its state directory), and how far the
// copy is behind the task's changelog. An active stateful task processes only
// once its copy is caught up (restoration); a standby keeps its copy caught
// up, so an active task moved to it restores (about) nothing.
//
// The model, with its simplifications:
//   - every stateful task has `state_bytes` of state; a stateless one none;
//   - a copy is restored at `restore_rate` bytes/s, the changelog read by the
//     process's restore consumer; a member restores its active tasks one
//     after another (Kafka restores a thread's changelogs through one
//     consumer), standbys alongside (Kafka gives actives priority);
//   - a copy nobody maintains any more (the task moved away, the process
//     crashed or restarted: the state directory survives) falls behind by
//     what the changelog gets meanwhile, `changelog_rate` bytes/s (0: it
//     stays caught up, as a checkpointed store after a short bounce), never
//     by more than the whole state;
//   - the threads of one process share its copies;
//   - Kafka's state cleaner deletes copies nobody maintains: it runs every
//     `cleanup_delay` (state.cleanup.delay.ms, 10 minutes) from the
//     instance's start while the instance is up, and deletes the task
//     directories no thread holds that were not modified for longer than
//     the delay (KafkaStreams.start, StateDirectory.cleanRemovedTasks). A
//     copy is last modified when it was let go. Kafka skips the ticks that
//     find the instance rebalancing; the simulator does not (a copy may go
//     one delay earlier than in Kafka).
#pragma once

#include "protocols/streams/tasks.hpp"
#include "sim/time.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rsim::protocols::streams {

struct StateCosts {
  std::uint64_t state_bytes = 0;     // per stateful task
  std::uint64_t restore_rate = 0;    // bytes/s; 0 only when there is no state
  std::uint64_t changelog_rate = 0;  // bytes/s a copy falls behind while unmaintained
};

class LocalState {
 public:
  LocalState(StateCosts costs, std::set<std::string> stateful_subtopologies, Duration cleanup_delay);
  LocalState(const LocalState&) = delete;  // last_ points into directories_
  LocalState& operator=(const LocalState&) = delete;

  bool stateful(const TaskId& t) const {
    return std::binary_search(stateful_.begin(), stateful_.end(), t.subtopology.id());
  }
  // Bytes the process's copy of `t` is behind at `now`.
  std::uint64_t lag(const std::string& process, const TaskId& t, Time now) const;
  // A member of the process got the task (active or standby) at `taken`,
  // and maintains its copy from `start` (after the restorations queued
  // before it): when the copy is caught up. The task's directory is locked
  // from `taken`, so the cleaner cannot delete the copy after then. The
  // copy restores what it was behind at `taken`: an active task waiting for
  // its turn is processed by nobody, so its changelog gets nothing meanwhile
  // (counting the wait's growth made a thread of 36 queued tasks restore for
  // 75 s what it was 2.6 s behind on each, swarm --scale 4 eager seed 450).
  Time maintain(const std::string& process, const TaskId& t, Time taken, Time start);
  // A copy the process already maintains, caught up (a group that starts
  // stable: its state is where it would be after a long run).
  void seed(const std::string& process, const TaskId& t);
  // One maintainer fewer (revoked, lost, crashed): with none left the copy
  // falls behind from `now`.
  // `holder`: who let it go (a classic stream thread keeps the directory's
  // lock and reports the copy until another takes it).
  void release(const std::string& process, const TaskId& t, Time now, const std::string& holder = {});
  Duration restore_time(std::uint64_t bytes) const;
  // The copies the process has at `now` (its state directory) that nobody
  // maintains and that `holder` let go last (or nobody said who), in task
  // order, with the bytes each is behind: what a classic stream thread
  // reports beside its own tasks, in one walk of the directory.
  std::vector<std::pair<TaskId, std::uint64_t>> released_copies(const std::string& process, const std::string& holder,
                                                                Time now) const;
  // One of the process's members came up or went (crashed, left): the
  // instance, and its cleaner, runs while any is up.
  void member_alive(const std::string& process, bool alive, Time now);

 private:
  struct Copy {
    int maintainers = 0;
    Time caught_up_at{};           // while maintained: when restoration ends
    Time restore_from{};           // while maintained: when its restoration starts (after those queued before it)
    std::uint64_t restore_bytes = 0;  // while maintained: what that restoration reads
    std::uint64_t behind_bytes = 0;  // while unmaintained: behind at `left_at`
    Time left_at{};
    std::string released_by;
  };

  // From the instance's start to its end (Time::max() while it is up).
  struct Run {
    Time start;
    Time end = Time::max();
  };
  struct Directory {
    std::map<TaskId, Copy> copies;
    std::size_t kept = 0;  // copies after the last sweep of deleted ones
    int alive = 0;          // members of the process that are up
    std::vector<Run> runs;  // the instance's runs, oldest first
    std::size_t runs_kept = 0;  // runs after the last trim
  };

  StateCosts costs_;
  std::vector<std::uint32_t> stateful_;  // the sub-topologies' handles, sorted
  Duration cleanup_delay_;
  // By process, then task: one string lookup per call, then task compares.
  // Never erased: a directory's address is kept below.
  std::map<std::string, Directory, std::less<>> directories_;
  // The last process's directory: a thread asks about its tasks one after
  // another (every task of a 1,000-process group at each eager rebalance).
  mutable const std::string* last_process_ = nullptr;  // its key in directories_
  mutable Directory* last_ = nullptr;
  Directory* directory(const std::string& process) const;  // null for none
  Directory& directory_for(const std::string& process);     // made when missing
  // Whether the cleaner has deleted `c` by `now`.
  bool deleted(const Directory& d, const Copy& c, Time now) const;
  // Bytes `c` (null: no copy) is behind at `at`.
  std::uint64_t lag_of(const Copy* c, Time at) const;
  // Drops the runs that ended before any copy kept could go stale.
  void trim_runs(Directory& d, Time now);
  // The copy, unless there is none or the cleaner has deleted it by `now`.
  const Copy* find(const std::string& process, const TaskId& t, Time now) const;
  // Drops the copies deleted by `now` (and runs no copy's deletion can be
  // in) once the directory has doubled since the last sweep: memory follows
  // what the processes hold, not every task each process ever had.
  void sweep(Directory& d, Time now);
};

}  // namespace rsim::protocols::streams
