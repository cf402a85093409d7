// The broker side of one group: the coordinator that holds it now (the
// classic one, the KIP-848 one, or a KIP-1071 Streams group's), the online migrations between the two
// (KIP-848), and the coordinator's failover to another broker. Members
// address the host; it hands each request to whichever coordinator the group
// has, as Kafka's GroupMetadataManager looks the group up by id and type.
//
// Migration, as Kafka's GroupMetadataManager does it:
// - a ConsumerGroupHeartbeat joining (epoch 0) a classic group converts it
//   (any state; parked JoinGroup/SyncGroup answered REBALANCE_IN_PROGRESS)
//   when group.consumer.migration.policy allows upgrades; an empty classic
//   group is replaced by a new consumer group whatever the policy; with any
//   other epoch, or when the policy refuses, the answer is GROUP_ID_NOT_FOUND
//   (fatal for the consumer);
// - when the last consumer-protocol member of a group that still has classic
//   members leaves or is fenced, the group turns classic again if the policy
//   allows downgrades; a classic JoinGroup to an empty consumer group replaces
//   it with a new classic group.
#pragma once

#include "protocols/assignors/assignor.hpp"
#include "protocols/classic/coordinator.hpp"
#include "protocols/classic/member.hpp"
#include "protocols/consumer/coordinator.hpp"
#include "protocols/consumer/member.hpp"
#include "protocols/streams/coordinator.hpp"
#include "protocols/streams/member.hpp"
#include "sim/kernel.hpp"
#include "sim/network.hpp"
#include "sim/trace.hpp"

#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace rsim::protocols {

struct HostConfig {
  classic::CoordinatorConfig classic;
  consumer::CoordinatorConfig consumer;
  streams::CoordinatorConfig streams;
  std::string migration_policy = "bidirectional";  // group.consumer.migration.policy
  std::string group_id = "group";                  // group.id: the key of every record
  std::size_t max_batch_bytes = epoch::kDefaultMaxBatchBytes;  // message.max.bytes
  epoch::RecordsOut* records_out = nullptr;        // `run --records`
  // The cluster metadata's change count (GroupTopics::version), if the
  // caller keeps one: see EpochGroup::follow_cluster_version.
  const std::uint64_t* cluster_version = nullptr;
};

class GroupHost final : public classic::ClassicEndpoint,
                        public consumer::ConsumerEndpoint,
                        public streams::StreamsEndpoint {
 public:
  // `consumer_assignor` is the broker-side assignor of a consumer group
  // (converted groups included).
  GroupHost(Kernel& kernel, Trace& trace, Network& network, const consumer::Metadata& cluster,
            const Assignor& consumer_assignor, HostConfig config);
  GroupHost(const GroupHost&) = delete;
  GroupHost& operator=(const GroupHost&) = delete;

  // The group a run starts with, and its coordinator (for seeding a group
  // that starts stable).
  classic::ClassicCoordinator& start_classic();
  consumer::ConsumerCoordinator& start_consumer();
  // A Streams group running `topology` (which outlives the host).
  streams::StreamsCoordinator& start_streams(const streams::Topology& topology);

  classic::CoordinatorDirectory& classic_directory() { return classic_directory_; }
  consumer::Directory& consumer_directory() { return consumer_directory_; }
  streams::Directory& streams_directory() { return streams_directory_; }
  // Called when connections to the coordinator break (a failover).
  void on_disconnect(std::function<void()> f) { disconnect_ = std::move(f); }

  // The coordinator's broker fails: connections break, what was not
  // persisted is lost; after `down` another broker loads the group (a
  // failover while one is under way delays the return). A classic group
  // comes back as it was last persisted, a consumer or Streams group by
  // replaying its records.
  void failover(Duration down);
  // The network between a member's node and the coordinator is cut for
  // `length` (the member's messages and the coordinator's answers are lost).
  void isolate(const std::string& member, NodeId node, Duration length);
  bool up() const { return !std::holds_alternative<std::monostate>(coordinator_); }

  void handle_join(classic::JoinGroupRequest req, classic::Reply<classic::JoinGroupResponse> reply) override;
  void handle_sync(classic::SyncGroupRequest req, classic::Reply<classic::SyncGroupResponse> reply) override;
  void handle_heartbeat(classic::HeartbeatRequest req, classic::Reply<classic::HeartbeatResponse> reply) override;
  void handle_leave(classic::LeaveGroupRequest req) override;
  void handle_heartbeat(consumer::HeartbeatRequest req, consumer::Reply<consumer::HeartbeatResponse> reply) override;
  void handle_heartbeat(streams::HeartbeatRequest req, streams::Reply reply) override;

 private:
  using Classic = std::unique_ptr<classic::ClassicCoordinator>;
  using Consumer = std::unique_ptr<consumer::ConsumerCoordinator>;
  using Streams = std::unique_ptr<streams::StreamsCoordinator>;
  // What a new coordinator loads.
  struct Persisted {
    std::variant<classic::PersistedGroup, std::vector<consumer::Record>, std::vector<streams::Record>> group;
    std::uint64_t next_member_number = 1;
  };

  classic::ClassicCoordinator* classic() const;
  consumer::ConsumerCoordinator* consumer() const;
  streams::StreamsCoordinator* streams() const;
  Classic make_classic() const;
  Consumer make_consumer() const;
  Streams make_streams() const;
  bool allows(const char* way) const;
  template <class Group>
  std::unique_ptr<Group> with_records(std::unique_ptr<Group> g) const;
  void emit(std::string kind, std::vector<TraceField> fields);
  void convert_to_consumer();
  void replace_with_new_consumer_group();
  void convert_to_classic();
  void replace_with_new_classic_group();
  void watch_for_downgrade();
  void come_back();
  template <class Group>
  void check_replay(const Group& g);

  Kernel& kernel_;
  Trace& trace_;
  Network& network_;
  const consumer::Metadata& cluster_;
  const Assignor& consumer_assignor_;
  HostConfig config_;
  std::variant<std::monostate, Classic, Consumer, Streams> coordinator_;
  const streams::Topology* topology_ = nullptr;  // a Streams group's
  Persisted persisted_;  // while down
  Timer back_timer_;
  classic::CoordinatorDirectory classic_directory_;
  consumer::Directory consumer_directory_;
  streams::Directory streams_directory_;
  std::function<void()> disconnect_;
};

}  // namespace rsim::protocols
