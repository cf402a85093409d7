// Kafka Streams' HighAvailabilityTaskAssignor, the task assignor a Streams
// application's group leader runs over the classic group protocol (the
// baseline KIP-1071 replaces), as a pure function.
//
// Followed: Apache Kafka 3.8.0 (tag 3.8.0), streams/.../processor/internals/
// assignment/: HighAvailabilityTaskAssignor, TaskMovement,
// ConstrainedPrioritySet, ClientState, DefaultStandbyTaskAssignor,
// StandbyTaskAssignmentUtils, AssignorConfiguration.AssignmentConfigs. The
// 3.9 branch differs from it in these files only by import order. Not
// ported: the rack-aware optimisation (rack.aware.assignment.strategy, default
// "none") and the client-tag-aware standby assignor (rack.aware.assignment.tags,
// default empty), which the defaults leave out.
//
// Steps (why each exists is said where it is done, in ha_assignor.cpp):
// 1. stateful actives round-robin over clients in process id order, then
//    balanced over threads; 2. standbys, least loaded first, then balanced;
// 3. actives on a client that is not caught up move to a caught-up one, the
//    intended owner gets a warm-up (at most max.warmup.replicas in total);
// 4. the same for standbys; 5. stateless actives to the least active-loaded.
// A probing rebalance is needed iff step 3 or 4 moved anything.
#pragma once

#include "protocols/streams/ha_client_state.hpp"

#include <cstdint>
#include <map>
#include <optional>

namespace rsim::protocols::streams::ha {

// StreamsConfig defaults (AssignorConfiguration.AssignmentConfigs).
struct AssignmentConfigs {
  std::int64_t acceptable_recovery_lag = 10'000;       // acceptable.recovery.lag
  int max_warmup_replicas = 2;                         // max.warmup.replicas
  int num_standby_replicas = 0;                        // num.standby.replicas
  std::int64_t probing_rebalance_interval_ms = 600'000;  // probing.rebalance.interval.ms
};

// One client (KafkaStreams instance) as its members' subscriptions describe
// it. The assignor itself reads capacity and lags only: stickiness comes from
// the lags (a running active reports LATEST_OFFSET, so it is caught up).
struct ClientInput {
  int capacity = 1;  // stream threads
  TaskSet prev_active, prev_standby;
  TaskLags lags;  // per stateful task (or some: unlisted_lag); see task_lags()
  // Where set, `lags` may list only some tasks and every other lags by this:
  // Kafka lags a task a client did not report by the task's whole end offset
  // sum, one value for every task here. A large group then passes what its
  // members reported, not a lag per client and task (issue 16).
  std::optional<std::int64_t> unlisted_lag;

  // Listed, else unlisted_lag, else none.
  std::optional<std::int64_t> lag_for(const TaskId& t) const {
    if (const auto it = lags.find(t); it != lags.end()) return it->second;
    return unlisted_lag;
  }
};

// Per client its tasks; `standby` and `warmup` are disjoint. Kafka's
// ClientState keeps both in one standby set (a member is sent a warm-up as a
// standby task).
struct Assignment {
  std::map<ProcessId, TasksTuple> clients;
  bool probing_rebalance_needed = false;
};

// Throws std::invalid_argument when a client lacks a lag for a stateful task
// or has no thread; a stateful task must be one of `all_tasks`. Takes the
// clients by value: their lags move into the assignor's client states.
Assignment assign(std::map<ProcessId, ClientInput> clients, const TaskSet& all_tasks, const TaskSet& stateful_tasks,
                  const AssignmentConfigs& configs);

// ClientState.computeTaskLags: a client's lag per task from the offset sums it
// reported and the changelogs' end offset sums. A task it did not report lags
// by the whole end offset sum; LATEST_OFFSET and UNKNOWN_OFFSET_SUM pass
// through; an offset sum beyond the end (corrupted state) lags by the end
// offset sum, so the client is not preferred for it.
TaskLags task_lags(const std::map<TaskId, std::int64_t>& offset_sums, const std::map<TaskId, std::int64_t>& end_offset_sums);

}  // namespace rsim::protocols::streams::ha
