// What any KIP-1071 task assignment must satisfy, whatever the assignor: a
// checker that reads an assignment, for the vector runner and the tests.
#pragma once

#include "protocols/streams/assignor.hpp"

#include <string>
#include <vector>

namespace rsim::protocols::streams {

// What any assignor's answer must satisfy for the group to run it (a
// plug-in's is held to it); empty when it does:
// - every member of the group has an entry and nobody else does;
// - every task of the topology is active on exactly one member (when the
//   group has members), and no task outside it is assigned;
// - a process never holds two copies (active, standby or warm-up) of a task;
// - standbys and warm-ups are copies of stateful tasks.
std::vector<std::string> protocol_violations(const StreamsGroupSpec& group, const TopologyDescriber& topology,
                                             const StreamsGroupAssignment& assignment);

// The sticky assignor's result, on top of protocol_violations:
// - stateful tasks get min(num_standby_replicas, processes - 1) standbys
//   each (Kafka places them while a process lacks the task);
// - no member has more active tasks than ceil(active tasks / members).
std::vector<std::string> assignment_violations(const StreamsGroupSpec& group, const TopologyDescriber& topology,
                                               const StreamsGroupAssignment& assignment);

}  // namespace rsim::protocols::streams
