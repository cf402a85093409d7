// A classic group member (the Kafka consumer's AbstractCoordinator /
// ConsumerCoordinator side): JoinGroup with the MEMBER_ID_REQUIRED round
// trip, SyncGroup (the leader runs the assignor), heartbeats every
// heartbeat.interval.ms, rejoin when the coordinator says the group is
// rebalancing, revoke and assign costs, the poll loop with processing
// batches and max.poll.interval.ms, metadata refresh, coordinator
// rediscovery, and the lifecycle the scenario drives: start, clean leave,
// crash, pause, slow batches, subscription changes.
#pragma once

#include "protocols/classic/coordinator.hpp"
#include "protocols/classic/embedded.hpp"
#include "protocols/member_process.hpp"
#include "sim/kernel.hpp"
#include "sim/network.hpp"
#include "sim/trace.hpp"

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rsim::protocols::classic {

using namespace std::chrono_literals;

// A Kafka Streams thread's side of its tasks, when the member is one
// (classic Streams; protocols/streams/classic_thread.hpp): what its
// subscription's user data says, its standby tasks, and the restoration an
// active task waits for before it processes. The member's resources are
// then its active tasks.
class ThreadTasks {
 public:
  virtual ~ThreadTasks() = default;
  // The JoinGroup user data (SubscriptionInfo), given the active tasks owned.
  virtual StreamsSubscription describe(const std::vector<TopicPartition>& owned) const = 0;
  // The assignment's standby set: copies to maintain from now, and to drop.
  virtual void standbys(const std::vector<TopicPartition>& assigned) = 0;
  // New active tasks: how long until they are ready (restoration, then the
  // assign cost).
  virtual Duration activate(const std::vector<TopicPartition>& added) = 0;
  // Active tasks closed (revoked, lost).
  virtual void released(const std::vector<TopicPartition>& actives) = 0;
  // The thread stopped (crash, leave): its standbys are gone too.
  virtual void stopped() = 0;
};

// Every timeout is set from the scenario (scenarios/member_config.cpp, with
// Kafka's defaults from the config key table); none has a default here.
struct MemberConfig {
  std::string client_id;  // the scenario's member id
  std::optional<std::string> instance_id;
  TopicNames topics;  // one list, shared by every JoinGroup the member sends
  Duration session_timeout{0};    // session.timeout.ms
  Duration heartbeat_interval{0}; // heartbeat.interval.ms
  Duration rebalance_timeout{0};  // what the member sends in JoinGroup
  Duration max_poll_interval{0};  // max.poll.interval.ms: the poll deadline
  Duration request_timeout{0};    // request.timeout.ms
  Duration retry_backoff{0};      // retry.backoff.ms
  Duration retry_backoff_max{0};  // retry.backoff.max.ms
  Duration metadata_max_age{0};   // metadata.max.age.ms
  Duration revoke_cost{0};  // per revoked resource: commit, flush
  Duration assign_cost{0};  // per assigned resource: init
  // Per resource of these topics (a Connect scenario's connectors), instead.
  std::map<std::string, Duration> revoke_cost_of_topic;
  std::map<std::string, Duration> assign_cost_of_topic;
  // A Connect worker stops and starts its connectors and tasks in parallel
  // (the slowest decides); a consumer's callbacks handle partitions in turn.
  bool parallel = false;
  // The process's network node; unset: a node of its own (see MemberProcess).
  std::optional<NodeId> node;
  // partition.assignment.strategy, in preference order, and the rebalance
  // protocol it makes the client speak (eager unless every assignor supports
  // cooperative). Empty / null: the context's assignor and protocol.
  std::vector<const Assignor*> assignors;
  const EmbeddedProtocol* protocol = nullptr;
  // Set when the member is a Kafka Streams thread (owned by the runner).
  ThreadTasks* tasks = nullptr;

  Duration revoke_time(const std::vector<TopicPartition>& resources) const;
  Duration assign_time(const std::vector<TopicPartition>& resources) const;
};

// Where the group's coordinator is. The runner replaces `coordinator` and
// restarts `node` on a failover; `available` is false while it moves.
struct CoordinatorDirectory {
  ClassicEndpoint* coordinator = nullptr;
  NodeId node = 0;
  NodeId bootstrap = 0;  // a broker that answers FindCoordinator
  bool available = true;
};

// The cluster's metadata as a refresh shows it: one shared copy per change
// of it, handed to every member that refreshes until the next change. A
// copy per member held 20 million map nodes at 10,000 members on 1,000
// topics (issue 16). `version` moves at every change (GroupTopics::version).
class MetadataSnapshots {
 public:
  MetadataSnapshots(const Metadata& cluster, const std::uint64_t& version) : cluster_(cluster), version_(version) {}
  std::shared_ptr<const Metadata> current() const;

 private:
  const Metadata& cluster_;
  const std::uint64_t& version_;
  mutable std::shared_ptr<const Metadata> copy_;
  mutable std::uint64_t copied_at_ = 0;
};

// Everything a member talks to; owned by the runner.
struct MemberContext {
  Kernel& kernel;
  Network& network;
  Trace& trace;
  CoordinatorDirectory& directory;
  const Metadata& cluster;  // the brokers' truth; members see it through refreshes
  const Assignor& assignor;
  const EmbeddedProtocol& protocol;
  const MetadataSnapshots* snapshots = nullptr;  // none: each refresh copies `cluster`
};

class ClassicMember final : public MemberProcess {
 public:
  ClassicMember(MemberContext ctx, MemberConfig config);

  // Lifecycle, driven by the scenario.
  void start() override;
  void crash() override;
  void leave(std::function<void()> on_stopped = {}) override;
  void slow(Duration batch, Duration length) override;
  void subscribe(std::vector<std::string> topics) override;
  // The connection to the coordinator broke (it failed over).
  void coordinator_disconnected() override;

  // Starts already in the group (scenario initial-assignment).
  void start_stable(const std::string& member_id, const std::string& leader, int generation,
                    std::vector<TopicPartition> owned, const std::string& group_protocol = {});

  // The leader of a group that starts stable knows the assignment it starts with.
  void remember_assignment(const std::map<std::string, std::vector<TopicPartition>>& by_client,
                           const std::map<std::string, std::vector<TopicPartition>>& by_member) {
    protocol().remember_start(leader_state_.get(), by_client, by_member, last_completed_generation_);
  }

  bool running() const override { return phase_ != Phase::Down; }

  // A rolling upgrade's new client configuration: the process starts with
  // these assignors (and the protocol they allow) at its next start.
  void configure_on_restart(std::vector<const Assignor*> assignors, const EmbeddedProtocol* protocol) {
    next_assignors_ = std::make_pair(std::move(assignors), protocol);
  }

 private:
  enum class Phase { Down, Idle, Joining, Syncing, Stable };

  bool down() const override { return phase_ == Phase::Down; }
  const EmbeddedProtocol& protocol() const { return config_.protocol != nullptr ? *config_.protocol : ctx_.protocol; }
  // The assignor the leader runs: the group's selected one (every member
  // lists it); the client's own first when the coordinator names none.
  const Assignor& group_assignor() const;
  // The one whose subscription metadata the member sends.
  const Assignor& subscription_assignor() const;
  std::vector<std::string> protocol_names() const;
  void on_freeze() override;
  void on_thaw() override;
  void on_coordinator_found() override;
  // Sends `req` to the coordinator; `handle` gets the answer (if it comes).
  template <class Req, class Resp, class Handle>
  void call(const char* what, Req req, void (ClassicEndpoint::*method)(Req, Reply<Resp>), Handle handle);

  void request_rejoin(const std::string& reason);
  void prepare_and_join(const std::string& reason);
  void send_join();
  void on_join_response(std::uint64_t seq, JoinGroupResponse r);
  void send_sync();
  void on_sync_response(std::uint64_t seq, SyncGroupResponse r);
  void send_heartbeat();
  void on_heartbeat_response(int generation, HeartbeatResponse r);
  void lose_partitions(const std::string& reason);
  void reset_generation(Error error);
  void fenced_instance();
  void retry_join_later();
  void arm_heartbeat();
  void revoke(std::vector<TopicPartition> partitions, Callback then);
  void initialise(const std::vector<TopicPartition>& added);
  void stop_timers();
  void stop_tasks();
  // The poll loop.
  void on_batch_end() override;
  void rejoin_after_poll_timeout();
  void on_poll_timeout() override;
  // Metadata and the coordinator's whereabouts.
  void refresh_metadata();
  std::optional<std::string> changed_topic() const;

  MemberContext ctx_;
  MemberConfig config_;
  Phase phase_ = Phase::Down;
  std::string member_id_;
  int generation_ = -1;
  std::string leader_;
  std::string group_protocol_;  // the JoinGroup response's protocol name
  std::optional<std::pair<std::vector<const Assignor*>, const EmbeddedProtocol*>> next_assignors_;
  // Bytes of the last completed request/response round trip (JoinGroup or
  // SyncGroup), reported on the `joined` and `assigned` events.
  std::int64_t round_trip_bytes_ = 0;
  std::vector<JoinedMember> joined_members_;  // leader only
  bool skip_assignment_ = false;              // KIP-814: a returning static leader
  std::vector<TopicPartition> owned_;
  std::vector<TopicPartition> last_assignment_;  // the last SyncGroup's assignment
  TopicNames joined_topics_;       // the subscription the last JoinGroup carried
  std::vector<TopicPartition> initialising_;     // assigned, assign cost not yet paid
  std::unique_ptr<LeaderState> leader_state_;    // the strategy's, kept while this process leads
  int last_completed_generation_ = -1;           // the last generation whose assignment it received
  std::shared_ptr<const Metadata> cluster_snapshot() const;
  std::shared_ptr<const Metadata> known_metadata_;     // as of the last refresh; never null
  std::shared_ptr<const Metadata> assigned_metadata_;  // leader: what the current assignment was computed from; never null
  bool revoking_ = false;
  std::uint64_t request_seq_ = 0;  // answers to older requests are ignored
  std::optional<std::string> rejoin_after_batch_;  // a rejoin waiting for the next poll
  bool left_on_poll_timeout_ = false;
  Timer metadata_timer_;
  Timer scheduled_rebalance_timer_;  // ScheduledRebalanceTimeout

};

}  // namespace rsim::protocols::classic
