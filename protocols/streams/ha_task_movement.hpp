// The second half of Kafka Streams' HighAvailabilityTaskAssignor: after a
// balanced placement, tasks placed on a client that is not caught up move to
// one that is, and the intended owner gets a warm-up replica to catch up on
// (TaskMovement.java, Kafka 3.8.0). Public so that the vectors can drive it
// with the tables Kafka's TaskMovementTest builds by hand.
#pragma once

#include "protocols/streams/ha_client_state.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace rsim::protocols::streams::ha {

// Per stateful task: the caught-up clients, and every client from the most
// caught up (lowest lag, then process id) to the least.
struct LagTables {
  std::map<TaskId, std::set<ProcessId>, KafkaTaskOrder> caught_up;
  std::map<TaskId, std::vector<ProcessId>, KafkaTaskOrder> by_lag;
};

// Warm-up replicas per client: standbys placed only so that an active can
// move there at a later (probing) rebalance.
using Warmups = std::map<ProcessId, OrderedTasks>;

// Moves each active task placed on a client that is not caught up, while a
// more caught-up client exists, to a caught-up client (a caught-up standby
// first, swapping roles; else the least loaded caught-up client) or, with
// none, to the most caught-up one; the client it leaves gets a warm-up while
// `remaining_warmups` lasts. Returns the number of movements.
int assign_active_task_movements(const LagTables& tables, ClientStates& clients, Warmups& warmups,
                                 std::int64_t& remaining_warmups);

// The same for standby tasks that are not warm-ups: a caught-up client
// without the task takes a standby, the client that is not caught up keeps
// its copy as a warm-up while `remaining_warmups` lasts (recorded in
// `warmups`), else drops it. Returns the number of movements.
int assign_standby_task_movements(const LagTables& tables, ClientStates& clients, Warmups& warmups,
                                  std::int64_t& remaining_warmups);

}  // namespace rsim::protocols::streams::ha
