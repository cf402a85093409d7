// What Kafka Streams' classic assignor knows of one client (a KafkaStreams
// instance, one process id) while it assigns: the port of the parts of
// ClientState (streams/.../processor/internals/assignment/ClientState.java,
// Kafka 3.8.0) that HighAvailabilityTaskAssignor reads: capacity (its stream
// threads), per-task lags, and the active and standby tasks assigned so far.
#pragma once

#include "protocols/streams/tasks.hpp"

#include <boost/container/flat_map.hpp>
#include <boost/container/flat_set.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace rsim::protocols::streams::ha {

// Kafka's sentinels in task offset sums and lags (Task.LATEST_OFFSET,
// SubscriptionInfo.UNKNOWN_OFFSET_SUM). An offset sum of LATEST_OFFSET means
// the client runs the task as an active: its lag is LATEST_OFFSET too, and
// counts as caught up whatever acceptable.recovery.lag is.
inline constexpr std::int64_t kLatestOffset = -2;
inline constexpr std::int64_t kUnknownOffsetSum = -3;
// Long.MAX_VALUE: as a lag, "nothing local"; as acceptable.recovery.lag,
// "every client is caught up" (no warm-ups).
inline constexpr std::int64_t kMaxLag = std::numeric_limits<std::int64_t>::max();

// Caught up: running the task as an active (LATEST_OFFSET), or any lag when
// the acceptable lag is unbounded, or a known lag within it.
inline bool caught_up(std::int64_t lag, std::int64_t acceptable_recovery_lag) {
  return lag == kLatestOffset || acceptable_recovery_lag == kMaxLag || (lag >= 0 && lag <= acceptable_recovery_lag);
}

// Kafka's process id is a UUID; here a string, ordered byte-wise where Kafka
// orders UUIDs (TreeMap<ProcessId, ...>, ties in client comparators).
using ProcessId = std::string;

// A client's lag per stateful task, sorted by task key (std::less) and
// contiguous: the assignor reads lags at every rebalance, and a tree's nodes
// were most of a 300-client classic Streams run (cache misses, allocation;
// issue 16).
using TaskLags = boost::container::flat_map<TaskId, std::int64_t>;

// TaskId.compareTo: sub-topology as a number, then partition. Our sub-topology
// ids are strings; two decimal ones compare as numbers ("2" < "10"), anything
// else byte-wise, after the numeric ones.
struct KafkaTaskOrder {
  bool operator()(const TaskId& a, const TaskId& b) const { return compare(a, b) < 0; }
  static int compare(const TaskId& a, const TaskId& b);
};
// Contiguous: a client's tasks arrive mostly in order, and 100,000 tree nodes
// per rebalance were a tenth of a 1,000-client group's (issue 16).
using OrderedTasks = boost::container::flat_set<TaskId, KafkaTaskOrder>;

class ClientState {
 public:
  // `unlisted_lag`: the lag of every task `lags` does not list (none: each
  // stateful task must be listed).
  ClientState(int capacity, TaskLags lags, std::optional<std::int64_t> unlisted_lag = std::nullopt);

  int capacity() const { return capacity_; }
  const OrderedTasks& active() const { return active_; }
  const OrderedTasks& standby() const { return standby_; }

  // Throws std::invalid_argument for a task the client has no lag for:
  // Kafka computes a lag for every stateful task of every client.
  std::int64_t lag_for(const TaskId& t) const;
  // The lags listed, in task key order (std::less), and that of the others.
  const TaskLags& lags() const { return lags_; }
  std::optional<std::int64_t> unlisted_lag() const { return unlisted_lag_; }

  // Assigning a task the client already holds (either role) throws, as
  // Kafka's assertNotAssigned; unassigning one it does not hold throws.
  void assign_active(const TaskId& t);
  void unassign_active(const TaskId& t);
  void assign_standby(const TaskId& t);
  void unassign_standby(const TaskId& t);

  bool has_active(const TaskId& t) const { return active_.contains(t); }
  bool has_standby(const TaskId& t) const { return standby_.contains(t); }
  bool has_assigned(const TaskId& t) const { return has_active(t) || has_standby(t); }

  int assigned_count() const { return static_cast<int>(active_.size() + standby_.size()); }
  // Tasks per thread, as Java's double division computes it: IEEE division is
  // correctly rounded, so the comparisons Kafka makes come out the same here.
  double assigned_load() const { return static_cast<double>(assigned_count()) / capacity_; }
  double active_load() const { return static_cast<double>(active_.size()) / capacity_; }

 private:
  void assert_not_assigned(const TaskId& t) const;

  int capacity_;
  TaskLags lags_;
  std::optional<std::int64_t> unlisted_lag_;
  OrderedTasks active_, standby_;
};

// TreeMap<ProcessId, ClientState>: Kafka's assignor iterates clients in
// process id order.
using ClientStates = std::map<ProcessId, ClientState>;

}  // namespace rsim::protocols::streams::ha
