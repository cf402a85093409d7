// A consumer speaking the KIP-848 protocol (Kafka's AsyncKafkaConsumer and
// its membership manager): it only heartbeats; the coordinator's answer
// carries its assignment; it revokes what is no longer in it, acknowledges
// at once with a heartbeat, then starts what is new.
#pragma once

#include "protocols/classic/member.hpp"  // MemberConfig, total_cost
#include "protocols/consumer/coordinator.hpp"
#include "sim/network.hpp"

#include <deque>
#include <functional>

namespace rsim::protocols::consumer {

struct Directory {
  ConsumerCoordinator* coordinator = nullptr;
  NodeId node = 0;
  NodeId bootstrap = 0;
  bool available = true;
};

struct MemberContext {
  Kernel& kernel;
  Network& network;
  Trace& trace;
  Directory& directory;
};

class ConsumerMember {
 public:
  ConsumerMember(MemberContext ctx, classic::MemberConfig config);
  ConsumerMember(const ConsumerMember&) = delete;
  ConsumerMember& operator=(const ConsumerMember&) = delete;

  void start();
  void crash();
  void leave(std::function<void()> on_stopped = {});
  void pause(Duration length);
  void slow(Duration batch, Duration length);
  void subscribe(std::vector<std::string> topics);
  void coordinator_disconnected();
  // The scenario's initial assignment: in the group at `epoch`.
  void start_stable(const std::string& member_id, int epoch, std::vector<TopicPartition> owned);

  NodeId node() const { return node_; }
  bool running() const { return phase_ != Phase::Down; }

 private:
  enum class Phase { Down, Joining, Active, Leaving };

  void emit(std::string kind, std::vector<TraceField> fields = {});
  void on_message(Callback handler);
  void send_heartbeat();
  void on_response(std::uint64_t seq, HeartbeatResponse r);
  void reconcile(const std::vector<TopicPartition>& assignment);
  void lose_all(const std::string& reason);
  void stop_timers();
  void resume();
  void find_coordinator();

  MemberContext ctx_;
  classic::MemberConfig config_;
  NodeId node_;
  Phase phase_ = Phase::Down;
  std::string member_id_;
  int epoch_ = kJoinEpoch;
  Duration interval_{std::chrono::seconds(5)};
  std::vector<TopicPartition> owned_;
  std::vector<TopicPartition> latest_;  // the last assignment received
  std::vector<TopicPartition> initialising_;  // assigned, assign cost not yet paid
  int assigned_epoch_ = -1;  // the epoch of the last `assigned` event
  bool revoking_ = false;
  bool in_flight_ = false;
  bool send_again_ = false;
  bool paused_ = false;
  bool coordinator_unknown_ = false;
  std::uint64_t seq_ = 0;
  std::deque<Callback> inbox_;
  Timer heartbeat_timer_, request_timer_, pause_timer_, retry_timer_;
  SuspendableTimer revoke_timer_, init_timer_;
};

}  // namespace rsim::protocols::consumer
