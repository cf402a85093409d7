// The second half of Kafka Streams' HighAvailabilityTaskAssignor: after a
// balanced placement, tasks placed on a client that is not caught up move to
// one that is, and the intended owner gets a warm-up replica to catch up on
// (TaskMovement.java, Kafka 3.8.0). Public so that the vectors can drive it
// with the tables Kafka's TaskMovementTest builds by hand.
#pragma once

#include "protocols/streams/ha_client_state.hpp"
#include "protocols/streams/task_index.hpp"

#include <boost/container/flat_set.hpp>

#include <cstdint>
#include <map>
#include <vector>

namespace rsim::protocols::streams::ha {

// Per stateful task: the caught-up clients, and every client from the most
// caught up (lowest lag, then process id) to the least. Kafka builds both for
// every task. Here each client's caught-up bit for the tasks it did not list
// is its unlisted lag's, and the lags it listed are kept per task (what the
// members reported, not a lag per client and task); a task's lag order is
// built from them when first read (the same order: lags do not change while
// the assignor runs), and the movements read it only where a client holding
// the task is not caught up. A string per client and task in both tables,
// then a bit per client and task in a tree by task, were most of a large
// rebalance (issue 16).
class LagTables {
 public:
  using CaughtUp = std::map<TaskId, boost::container::flat_set<ProcessId>, KafkaTaskOrder>;
  using ByLag = std::map<TaskId, std::vector<ProcessId>, KafkaTaskOrder>;

  // From the clients' lags; `clients` must outlive the tables. Throws
  // std::invalid_argument for a client without a lag for a stateful task.
  LagTables(const ClientStates& clients, const TaskSet& stateful, std::int64_t acceptable_recovery_lag);
  // Both given, as Kafka's TaskMovementTest builds them by hand, over
  // `clients` (which must outlive the tables); naming a client that is not
  // one throws std::invalid_argument.
  LagTables(const ClientStates& clients, const CaughtUp& caught_up, const ByLag& by_lag);
  LagTables(const LagTables&) = delete;  // large, and never needed twice
  LagTables& operator=(const LagTables&) = delete;

  // Throw std::out_of_range for a task that is not a stateful one. A
  // client's rank is its position in the clients (process id order).
  bool caught_up(const TaskId& task, const ProcessId& client) const;
  bool caught_up(const TaskId& task, std::uint32_t rank) const;
  int caught_up_count(const TaskId& task) const { return counts_[caught_index(task)]; }
  // A task's clients from the most caught up to the least, as ranks (4 bytes
  // where a process id takes 32: every task's order is built when every
  // holder lags, as at a group's first rebalance).
  const std::vector<std::uint32_t>& by_lag(const TaskId& task) const;
  const ProcessId& client(std::uint32_t rank) const { return ids_.at(rank); }
  // Also throw std::out_of_range for a task no client lags on.
  const ProcessId& most_caught_up(const TaskId& task) const;
  // The lag of the most caught-up client: from the lags, without ordering
  // every client (should_move asks it for every task a lagging client holds).
  std::int64_t lag_of_most_caught_up(const TaskId& task) const;
  // Whether ranks here are ranks in `clients` (the tables were built over them).
  bool ranks(const ClientStates& clients) const { return clients_ == &clients; }

 private:
  // A lag a client listed for a task (given by hand: a client named caught up).
  struct Listed {
    std::uint32_t rank;
    bool caught_up;
    std::int64_t lag;
  };

  std::uint32_t rank(const ProcessId& client) const;  // ids_.size() for none
  std::uint32_t client_rank(const ProcessId& client) const;  // throws for none
  std::uint32_t caught_index(const TaskId& task) const;  // throws for a task without caught-up clients
  const Listed* listed(std::uint32_t index, std::uint32_t rank) const;  // nullptr for none
  void build_order(std::uint32_t index) const;

  std::vector<ProcessId> ids_;  // sorted: a client's rank
  TaskIndex tasks_;             // the stateful tasks (given by hand: those either table names)
  std::vector<char> has_caught_;  // per task: in the caught-up table
  std::vector<std::uint32_t> offsets_;  // per task, its lags in listed_: [offsets_[i], offsets_[i + 1])
  std::vector<Listed> listed_;          // by task, then rank
  std::vector<int> counts_;             // caught-up clients per task
  std::vector<bool> unlisted_caught_;   // per rank: caught up on the tasks it did not list
  std::vector<std::int64_t> unlisted_lag_;      // per rank (clients without one list every task)
  std::vector<std::uint32_t> by_unlisted_lag_;  // ranks with an unlisted lag, lowest first, ties by rank
  mutable std::vector<std::vector<std::uint32_t>> by_lag_;  // per task, built when read from clients
  mutable std::vector<char> has_order_;
  mutable TaskId last_task_;  // a poll asks about one task for many clients in turn
  mutable std::uint32_t last_index_ = TaskIndex::npos;
  const ClientStates* clients_;
  bool build_orders_;  // from the clients' lags, or given
};

// Warm-up replicas per client: standbys placed only so that an active can
// move there at a later (probing) rebalance.
using Warmups = std::map<ProcessId, OrderedTasks>;

// Moves each active task placed on a client that is not caught up, while a
// more caught-up client exists, to a caught-up client (a caught-up standby
// first, swapping roles; else the least loaded caught-up client) or, with
// none, to the most caught-up one; the client it leaves gets a warm-up while
// `remaining_warmups` lasts. Returns the number of movements. Both take the
// clients the tables were built over (else std::logic_error).
int assign_active_task_movements(const LagTables& tables, ClientStates& clients, Warmups& warmups,
                                 std::int64_t& remaining_warmups);

// The same for standby tasks that are not warm-ups: a caught-up client
// without the task takes a standby, the client that is not caught up keeps
// its copy as a warm-up while `remaining_warmups` lasts (recorded in
// `warmups`), else drops it. Returns the number of movements.
int assign_standby_task_movements(const LagTables& tables, ClientStates& clients, Warmups& warmups,
                                  std::int64_t& remaining_warmups);

}  // namespace rsim::protocols::streams::ha
