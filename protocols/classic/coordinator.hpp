// The classic group coordinator (broker side): JoinGroup, SyncGroup,
// Heartbeat and LeaveGroup over the states Empty, PreparingRebalance,
// CompletingRebalance, Stable and Dead. Facts: ../shared/reference/, sections
// 1 and 2 (Kafka's GroupMetadataManager and ClassicGroup).
//
// It is agnostic of the embedded protocol: subscriptions and assignments are
// stored and forwarded, never interpreted.
#pragma once

#include "protocols/classic/messages.hpp"
#include "sim/kernel.hpp"
#include "sim/trace.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace rsim::protocols::classic {

using namespace std::chrono_literals;

enum class GroupState { Empty, PreparingRebalance, CompletingRebalance, Stable, Dead };
const char* state_name(GroupState s);

struct CoordinatorConfig {
  Duration initial_rebalance_delay = 3s;      // group.initial.rebalance.delay.ms
  Duration new_member_join_timeout = 300s;    // CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS
};

// A member the group starts with when the scenario gives an initial
// assignment: the group is Stable at that generation from time zero.
struct SeedMember {
  std::string member_id;
  JoinGroupRequest join;  // client id, instance id, timeouts, subscription
  MemberAssignment assignment;
};

// What the coordinator writes to the group metadata log (on a completed
// SyncGroup, a static member's replacement, and when the group empties),
// and what a new coordinator loads after a failover.
struct PersistedGroup {
  int generation = 0;
  std::string leader;
  std::vector<SeedMember> members;
};

class ClassicCoordinator final : public ClassicEndpoint {
 public:
  ClassicCoordinator(Kernel& kernel, Trace& trace, CoordinatorConfig config);

  void handle_join(JoinGroupRequest req, Reply<JoinGroupResponse> reply) override;
  void handle_sync(SyncGroupRequest req, Reply<SyncGroupResponse> reply) override;
  void handle_heartbeat(HeartbeatRequest req, Reply<HeartbeatResponse> reply) override;
  void handle_leave(LeaveGroupRequest req) override;

  // The scenario's initial assignment: Stable at `generation` from time zero.
  void seed_stable(int generation, std::vector<SeedMember> members);
  // A coordinator taking over the group: the last persisted state, Stable
  // (Empty without members), every member's session deadline starting now.
  void load(const PersistedGroup& group);
  const PersistedGroup& persisted() const { return persisted_; }
  // The group as it is in memory now (members added since the last
  // completed SyncGroup included, with the assignments they have), for an
  // online migration.
  PersistedGroup in_memory() const;
  // The group is being converted: parked JoinGroup and SyncGroup requests
  // are answered REBALANCE_IN_PROGRESS (completeAllJoinFutures/SyncFutures).
  void abandon_rebalance();
  // Member ids stay unique across coordinators: a new one continues the count.
  void continue_member_numbers(std::uint64_t next) { next_member_number_ = next; }
  std::uint64_t next_member_number() const { return next_member_number_; }

  // A rebalance for a reason outside the group (a group converted back from
  // the consumer protocol, whose members must rejoin).
  void rebalance(const std::string& reason) { prepare_rebalance(reason); }
  GroupState state() const { return state_; }
  int generation() const { return generation_; }
  const std::string& leader() const { return leader_; }
  const std::string& protocol_name() const { return protocol_name_; }

 private:
  struct Member {
    std::string id;
    std::string client_id;
    std::optional<std::string> instance_id;
    Duration session_timeout{0};
    Duration rebalance_timeout{0};
    Subscription subscription;
    std::vector<std::string> protocols;  // its assignors, in preference order
    MemberAssignment assignment;
    std::optional<Reply<JoinGroupResponse>> awaiting_join;
    std::optional<Reply<SyncGroupResponse>> awaiting_sync;
    bool is_new = false;
    std::unique_ptr<Timer> deadline;  // heartbeat expiry
  };

  Member* find(const std::string& member_id);
  // members_ and its index by member id change together (a lookup per
  // request must not scan a 1,000-member group, issue 16).
  void insert_member(std::unique_ptr<Member> m);
  void erase_member(const std::string& member_id);
  void rename_member(Member& m, std::string new_id);
  // ClassicGroup.validateMember: a request naming an instance id that now
  // belongs to another member id is fenced.
  Error validate_member(const std::string& member_id, const std::optional<std::string>& instance_id) const;
  std::string new_member_id(const std::string& client_id);
  void transition(GroupState to, const std::string& reason);
  void emit(std::string kind, std::vector<TraceField> fields);

  void join_new_dynamic(JoinGroupRequest& req, Reply<JoinGroupResponse>& reply);
  void join_static(JoinGroupRequest& req, Reply<JoinGroupResponse>& reply);
  void join_existing(Member& m, JoinGroupRequest& req, Reply<JoinGroupResponse>& reply);
  void add_member(const std::string& id, JoinGroupRequest& req, Reply<JoinGroupResponse>& reply);
  void maybe_prepare_rebalance_or_complete_join(const std::string& reason);
  void prepare_rebalance(const std::string& reason);
  void initial_delay_expired(Duration delay, Duration remaining);
  void maybe_complete_join();
  void complete_join();
  void init_next_generation();
  void expire_pending_sync();
  void remove_member(const std::string& member_id, const std::string& reason);
  void forget_static(const Member& m);
  void reschedule_deadline(Member& m, Duration timeout);
  void reply_current_generation(Member& m, Reply<JoinGroupResponse>& reply);
  void reply_static_rejoin(Member& m, Reply<JoinGroupResponse>& reply);
  bool all_members_joined() const;
  // ClassicGroup.supportsProtocols / selectProtocol over the members' assignors.
  bool supports_protocols(const std::vector<std::string>& protocols) const;
  bool all_support(const std::string& protocol) const;
  void count_protocols(const Member& m, int delta);
  void set_protocols(Member& m, const std::vector<std::string>& protocols);
  std::string select_protocol() const;
  void use_protocol(const std::string& selected);
  Duration rebalance_timeout() const;
  JoinGroupResponse join_response(const Member& m) const;
  void persist();
  void install(int generation, const std::string& leader, const std::vector<SeedMember>& members);

  Kernel& kernel_;
  Trace& trace_;
  CoordinatorConfig config_;
  GroupState state_ = GroupState::Empty;
  GroupState previous_state_ = GroupState::Empty;
  int generation_ = 0;
  std::string leader_;
  std::string protocol_name_;  // the selected assignor of the current generation
  std::vector<std::unique_ptr<Member>> members_;  // insertion order, as Kafka's LinkedHashMap
  std::unordered_map<std::string, Member*> by_id_;  // members_ by member id; looked up per request, never iterated
  // ClassicGroup.supportedProtocols: how many members list each protocol,
  // and how many list none (they accept any), kept as members come, go and
  // rejoin, so a JoinGroup's check is a lookup rather than a walk.
  std::map<std::string, std::size_t, std::less<>> supported_;
  std::size_t accepting_any_ = 0;
  std::map<std::string, std::unique_ptr<Timer>> pending_members_;  // MEMBER_ID_REQUIRED sent
  std::map<std::string, std::string> static_members_;             // instance id -> member id
  std::set<std::string> pending_sync_;
  bool new_member_added_ = false;
  Timer join_timer_;
  Timer pending_sync_timer_;
  std::uint64_t next_member_number_ = 1;
  PersistedGroup persisted_;
};

}  // namespace rsim::protocols::classic
