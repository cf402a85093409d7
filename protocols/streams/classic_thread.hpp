// A stream thread of a Kafka Streams application over the classic group
// protocol (the baseline KIP-1071 replaces): the consumer is a classic
// member (protocols/classic/member.hpp) whose resources are its active
// tasks; this is the Streams side it calls. The thread reports in its
// subscription the state its process has (SubscriptionInfo's task offset
// sums), maintains its standby copies, and an active task processes only
// once its copy is restored (local_state.hpp), as under KIP-1071.
//
// Simplified: every thread of a process reports every copy the process has
// (Kafka: the threads lock the unowned task directories between them, one
// reports each); the changelog's records are `record_bytes` each, which turns
// the model's bytes behind into the records behind that
// acceptable.recovery.lag is compared with.
#pragma once

#include "protocols/classic/member.hpp"
#include "protocols/streams/local_state.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace rsim::protocols::streams {

// A task as a classic member's resource, and back.
TopicPartition task_resource(const TaskId& t);
TaskId task_of(const TopicPartition& tp);

class ClassicThread final : public classic::ThreadTasks {
 public:
  ClassicThread(Kernel& kernel, Trace& trace, LocalState& state, std::string member, std::string process,
                Duration assign_cost, std::uint64_t record_bytes);

  classic::StreamsSubscription describe(const std::vector<TopicPartition>& owned) const override;
  void standbys(const std::vector<TopicPartition>& assigned) override;
  Duration activate(const std::vector<TopicPartition>& added) override;
  void released(const std::vector<TopicPartition>& actives) override;
  void stopped() override;

 private:
  std::int64_t records_behind(const TaskId& t) const;
  std::int64_t records(std::uint64_t bytes) const;  // rounded up to whole records

  Kernel& kernel_;
  Trace& trace_;
  LocalState& state_;
  std::string member_, process_;
  Duration assign_cost_;
  std::uint64_t record_bytes_;
  std::map<TaskId, Time> caught_up_at_;  // its active tasks' restorations
  std::set<TaskId> standby_;
};

}  // namespace rsim::protocols::streams
