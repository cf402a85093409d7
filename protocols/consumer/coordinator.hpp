// The KIP-848 group coordinator for `consumer` groups: group epoch, target
// assignment epoch, member epochs, per-member reconciliation (a partition
// goes to its new owner only after the old owner stopped listing it), session
// and rebalance timeouts, and the group's state as records in a log that a
// new coordinator replays. Facts: ../shared/reference/ section 6.
#pragma once

#include "protocols/assignors/assignor.hpp"
#include "protocols/classic/messages.hpp"
#include "protocols/consumer/messages.hpp"
#include "sim/kernel.hpp"
#include "sim/trace.hpp"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace rsim::protocols::consumer {

using Metadata = std::map<std::string, int>;  // topic -> partition count

struct CoordinatorConfig {
  Duration session_timeout = std::chrono::seconds(45);     // group.consumer.session.timeout.ms
  Duration heartbeat_interval = std::chrono::seconds(5);   // group.consumer.heartbeat.interval.ms
};

// One member as the coordinator knows it.
struct MemberView {
  std::string member_id, client_id;
  std::optional<std::string> instance_id;
  std::vector<std::string> topics;
  Duration rebalance_timeout{0};
  // A classic member in a consumer group (online migration, KIP-848): it
  // speaks JoinGroup/SyncGroup/Heartbeat, with its own session timeout.
  bool classic = false;
  Duration session_timeout{0};
  int epoch = 0, previous_epoch = -1;
  MemberState state = MemberState::Stable;
  std::set<TopicPartition> assigned;  // what it may own at its epoch
  std::set<TopicPartition> revoking;  // what it must give up (still its own until it stops listing them)
  friend bool operator==(const MemberView&, const MemberView&) = default;
};

// Everything the log rebuilds, for comparing coordinators field by field.
struct GroupState {
  int group_epoch = 0;
  int target_epoch = 0;
  std::map<std::string, MemberView> members;
  std::map<std::string, std::set<TopicPartition>> target;
  Metadata subscribed_metadata;
  friend bool operator==(const GroupState&, const GroupState&) = default;
};

// The group a coordinator loading `log` has (the records are the state: a
// live coordinator's state is always what its log replays to).
GroupState replay_records(const std::vector<Record>& log);
// The first difference between two states, in words; empty if none.
std::string state_difference(const GroupState& live, const GroupState& replayed);

class ConsumerCoordinator final : public classic::ClassicEndpoint {
 public:
  ConsumerCoordinator(Kernel& kernel, Trace& trace, const Metadata& cluster, const Assignor& assignor,
                      CoordinatorConfig config);
  ConsumerCoordinator(const ConsumerCoordinator&) = delete;
  ConsumerCoordinator& operator=(const ConsumerCoordinator&) = delete;

  void handle_heartbeat(HeartbeatRequest req, Reply<HeartbeatResponse> reply);

  // Classic members of a consumer group (online migration): a JoinGroup is
  // answered at once with the member's epoch as its generation (nobody waits
  // for anybody), SyncGroup returns what the member may own now, and a
  // heartbeat answers REBALANCE_IN_PROGRESS while the member has something
  // to revoke or to get, so it rejoins and moves one step.
  void handle_join(classic::JoinGroupRequest req, classic::Reply<classic::JoinGroupResponse> reply) override;
  void handle_sync(classic::SyncGroupRequest req, classic::Reply<classic::SyncGroupResponse> reply) override;
  void handle_heartbeat(classic::HeartbeatRequest req, classic::Reply<classic::HeartbeatResponse> reply) override;
  void handle_leave(classic::LeaveGroupRequest req) override;

  // The conversion of a classic group (its members and their assignments at
  // `generation`) when a member speaking this protocol joins it.
  void adopt_classic_group(int generation, const std::vector<MemberView>& members);

  // A group that starts stable (the scenario's initial assignment): every
  // member at epoch 1 owning its part of the target.
  // `announce`: emit the generation (not when it continues a classic one).
  void seed_stable(const std::vector<MemberView>& members, bool announce = true);

  // The log, and a new coordinator rebuilding the group from it. Session
  // timers restart from the load, as in Kafka.
  const std::vector<Record>& log() const { return log_; }
  void replay(const std::vector<Record>& log);
  const GroupState& state() const { return state_; }
  std::uint64_t next_member_number() const { return next_member_number_; }
  // Called when a member leaves or is fenced and every member left speaks
  // the classic protocol (the group may turn classic again).
  void on_classic_only(std::function<void()> hook) { classic_only_ = std::move(hook); }
  void continue_member_numbers(std::uint64_t n) { next_member_number_ = n; }

 private:
  struct Timers {
    std::unique_ptr<Timer> session, rebalance;
  };

  void emit(std::string kind, std::vector<TraceField> fields = {});
  void append(Record r);
  void bump_group_epoch(const std::string& why);
  void write_member(const MemberView& m);
  void write_current(const MemberView& m);
  // `classic`: a classic member (online migration), with its own session
  // timeout.
  MemberView& add_member(const HeartbeatRequest& req, std::string member_id, bool classic = false,
                         Duration session_timeout = Duration{0});
  void fence(const std::string& member_id, const std::string& reason);
  void notice_classic_only();
  // The target assignment, when the group epoch has moved past it: only in
  // a heartbeat (or a classic member's JoinGroup), Kafka's lazy rule.
  void compute_target();
  // `owned`: what the member reported; unset when it did not send the field.
  void reconcile(MemberView& m, const std::optional<std::vector<TopicPartition>>& owned);
  void next_assignment(MemberView& m, const std::optional<std::vector<TopicPartition>>& owned);
  void arm_session(const std::string& member_id);
  void arm_rebalance(const std::string& member_id, int epoch, Duration timeout);
  void update_group_state();
  bool converged() const;  // every member at the target epoch, Stable
  bool owned_by_other(const TopicPartition& tp, const std::string& member_id) const;
  // The member holding `instance_id`, other than `except`.
  MemberView* static_member(const std::string& instance_id, const std::string& except);
  MemberView& replace_static(MemberView& old, const std::string& new_id);
  Metadata subscribed_metadata() const;
  bool metadata_changed() const;
  // The id a member gets: the one it asked for, else one from the counter.
  std::string member_id_for(const std::string& requested, const std::string& client_id);

  Kernel& kernel_;
  Trace& trace_;
  const Metadata& cluster_;
  const Assignor& assignor_;
  CoordinatorConfig config_;
  GroupState state_;
  std::map<std::string, Timers> timers_;
  std::vector<Record> log_;
  std::uint64_t next_member_number_ = 0;
  std::string group_state_ = "Empty";
  int last_stable_epoch_ = -1;
  std::function<void()> classic_only_;
  std::set<std::string> pending_classic_;  // ids given with MEMBER_ID_REQUIRED, not joined yet
};

}  // namespace rsim::protocols::consumer
