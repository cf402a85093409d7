// The client side of an epoch group (Kafka's AsyncKafkaConsumer and its
// membership manager, which a Streams application's threads use too): it
// only heartbeats; the answer carries what it may own; it revokes what is no
// longer in it, acknowledges with a heartbeat, then starts what is new.
// Generic over what is assigned: the client traits `C` give
//   C::Unit                      one assigned thing (a topic-partition; a
//                                Streams task in a role), ordered
//   C::fields(units)             how the trace names them
// and the protocol's member (ConsumerMember, StreamsMember) supplies its
// request, its leave, its costs and where its coordinator is.
#pragma once

#include "protocols/classic/member.hpp"  // MemberConfig
#include "protocols/epoch/heartbeat.hpp"
#include "protocols/epoch/member_state.hpp"
#include "protocols/member_process.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rsim::protocols::epoch {

// Where the group's coordinator is, for members speaking to `Endpoint`. The
// host replaces `coordinator` and restarts `node` on a failover; `available`
// is false while it moves.
template <class Endpoint>
struct Directory {
  Endpoint* coordinator = nullptr;
  NodeId node = 0;
  NodeId bootstrap = 0;  // a broker that answers FindCoordinator
  bool available = true;
};

template <class Endpoint>
CoordinatorLookup lookup_through(const Directory<Endpoint>& d, const classic::MemberConfig& c) {
  return {d.bootstrap, &d.available, c.retry_backoff, c.retry_backoff_max, c.request_timeout};
}

template <class C>
class EpochMember : public MemberProcess {
 public:
  using Unit = typename C::Unit;
  using Units = std::vector<Unit>;  // sorted
  using List = SharedList<Unit>;     // sorted, as an answer brings it
  using Answer = HeartbeatAnswer<Unit>;

  void start() override;
  void crash() override;
  void leave(std::function<void()> on_stopped = {}) override;
  void slow(Duration batch, Duration length) override;
  void subscribe(std::vector<std::string> topics) override;
  void coordinator_disconnected() override;
  // The scenario's initial assignment: in the group at `epoch`.
  void start_stable(const std::string& member_id, int epoch, Units owned);

  bool running() const override { return phase_ != Phase::Down; }

 protected:
  EpochMember(Kernel& kernel, Network& network, Trace& trace, classic::MemberConfig config);

  // What the protocol supplies. `send_request` sends the group heartbeat
  // (`owned` unset: the field is left out) and has on_answer(seq, answer)
  // run at the member when the answer arrives; `send_leave` sends the leave
  // heartbeat (epoch -1, or -2 for a static member) and forgets the answer.
  virtual void send_request(std::optional<Units> owned, std::uint64_t seq) = 0;
  virtual void send_leave(int epoch) = 0;
  virtual const char* request_name() const = 0;
  virtual CoordinatorLookup coordinator_lookup() const = 0;
  // The rebalance callbacks' costs (onPartitionsRevoked / onTasksRevoked,
  // the assigned resources' initialisation or restoration).
  // `assign_cost` is asked when `add` has just been taken (owned() has it).
  virtual Duration revoke_cost(const Units& revoke) const = 0;
  virtual Duration assign_cost(const Units& add) = 0;
  // What the member no longer holds: revoked, lost, or gone with a crash.
  virtual void released(const Units& /*units*/) {}
  // After a revocation: how long what is still initialising takes now;
  // unset keeps the running cost.
  virtual std::optional<Duration> remaining_init() const { return std::nullopt; }
  // protocol-bytes: a heartbeat round trip counts when it carried the
  // rebalance (a field the client sends only when it changed, or a new
  // assignment); its bytes go on the `joined` or `assigned` it causes, else
  // on a `heartbeat` event (an acknowledgement).
  // Whether the answer brings an assignment the member has not received
  // yet (a join always gets one); the coordinator sends only those.
  bool new_assignment(const Answer& r, bool joining) {
    if (r.error != Error::None) return false;
    const bool same = !joining && r.assignment == received_;
    received_ = r.assignment;  // kept as it came, even when equal: the next answers share it
    return !same;
  }
  void count_bytes(std::int64_t bytes) { unclaimed_bytes_ += bytes; }
  void report_unclaimed_bytes() {
    if (unclaimed_bytes_ > 0) emit("heartbeat", {{"bytes", std::exchange(unclaimed_bytes_, 0)}});
  }

  void on_answer(std::uint64_t seq, Answer r);
  const std::string& member_id() const { return member_id_; }
  std::uint32_t member_slot() const { return member_slot_; }  // the last answer's (epoch/heartbeat.hpp)
  int member_epoch() const { return epoch_; }
  const Units& owned() const { return owned_; }
  const classic::MemberConfig& config() const { return config_; }

 private:
  enum class Phase { Down, Joining, Active, Leaving };

  bool down() const override { return phase_ == Phase::Down; }
  void on_freeze() override;
  void on_thaw() override;
  void on_coordinator_found() override;
  void send_heartbeat();
  void rejoin(Error error);
  // `acknowledge`: a revocation was just completed; a heartbeat reports it.
  void reconcile(const List& assignment, bool acknowledge = false);
  void own(Units units);  // what the member owns from now on
  bool owns_exactly(const List& assignment);
  void finish_step(bool acknowledge);
  void take(const Units& add);
  void arm_ready(Duration cost);
  void revoke_then(Units revoke, Callback then);
  void lose_all(const std::string& reason);
  void stop_timers();
  void send_leave_heartbeat();
  void start_batch();
  void on_batch_end() override;
  void on_poll_timeout() override;
  std::vector<TraceField> with_generation(std::vector<TraceField> fields) const {
    fields.insert(fields.begin(), {"generation", epoch_});
    return fields;
  }
  void forget_member_id() {  // the next join brings a new id, and its slot
    member_id_.clear();
    member_slot_ = kNoMemberSlot;
  }
  std::vector<TraceField> with_bytes(std::vector<TraceField> fields) {
    if (unclaimed_bytes_ > 0) fields.push_back({"bytes", std::exchange(unclaimed_bytes_, 0)});
    return fields;
  }

  classic::MemberConfig config_;
  List received_;                    // the last assignment an answer brought
  std::int64_t unclaimed_bytes_ = 0;  // protocol-bytes not reported yet
  Phase phase_ = Phase::Down;
  std::string member_id_;
  std::uint32_t member_slot_ = kNoMemberSlot;
  int epoch_ = kJoinEpoch;
  Duration interval_{std::chrono::seconds(5)};
  Units owned_;         // written only through own()
  List owned_as_;       // a list found equal to owned_ since it was last written
  List latest_;         // the last assignment received
  Units initialising_;  // assigned, assign cost not yet paid
  int assigned_epoch_ = -1;  // the epoch of the last `assigned` event
  bool revoking_ = false;
  bool in_flight_ = false;
  bool send_again_ = false;
  std::uint64_t seq_ = 0;
  bool reconcile_after_batch_ = false;  // a reconciliation step waits for the next poll
  // The next heartbeat lists what the member owns (a join, a failed request,
  // a completed reconciliation); others leave the field out.
  bool report_owned_ = true;
  // The assignment of the last completed reconciliation (unset: none since
  // the member joined): a different one received is a new target, whose
  // reconciliation ends with an acknowledgement.
  std::optional<List> reconciled_;
  // The epoch at which a heartbeat listed what the member owned while units
  // of the assignment it received were still to be taken: the coordinator
  // may release those without a revocation (ownsRevokedPartitions), so
  // taking them later is Kafka's overlap, which the checkers must know.
  int unlisted_epoch_ = -1;
  bool stale_ = false;  // left on a poll timeout; rejoins at the next poll
};

}  // namespace rsim::protocols::epoch
