// A consumer speaking the KIP-848 protocol (Kafka's AsyncKafkaConsumer and
// its membership manager): it only heartbeats; the coordinator's answer
// carries its assignment; it revokes what is no longer in it, acknowledges
// at once with a heartbeat, then starts what is new.
#pragma once

#include "protocols/classic/member.hpp"  // MemberConfig
#include "protocols/consumer/coordinator.hpp"
#include "protocols/member_process.hpp"
#include "sim/network.hpp"

#include <functional>

namespace rsim::protocols::consumer {

struct Directory {
  ConsumerEndpoint* coordinator = nullptr;
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

class ConsumerMember final : public MemberProcess {
 public:
  ConsumerMember(MemberContext ctx, classic::MemberConfig config);

  void start() override;
  void crash() override;
  void leave(std::function<void()> on_stopped = {}) override;
  void slow(Duration batch, Duration length) override;
  void subscribe(std::vector<std::string> topics) override;
  void coordinator_disconnected() override;
  // The scenario's initial assignment: in the group at `epoch`.
  void start_stable(const std::string& member_id, int epoch, std::vector<TopicPartition> owned);

  bool running() const override { return phase_ != Phase::Down; }

 private:
  enum class Phase { Down, Joining, Active, Leaving };

  bool down() const override { return phase_ == Phase::Down; }
  void on_freeze() override;
  void on_thaw() override;
  void on_coordinator_found() override;
  void send_heartbeat();
  void on_response(std::uint64_t seq, HeartbeatResponse r);
  // `acknowledge`: a revocation was just completed; a heartbeat reports it.
  void reconcile(const std::vector<TopicPartition>& assignment, bool acknowledge = false);
  void revoke_then(std::vector<TopicPartition> revoke, Callback then);
  void lose_all(const std::string& reason);
  void stop_timers();
  void send_leave_heartbeat();
  // The application thread's poll loop (`slow`): batches back to back;
  // rebalance callbacks run between them.
  void start_batch();
  void on_batch_end() override;
  void on_poll_timeout() override;

  MemberContext ctx_;
  classic::MemberConfig config_;
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
  std::uint64_t seq_ = 0;
  bool reconcile_after_batch_ = false;  // a reconciliation step waits for the next poll
  // The next heartbeat lists the owned partitions (a join, a failed request,
  // a completed reconciliation); others leave the field out.
  bool report_owned_ = true;
  // The assignment of the last completed reconciliation (unset: none since
  // the member joined): a different one received is a new target, whose
  // reconciliation ends with an acknowledgement.
  std::optional<std::vector<TopicPartition>> reconciled_;
  bool stale_ = false;                  // left on a poll timeout; rejoins at the next poll
};

}  // namespace rsim::protocols::consumer
