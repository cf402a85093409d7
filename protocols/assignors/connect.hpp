// Kafka Connect's IncrementalCooperativeAssignor (KIP-415) as shipped: the
// leader balances connectors and tasks separately, revokes only to balance,
// holds lost work for scheduled.rebalance.max.delay.ms (even when its worker
// returns sooner) and backs off successive revoking rebalances
// (40 ms x 40^(n-1), capped at the max delay). Reference §5.3-5.4.
//
// The assignor has state (the leader's memory of the previous round); a new
// leader starts with a fresh instance, as in Kafka.
//
// Resources are TopicPartitions: the caller decides which are connectors and
// which tasks (a Connect scenario's connector instances and tasks; a consumer
// scenario's partitions are all "tasks").
#pragma once

#include "protocols/assignors/assignor.hpp"
#include "protocols/topic_partition.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <boost/container/flat_set.hpp>

namespace rsim::protocols::connect {

// ConnectorsAndTasks: one worker's load (in the order the worker got it), or
// a set of work.
struct Work {
  std::vector<TopicPartition> connectors;
  std::vector<TopicPartition> tasks;
  bool empty() const { return connectors.empty() && tasks.empty(); }
  std::size_t size() const { return connectors.size() + tasks.size(); }
};

struct WorkerLoad {
  std::string worker;
  Work work;
};

// What one round gives each worker (every member has an entry).
struct ClusterAssignment {
  std::map<std::string, Work> assigned;  // newly assigned: start these
  std::map<std::string, Work> revoked;   // newly revoked: stop these
  std::map<std::string, Work> all;       // everything the worker runs after the round
};

// ExponentialBackoff(initial, multiplier, max, jitter 0).backoff(attempts),
// as Kafka computes it (double arithmetic, truncated).
std::int64_t exponential_backoff(std::int64_t initial, int multiplier, std::int64_t max, std::int64_t attempts);

class IncrementalCooperativeAssignor {
 public:
  // `previous_generation` is where a fresh leader starts (-1 in Kafka).
  explicit IncrementalCooperativeAssignor(std::int64_t max_delay_ms, int previous_generation = -1);

  // performTaskAssignment: `configured` is the config topic's connectors and
  // tasks; `members` every member's current load, in the order Kafka iterates
  // them (a HashMap by member id: see java_order.hpp); `now_ms` the leader's
  // clock.
  ClusterAssignment assign(const Work& configured, int last_completed_generation, int generation,
                           const std::vector<WorkerLoad>& members, std::int64_t now_ms);

  // The delay sent with the assignment (ms): members rejoin after it.
  int delay() const { return delay_; }
  std::int64_t scheduled_rebalance() const { return scheduled_rebalance_; }
  const std::vector<std::string>& candidates() const { return candidates_; }

  // The pieces Kafka's unit tests drive directly.
  // handleLostAssignments: deals lost work to candidate workers in `loads`
  // or adds it to `to_reassign`; maintains the delay.
  void handle_lost(const Work& lost, Work& to_reassign, std::vector<WorkerLoad>& loads, std::int64_t now_ms);
  void set_previous_members(std::set<std::string> members) { previous_members_ = std::move(members); }
  // A leader that knows the group's assignment without having computed it
  // (a group that starts stable): as if it had assigned `loads` in
  // `generation`.
  void remember(const std::vector<WorkerLoad>& loads, int generation);
  // assignConnectors / assignTasks: round robin over the least-loaded
  // workers, sorted by (count, worker id). Sorts `loads`.
  static void assign_connectors(std::vector<WorkerLoad>& loads, const std::vector<TopicPartition>& connectors);
  static void assign_tasks(std::vector<WorkerLoad>& loads, const std::vector<TopicPartition>& tasks);

 private:
  void reset_delay();

  std::int64_t max_delay_;
  // Sorted and contiguous: a large cluster's whole assignment, rebuilt and
  // compared at every round.
  boost::container::flat_set<TopicPartition> previous_connectors_, previous_tasks_;  // previousAssignment
  std::set<TopicPartition> revoked_connectors_, revoked_tasks_;      // previousRevocation
  bool revoked_in_previous_ = false;
  std::vector<std::string> candidates_;  // candidateWorkersForReassignment (a LinkedHashSet)
  std::int64_t scheduled_rebalance_ = 0;
  int delay_ = 0;
  int previous_generation_;
  std::set<std::string> previous_members_;
  int successive_revoking_rounds_ = 0;
};

// Splits resources into Connect's two kinds: connector instances, and tasks
// (every other resource, so a consumer group's partitions are all tasks).
Work split_work(const std::vector<TopicPartition>& resources);
// Every resource of the snapshot's subscribed topics.
Work configured_work(const GroupSnapshot& group);
// The members' current loads (what they own).
std::vector<WorkerLoad> worker_loads(const GroupSnapshot& group);

// The assignor as a pure function: what a new leader (a fresh instance, no
// previous round) assigns for the snapshot. Each member's result is what it
// runs after the round: what it keeps plus what it is newly given (load-
// balancing revocations withheld, as Connect does).
class ConnectAssignor final : public Assignor {
 public:
  explicit ConnectAssignor(std::int64_t max_delay_ms = 300000) : max_delay_(max_delay_ms) {}
  std::string_view name() const override { return "connect"; }
  GroupAssignment assign(const GroupSnapshot& group) const override;

 private:
  std::int64_t max_delay_;
};

}  // namespace rsim::protocols::connect
