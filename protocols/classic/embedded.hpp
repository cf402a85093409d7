// The embedded protocol: what differs between eager and the cooperative
// designs, plugged into the classic member and leader. The coordinator never
// sees it (seed 1). Shared mechanics (timers, join phase, costs) live in the
// member; a strategy only decides what to revoke, what to send and what the
// leader assigns.
#pragma once

#include "protocols/assignors/assignor.hpp"
#include "protocols/assignors/connect.hpp"
#include "protocols/classic/messages.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rsim::protocols::classic {

using Metadata = std::map<std::string, int>;  // topic -> partition count

// What a leader remembers between the rebalances it leads (the deferred
// designs'; lost when leadership moves, as in Kafka Connect).
struct LeaderMemory {
  struct Departed {
    std::vector<TopicPartition> partitions;
    Time deadline;  // when they are given to others
  };
  std::map<std::string, std::vector<TopicPartition>> previous;  // client id -> last assignment
  std::map<std::string, Departed> departed;                     // client id -> held partitions
  std::optional<Time> last_moves;  // incremental: when the last round of moves was started
  // connect: Connect's assignor instance with its previous round, created at
  // the first assignment this process computes.
  std::shared_ptr<connect::IncrementalCooperativeAssignor> connect;
  std::map<std::string, std::vector<TopicPartition>> started_with;  // member id -> load, a group that starts stable
  int generation = -1;                 // the generation being assigned
  int last_completed_generation = -1;  // the last generation whose assignment this process received
  int last_assigned_generation = -1;   // the last generation this process assigned as leader
  // Whether the memory is the last assignment: this process assigned the
  // last generation it received. If another leader assigned one since, what
  // it remembers is stale (Connect's previousGenerationId check).
  bool current() const { return last_assigned_generation == last_completed_generation; }
};

struct AssignmentOutcome {
  std::vector<TopicPartition> revoke;  // onPartitionsRevoked
  std::vector<TopicPartition> add;     // onPartitionsAssigned
  bool rejoin = false;                 // a follow-up rebalance is needed
};

class EmbeddedProtocol {
 public:
  virtual ~EmbeddedProtocol() = default;
  virtual std::string_view name() const = 0;

  // onJoinPrepare: what the member gives up before it sends JoinGroup.
  virtual std::vector<TopicPartition> revoke_before_join(const std::vector<TopicPartition>& owned,
                                                         const std::vector<std::string>& topics) const = 0;
  // The JoinGroup metadata. `owned` is what the member holds now;
  // `last_assignment` what it was last given, sent only where the assignor
  // keeps it in its user data (keeps_last_assignment).
  virtual Subscription subscription(const Assignor& assignor, const std::vector<std::string>& topics,
                                    const std::vector<TopicPartition>& owned,
                                    const std::vector<TopicPartition>& last_assignment, int generation) const;
  // The leader's assignment for the generation, one entry per member: the
  // assignor's result as it is (what a cooperative design withholds, the
  // cooperative assignor withholds).
  virtual std::vector<std::pair<std::string, MemberAssignment>> assign(const Assignor& assignor, const Metadata& metadata,
                                                                       const std::vector<JoinedMember>& members,
                                                                       LeaderMemory& memory, Time now) const;
  // onJoinComplete: what the member revokes and adds given what it owns.
  virtual AssignmentOutcome on_assignment(const std::vector<TopicPartition>& owned,
                                          const MemberAssignment& assignment) const = 0;

 protected:
  // revoke = owned - assigned, add = assigned - owned.
  static AssignmentOutcome difference(const std::vector<TopicPartition>& owned, const MemberAssignment& assignment);
};

// Kafka < 2.4 and the default RangeAssignor: every member revokes everything
// before it rejoins, so nothing is processed until the new assignment.
class EagerProtocol final : public EmbeddedProtocol {
 public:
  std::string_view name() const override { return "eager"; }
  std::vector<TopicPartition> revoke_before_join(const std::vector<TopicPartition>& owned,
                                                 const std::vector<std::string>& topics) const override;
  AssignmentOutcome on_assignment(const std::vector<TopicPartition>& owned,
                                  const MemberAssignment& assignment) const override;
};

// KIP-429: members keep what they own through the rebalance and revoke only
// what moves (or what they no longer subscribe to); an assignment that takes
// something away is followed by a rejoin, whose rebalance hands the revoked
// partitions to their new owners.
class CooperativeProtocol : public EmbeddedProtocol {
 public:
  std::string_view name() const override { return "cooperative"; }
  std::vector<TopicPartition> revoke_before_join(const std::vector<TopicPartition>& owned,
                                                 const std::vector<std::string>& topics) const override;
  AssignmentOutcome on_assignment(const std::vector<TopicPartition>& owned,
                                  const MemberAssignment& assignment) const override;
};

// A deliberately broken cooperative leader, for testing the checkers (the
// swarm must find it): a partition that moves goes to its new owner in the
// same round its old owner is told to revoke it, instead of in the follow-up
// rebalance. Test-only: `list` hides it.
class PlantedBugCooperativeProtocol final : public CooperativeProtocol {
 public:
  std::string_view name() const override { return "cooperative-planted-bug"; }
  std::vector<std::pair<std::string, MemberAssignment>> assign(const Assignor& assignor, const Metadata& metadata,
                                                               const std::vector<JoinedMember>& members,
                                                               LeaderMemory& memory, Time now) const override;
};

// Seed 1, "Deferred Resolution of Imbalance": cooperative, and the leader
// holds a departed member's partitions for scheduled.rebalance.max.delay.ms,
// telling members when to rejoin (ScheduledRebalanceTimeout). A member that
// comes back in time gets its partitions back in the rebalance its return
// triggers; otherwise they are assigned when the delay expires.
class DeferredProtocol : public CooperativeProtocol {
 public:
  explicit DeferredProtocol(Duration max_delay) : max_delay_(max_delay) {}
  std::string_view name() const override { return "deferred"; }
  std::vector<std::pair<std::string, MemberAssignment>> assign(const Assignor& assignor, const Metadata& metadata,
                                                               const std::vector<JoinedMember>& members,
                                                               LeaderMemory& memory, Time now) const override;

 protected:
  // A client id no member has: work a new leader found unowned and holds.
  static constexpr std::string_view kUnknownDeparted = "(gone before this leader)";
  void reconstruct(const Metadata& metadata, const std::vector<JoinedMember>& members, LeaderMemory& memory,
                   Time now) const;
  // The assignment of what is not held, and when the leader wants the next
  // round (unset: no need). Deferred: the cooperative assignor's.
  virtual std::vector<std::pair<std::string, MemberAssignment>> compute(const Assignor& assignor, const Metadata& metadata,
                                                                        const std::vector<JoinedMember>& view,
                                                                        LeaderMemory& memory, Time now,
                                                                        std::optional<Time>& next_round) const;

 private:
  Duration max_delay_;
};

// Seed 1, "Incremental Resolution of Imbalance": deferred, and at most
// `max_moves` partitions change owner per round; the next round of moves
// waits `interval` (the members are told to rejoin then).
class IncrementalProtocol final : public DeferredProtocol {
 public:
  IncrementalProtocol(Duration max_delay, int max_moves, Duration interval)
      : DeferredProtocol(max_delay), max_moves_(max_moves), interval_(interval) {}
  std::string_view name() const override { return "incremental"; }

 protected:
  std::vector<std::pair<std::string, MemberAssignment>> compute(const Assignor& assignor, const Metadata& metadata,
                                                                const std::vector<JoinedMember>& view,
                                                                LeaderMemory& memory, Time now,
                                                                std::optional<Time>& next_round) const override;

 private:
  int max_moves_;
  Duration interval_;
};

// Kafka Connect as shipped (KIP-415): the leader runs Connect's
// IncrementalCooperativeAssignor, whose memory lives in the leader process (a
// new leader starts afresh). Lost work waits for the delay even when its
// worker is back; successive revoking rounds back off. Members rejoin after a
// revocation and when the delay their assignment carries expires.
class ConnectProtocol final : public CooperativeProtocol {
 public:
  explicit ConnectProtocol(Duration max_delay) : max_delay_(max_delay) {}
  std::string_view name() const override { return "connect"; }
  std::vector<std::pair<std::string, MemberAssignment>> assign(const Assignor& assignor, const Metadata& metadata,
                                                               const std::vector<JoinedMember>& members,
                                                               LeaderMemory& memory, Time now) const override;
  AssignmentOutcome on_assignment(const std::vector<TopicPartition>& owned,
                                  const MemberAssignment& assignment) const override;

 private:
  Duration max_delay_;
};

// Whether the assignor keeps the member's last assignment in its
// subscription user data: Kafka's (eager) StickyAssignor does, the others
// read ownedPartitions (or nothing) and send no user data.
bool keeps_last_assignment(const Assignor& assignor);

// Builds the assignor's snapshot from the leader's JoinGroup response. Each
// member's owned partitions are what `assignor` reads in Kafka: the user
// data's last assignment for the (eager) StickyAssignor, ownedPartitions for
// every other.
GroupSnapshot snapshot_of(const Assignor& assignor, const Metadata& metadata, const std::vector<JoinedMember>& members);

}  // namespace rsim::protocols::classic
