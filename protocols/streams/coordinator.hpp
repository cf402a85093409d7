// The KIP-1071 group coordinator for `streams` groups: the epoch-group core
// (protocols/epoch/) over tasks, EpochGroup<StreamsTasks>, plus what is the
// Streams protocol's own: the topology and its configuration against the
// cluster's topics (missing source topics: no tasks), the task assignor,
// StreamsGroupHeartbeat with its statuses.
// Follows Apache Kafka 4.2 (group-coordinator streams/ and
// GroupMetadataManager.streamsGroupHeartbeat). Simplified: every member runs
// the scenario's one topology (epoch 0), so the coordinator is given it and
// initialises the group's topology at the first join rather than comparing
// each member's; internal topics exist as configured (Kafka's client
// creates them after a MISSING_INTERNAL_TOPICS status).
#pragma once

#include "protocols/streams/assignor.hpp"
#include "protocols/streams/messages.hpp"
#include "protocols/streams/topology.hpp"
#include "sim/kernel.hpp"
#include "sim/trace.hpp"

#include <map>
#include <string>

namespace rsim::protocols::streams {

struct CoordinatorConfig {
  Duration session_timeout = std::chrono::seconds(45);    // group.streams.session.timeout.ms
  Duration heartbeat_interval = std::chrono::seconds(5);  // group.streams.heartbeat.interval.ms
  Duration initial_rebalance_delay = std::chrono::seconds(3);  // group.streams.initial.rebalance.delay.ms
  int num_standby_replicas = kNumStandbyReplicasDefault;  // group.streams.num.standby.replicas
  std::string group_id = "group";                         // the application.id
  const TaskAssignor* assignor = nullptr;                 // null: the built-in sticky
};

class StreamsCoordinator final : public epoch::EpochGroup<StreamsTasks> {
 public:
  // `cluster`: the topics that exist now (topic -> partitions), read at every
  // heartbeat; a topic created or grown later changes the group's tasks.
  StreamsCoordinator(Kernel& kernel, Trace& trace, const std::map<std::string, int>& cluster, const Topology& topology,
                     CoordinatorConfig config);

  void handle_heartbeat(HeartbeatRequest req, Reply reply);
  // A group that starts stable (the scenario's initial-assignment): each
  // member (its join request, with the member id it is given) owning its
  // active tasks, and standbys where the sticky assignor, given those
  // actives, places them (never on a process running the task).
  void seed_stable(const std::vector<std::pair<HeartbeatRequest, TaskSet>>& members);
  const ConfiguredTopology& configured() const { return configured_; }
  std::vector<epoch::CoordinatorRecord> coordinator_records(const Record& r, bool json) const override;

 private:
  GroupMetadata group_metadata() const override;
  bool metadata_changed() const;  // group_metadata() differs from the group epoch's
  bool metadata_walk_changed() const;  // the same, read topic by topic
  std::optional<Targets> assign() override;
  bool target_delayed() const override { return initial_delay_.armed(); }
  void start_initial_delay();

  Found member_for(const HeartbeatRequest& req);
  static MemberView member_from(const HeartbeatRequest& req);
  // The topology against the topics now; a new group epoch when the
  // partition metadata it was computed from changed.
  void refresh_topology();
  std::vector<std::string> statuses() const;
  StreamsGroupSpec group_spec() const;
  void place_standbys(std::vector<MemberView>& seeds) const;
  TopologyDescriber describer() const;
  StreamsGroupAssignment run_assignor(const StreamsGroupSpec& g) const;  // the configured task assignor

  const std::map<std::string, int>& cluster_;
  const Topology& topology_;
  const std::vector<std::string> source_topics_;  // its external source topics, in name order
  CoordinatorConfig config_;
  ConfiguredTopology configured_;
  Timer initial_delay_;  // in memory only: a new coordinator does not resume it
  int creation_epoch_ = 0;  // the group epoch that created the group (its record brings the topology's)
};

}  // namespace rsim::protocols::streams
