// The second half of Kafka Streams' HighAvailabilityTaskAssignor: after a
// balanced placement, tasks placed on a client that is not caught up move to
// one that is, and the intended owner gets a warm-up replica to catch up on
// (TaskMovement.java, Kafka 3.8.0). Public so that the vectors can drive it
// with the tables Kafka's TaskMovementTest builds by hand.
#pragma once

#include "protocols/streams/ha_client_state.hpp"

#include <boost/container/flat_set.hpp>

#include <cstdint>
#include <map>
#include <vector>

namespace rsim::protocols::streams::ha {

// Per stateful task: the caught-up clients, and every client from the most
// caught up (lowest lag, then process id) to the least. Kafka builds both for
// every task. Here the caught-up clients are a bit per client in process id
// order, and a task's lag order is built from the clients' lags when first
// read (the same order: lags do not change while the assignor runs); the
// movements read it only where a client holding the task is not caught up.
// A string per client and task in both tables was most of a 300-client
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
  LagTables(const LagTables&) = delete;  // last_ points into caught_
  LagTables& operator=(const LagTables&) = delete;

  // Throw std::out_of_range for a task that is not a stateful one. A
  // client's rank is its position in the clients (process id order).
  bool caught_up(const TaskId& task, const ProcessId& client) const;
  bool caught_up(const TaskId& task, std::uint32_t rank) const { return caught(task).by_rank.at(rank); }
  int caught_up_count(const TaskId& task) const { return caught(task).count; }
  // A task's clients from the most caught up to the least, as ranks (4 bytes
  // where a process id takes 32: every task's order is built when every
  // holder lags, as at a group's first rebalance).
  const std::vector<std::uint32_t>& by_lag(const TaskId& task) const;
  const ProcessId& client(std::uint32_t rank) const { return ids_.at(rank); }
  // Also throws std::out_of_range for a task no client lags on.
  const ProcessId& most_caught_up(const TaskId& task) const;
  // Whether ranks here are ranks in `clients` (the tables were built over them).
  bool ranks(const ClientStates& clients) const { return clients_ == &clients; }

 private:
  struct Caught {
    std::vector<bool> by_rank;  // per client of `ids_`
    int count = 0;
  };

  std::uint32_t rank(const ProcessId& client) const;  // ids_.size() for none
  std::uint32_t client_rank(const ProcessId& client) const;  // throws for none
  // A poll asks about one task for many clients in turn: the last task's
  // entry is kept.
  const Caught& caught(const TaskId& task) const;

  std::vector<ProcessId> ids_;  // sorted: a client's rank
  std::map<TaskId, Caught, KafkaTaskOrder> caught_;
  mutable std::map<TaskId, std::vector<std::uint32_t>, KafkaTaskOrder> by_lag_;  // built when read from clients
  mutable const std::pair<const TaskId, Caught>* last_ = nullptr;
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
