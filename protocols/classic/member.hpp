// A classic group member (the Kafka consumer's AbstractCoordinator /
// ConsumerCoordinator side): JoinGroup with the MEMBER_ID_REQUIRED round
// trip, SyncGroup (the leader runs the assignor), heartbeats every
// heartbeat.interval.ms, rejoin when the coordinator says the group is
// rebalancing, revoke and assign costs, and the lifecycle the scenario drives:
// start, clean leave, crash, pause.
#pragma once

#include "protocols/classic/coordinator.hpp"
#include "protocols/classic/embedded.hpp"
#include "sim/kernel.hpp"
#include "sim/network.hpp"
#include "sim/trace.hpp"

#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace rsim::protocols::classic {

using namespace std::chrono_literals;

struct MemberConfig {
  std::string client_id;  // the scenario's member id
  std::optional<std::string> instance_id;
  std::vector<std::string> topics;
  Duration session_timeout = 45s;
  Duration heartbeat_interval = 3s;
  Duration rebalance_timeout = 300s;  // max.poll.interval.ms for a consumer
  Duration request_timeout = 30s;     // request.timeout.ms
  Duration retry_backoff = 100ms;
  Duration revoke_cost{0};  // per revoked resource: commit, flush
  Duration assign_cost{0};  // per assigned resource: init
};

// Everything a member talks to; owned by the runner.
struct MemberContext {
  Kernel& kernel;
  Network& network;
  Trace& trace;
  ClassicCoordinator& coordinator;
  NodeId coordinator_node;
  const Metadata& metadata;
  const Assignor& assignor;
  const EmbeddedProtocol& protocol;
};

class ClassicMember {
 public:
  ClassicMember(MemberContext ctx, MemberConfig config);
  ClassicMember(const ClassicMember&) = delete;
  ClassicMember& operator=(const ClassicMember&) = delete;

  // Lifecycle, driven by the scenario.
  void start();
  void crash();
  void leave(std::function<void()> on_stopped = {});
  void pause(Duration length);

  // Starts already in the group (scenario initial-assignment).
  void start_stable(const std::string& member_id, int generation, std::vector<TopicPartition> owned);

  const std::string& client_id() const { return config_.client_id; }
  const std::string& member_id() const { return member_id_; }
  NodeId node() const { return node_; }
  bool running() const { return phase_ != Phase::Down; }
  const std::vector<TopicPartition>& owned() const { return owned_; }

 private:
  enum class Phase { Down, Idle, Joining, Syncing, Stable };

  void emit(std::string kind, std::vector<TraceField> fields = {});
  // Runs `handler` now, or after the pause if the process is frozen.
  void on_message(Callback handler);

  void request_rejoin(const std::string& reason);
  void prepare_and_join(const std::string& reason);
  void send_join();
  void on_join_response(std::uint64_t seq, JoinGroupResponse r);
  void send_sync();
  void on_sync_response(std::uint64_t seq, SyncGroupResponse r);
  void send_heartbeat();
  void on_heartbeat_response(int generation, HeartbeatResponse r);
  void lose_partitions(const std::string& reason);
  void retry_join_later();
  void arm_heartbeat();
  void revoke(std::vector<TopicPartition> partitions, Callback then);
  void resume();
  void stop_timers();

  MemberContext ctx_;
  MemberConfig config_;
  NodeId node_;
  Phase phase_ = Phase::Down;
  std::string member_id_;
  int generation_ = -1;
  std::string leader_;
  std::vector<JoinedMember> joined_members_;  // leader only
  std::vector<TopicPartition> owned_;
  bool revoking_ = false;
  bool rejoin_after_revoke_ = false;
  std::uint64_t request_seq_ = 0;  // answers to older requests are ignored
  bool paused_ = false;
  std::deque<Callback> inbox_;  // messages that arrived during a pause
  Timer heartbeat_timer_;
  Timer request_timer_;  // JoinGroup / SyncGroup timeout
  Timer work_timer_;     // revoke in progress
  Timer init_timer_;     // assign cost in progress
  Timer pause_timer_;
  Timer retry_timer_;
  Duration work_left_{0}, init_left_{0};
  Callback work_done_, init_done_;
};

}  // namespace rsim::protocols::classic
