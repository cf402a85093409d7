// The deferred designs' leader memory (seed 1, designs 2 and 3): the last
// assignment by member identity (the scenario's member id, as a Connect
// worker's identity survives restarts), a departed member's resources held
// for scheduled.rebalance.max.delay.ms, and what a leader new to the group
// reconstructs. A strategy wraps the assignor's round in begin() and finish().
#pragma once

#include "protocols/classic/embedded.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rsim::protocols::classic {

class HeldWork : public LeaderState {
 public:
  explicit HeldWork(Duration max_delay) : max_delay_(max_delay) {}

  // A group that starts stable: its leader knows that assignment.
  void remember(const std::map<std::string, std::vector<TopicPartition>>& by_client, int generation);

  // Before the assignor runs: forget a stale memory, note who departed and
  // who is back, release expired holds.
  void begin(const Metadata& metadata, const std::vector<JoinedMember>& members, const LeaderView& view);
  // After: members back in time get their resources again, held resources
  // are withheld, every assignment says when the next hold (or `next_round`)
  // ends, and the result is remembered.
  void finish(std::vector<std::pair<std::string, MemberAssignment>>& out, const std::vector<JoinedMember>& members,
              const LeaderView& view, std::optional<Time> next_round);

 private:
  struct Departed {
    std::vector<TopicPartition> partitions;
    Time deadline;  // when they are given to others
  };
  // A client id no member has: work a new leader found unowned and holds.
  static constexpr std::string_view kUnknownDeparted = "(gone before this leader)";
  void reconstruct(const Metadata& metadata, const std::vector<JoinedMember>& members, Time now);
  void release_claimed(const std::vector<JoinedMember>& members);

  Duration max_delay_;
  std::map<std::string, std::vector<TopicPartition>> previous_;  // client id -> last assignment
  std::map<std::string, Departed> departed_;                     // client id -> held partitions
  int last_assigned_generation_ = -1;
  // This round's.
  std::map<std::string, std::vector<TopicPartition>> returning_;
  std::set<TopicPartition> held_;
  std::optional<Time> next_deadline_;
};

}  // namespace rsim::protocols::classic
