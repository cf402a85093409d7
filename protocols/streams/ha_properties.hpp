// What every result of the high-availability task assignor satisfies, as a
// checker that reads an assignment: for the vector runner, the tests, and a
// planted wrong assignment that must fail it.
#pragma once

#include "protocols/streams/ha_assignor.hpp"

#include <string>
#include <vector>

namespace rsim::protocols::streams::ha {

// Empty when the assignment is valid:
// - exactly the input's clients have an entry;
// - every task is active on exactly one client, no unknown task is assigned;
// - a client never holds two copies (active, standby, warm-up) of one task;
// - stateless tasks get no standby and no warm-up; each stateful task has
//   min(num.standby.replicas, clients - 1) standbys besides its warm-ups;
// - at most max.warmup.replicas warm-ups, each on a client not caught up on
//   its task, and warm-ups imply a probing rebalance;
// - a stateful active is on a caught-up client, or on one no client has a
//   lower lag than (Kafka compares raw lags: UNKNOWN_OFFSET_SUM, -3, counts
//   as the most caught up).
std::vector<std::string> assignment_violations(const std::map<ProcessId, ClientInput>& clients, const TaskSet& all_tasks,
                                               const TaskSet& stateful_tasks, const AssignmentConfigs& configs,
                                               const Assignment& assignment);

}  // namespace rsim::protocols::streams::ha
