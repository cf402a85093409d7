// What a Streams run adds to a scenario run: the application's topology, its
// processes' local state, the coordinator's settings, and the tasks as the
// group's resources (which grow when a source topic is created or grows).
#pragma once

#include "protocols/streams/ha_assignor.hpp"
#include "protocols/streams/local_state.hpp"
#include "protocols/streams/member.hpp"
#include "protocols/streams/topology.hpp"
#include "scenarios/scenario.hpp"
#include "sim/kernel.hpp"
#include "sim/trace.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace rsim::scenario {

class StreamsGroup {
 public:
  StreamsGroup(const Scenario& s, const std::map<std::string, int>& cluster);

  const protocols::streams::Topology& topology() const { return topology_; }
  protocols::streams::LocalState& state() { return state_; }
  // The tasks the topology has with the topics that exist now.
  std::vector<std::string> tasks() const;
  // After a topic is created or grows: the new tasks join the resources
  // (`resources-added`, as new partitions do in a consumer group).
  void topics_changed(Trace& trace, Time now);
  // Whether `resource` is one of the tasks announced so far (a consumer
  // group's partitions, also announced as topics come, are not).
  bool is_task(const std::string& resource) const { return known_.count(resource) != 0; }

 private:
  const std::map<std::string, int>& cluster_;
  protocols::streams::Topology topology_;
  protocols::streams::LocalState state_;
  std::set<std::string> known_;  // tasks already among the resources
};

protocols::streams::StreamsIdentity streams_identity(const MemberSpec& spec);

// Classic Streams: the high-availability assignor's settings (Kafka's
// defaults where the scenario is silent), and a stateful task's changelog in
// records (its state over costs.record.size): how far a client without the
// state lags.
protocols::streams::ha::AssignmentConfigs streams_assignment_configs(const Scenario& s);
std::int64_t changelog_records(const Scenario& s);

}  // namespace rsim::scenario
