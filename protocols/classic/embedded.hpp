// The embedded protocol: what differs between eager and the cooperative
// designs, plugged into the classic member and leader. The coordinator never
// sees it (seed 1). Shared mechanics (timers, join phase, costs) live in the
// member; a strategy only decides what to revoke, what to send and what the
// leader assigns, and keeps its own memory between the rebalances a process
// leads. Each strategy is one file (eager.cpp, cooperative.cpp, deferred.cpp,
// incremental.cpp, connect.cpp) and one row of protocols/catalog.cpp.
#pragma once

#include "protocols/assignors/assignor.hpp"
#include "protocols/classic/messages.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rsim::protocols::classic {

using Metadata = std::map<std::string, int>;  // topic -> partition count

// The strategies' settings from the scenario's config.
struct StrategySettings {
  Duration max_delay{0};      // scheduled.rebalance.max.delay.ms (deferred designs, connect)
  int max_moves = 1;          // incremental.max.moves.per.round
  Duration round_interval{0}; // incremental.round.interval.ms
};

// What a strategy remembers between the rebalances one process leads (lost
// when leadership moves to another process, as in Kafka Connect). Each
// strategy defines its own; most remember nothing.
class LeaderState {
 public:
  virtual ~LeaderState() = default;
};

// Where the leader stands when it assigns.
struct LeaderView {
  int generation = -1;                 // the generation being assigned
  int last_completed_generation = -1;  // the last one whose assignment this process received
  Time now;
  std::string leader;  // its member id
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
                                                         const TopicNames& topics) const = 0;
  // The JoinGroup metadata. `owned` is what the member holds now;
  // `last_assignment` what it was last given, sent only where the assignor
  // keeps it in its user data.
  Subscription subscription(const Assignor& assignor, const TopicNames& topics,
                            const std::vector<TopicPartition>& owned, const std::vector<TopicPartition>& last_assignment,
                            int generation) const;
  // A leader process's memory, empty: created when the process starts.
  virtual std::unique_ptr<LeaderState> new_leader_state() const { return nullptr; }
  // A group that starts stable: its leader knows the assignment it starts
  // with, by scenario member id and by member id.
  virtual void remember_start(LeaderState*, const std::map<std::string, std::vector<TopicPartition>>& /*by_client*/,
                              const std::map<std::string, std::vector<TopicPartition>>& /*by_member*/,
                              int /*generation*/) const {}
  // The leader's assignment for the generation, one entry per member: the
  // assignor's result as it is (what a cooperative design withholds, the
  // cooperative assignor withholds).
  virtual std::vector<std::pair<std::string, MemberAssignment>> assign(const Assignor& assignor, const Metadata& metadata,
                                                                       const std::vector<JoinedMember>& members,
                                                                       LeaderState* state, const LeaderView& view) const;
  // onJoinComplete: what the member revokes and adds given what it owns.
  virtual AssignmentOutcome on_assignment(const std::vector<TopicPartition>& owned,
                                          const MemberAssignment& assignment) const = 0;

 protected:
  // revoke = owned - assigned, add = assigned - owned.
  static AssignmentOutcome difference(const std::vector<TopicPartition>& owned, const MemberAssignment& assignment);
  // The assignor's result, one entry per member.
  static std::vector<std::pair<std::string, MemberAssignment>> entries(const GroupAssignment& a);
};

// The members' subscribed topics that `metadata` knows, with their counts.
// A subscription equal to the member's before is not read again: members
// nearly always subscribe alike, and a group on 1,000 topics otherwise looked
// every name up once per member at each rebalance (issue 16).
Metadata subscribed_metadata(const Metadata& metadata, const std::vector<JoinedMember>& members);

// Builds the assignor's snapshot from the leader's JoinGroup response. Each
// member's owned partitions are what `assignor` reads in Kafka: the user
// data's last assignment for an assignor that keeps it, ownedPartitions for
// every other. `generation` is the one being assigned (LeaderView).
GroupSnapshot snapshot_of(const Assignor& assignor, const Metadata& metadata, const std::vector<JoinedMember>& members,
                          int generation = -1);

}  // namespace rsim::protocols::classic
