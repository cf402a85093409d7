// The safety invariants of a run, checked from the trace alone (checkers read
// what the system did; they never reach into actors):
// - no resource is owned by two members in good standing at the same time;
// - a removed member still holding a resource (a zombie, which the classic
//   protocol cannot prevent) lets go within a bound of being able to notice:
//   the end of its freeze, cut, batch or revocation, plus `zombie_grace`;
//   when messages were lost meanwhile, by its next answer from the
//   coordinator (which tells it, or hands it an assignment without the
//   resource) plus the time to revoke; a request or answer between it and
//   the coordinator lost on the way is noticed only when the member's own
//   wait for it ends (a JoinGroup's at the rebalance timeout + 5 s, any other
//   request's at request.timeout.ms, a classic heartbeat's at the next one),
//   and losses in turn add up; a static member kept over a rebalance it did
//   not rejoin is not removed and keeps what it owns through rebalances
//   (KIP-429), so its bound starts at the first generation completed after
//   the overlap began, or at an answer that tells it where it stands, and
//   there is none while no generation completes (a rebalance storm);
// - generations and group epochs only grow (a generation formed again after
//   a failover reloaded the one before it is Kafka's behaviour, counted apart);
//   a member's epochs only grow within one process;
// - the protocols' own rules: an eager member owns nothing when it sends
//   JoinGroup; a static member never sends LeaveGroup (KIP-345); a Streams
//   process never holds two copies of one task (KIP-1071).
#pragma once

#include "metrics/ownership.hpp"
#include "sim/trace.hpp"

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <string>
#include <vector>

namespace rsim::metrics {

struct InvariantRules {
  bool eager = false;                    // members revoke everything before JoinGroup
  // (unless a member's `start` names its own rebalance-protocol: a client
  // configured with an assignor list follows that list, KIP-429)
  std::set<std::string> static_members;  // members with a group.instance.id
  std::optional<Duration> zombie_grace;  // unset: zombies are not bounded
  Duration revoke_allowance{0};          // the longest a member may take to revoke what it holds
  // How long a member waits for an answer before it sends again: a JoinGroup
  // (the rebalance timeout + 5 s, AbstractCoordinator JOIN_GROUP_TIMEOUT_LAPSE),
  // any other request (request.timeout.ms), a classic heartbeat (the next one
  // goes out one interval later whatever became of it).
  Duration join_timeout{0};
  Duration request_timeout{0};
  Duration heartbeat_interval{0};
};

struct Finding {
  std::string invariant;  // "double-ownership", "zombie", "generation", "member-epoch", "eager-join", "static-leave", "records", "process-copies"
  Time at;
  std::string what;
  std::vector<std::string> members;
};

class InvariantChecker {
 public:
  explicit InvariantChecker(InvariantRules rules) : rules_(std::move(rules)) {}

  // Feed every event, after `ownership` has applied it.
  void apply(const TraceEvent& ev, const Ownership& ownership);
  // Called from Ownership's double-ownership callback.
  void double_ownership(Time at, const std::string& resource, const std::string& holder, const std::string& newcomer);
  // Called from Ownership's zombie-end callback.
  void zombie_ended(std::size_t index) { ended_.push_back(index); }
  // The zombies still holding are bounded at the run's end: call once, with
  // every zombie of the run (Ownership's list).
  void finish(const std::vector<Zombie>& zombies, Time end);

  // In time order.
  const std::vector<Finding>& findings() const { return findings_; }
  int generations_reissued() const { return reissued_; }

 private:
  struct Impairment {
    Time from;
    std::optional<Time> to;  // unset: still going on
  };
  // A member's impairments of one kind, or its answers: kept as long as some
  // zombie bound may read them, trimmed when the list has doubled since the
  // last trim, so that memory follows the group and not the run's length.
  template <class T>
  struct History {
    std::vector<T> items;
    std::size_t kept = 0;  // the size after the last trim
  };
  // A zombie's bound: when its holder could notice, plus the grace, or
  // after its first answer since the zombie began, plus the time to revoke.
  struct Bound {
    Time deadline;
    bool answered = false;
  };
  void add(Finding f);
  void check_generation(const TraceEvent& ev);
  struct Tracked;
  void check_member_epoch(const TraceEvent& ev, Tracked& t, bool new_membership);
  void check_process_copies(const TraceEvent& ev);
  bool eager_member(const std::string& member) const;
  std::set<std::string>& holders_of(Name task);
  void drop_copy(const std::string& member, Name task);
  void drop_holder(std::uint32_t task, const std::string& member);
  void drop_copies(const std::string& member);
  void track_impairment(const TraceEvent& ev);
  void track_lost_message(const TraceEvent& ev);
  void open(const std::string& member, const std::string& what, Time from, std::optional<Time> to = std::nullopt);
  void close(const std::string& member, const std::string& what, Time at);
  Time able_to_notice(const std::string& member, Time since) const;
  std::optional<Time> next_answer(const std::string& member, Time since) const;
  std::optional<Time> first_chance_to_learn(const Zombie& z) const;
  void note_completed(Time at);
  void follow_zombies(const std::vector<Zombie>& zombies, Time now);
  void check_ended_zombie(const std::vector<Zombie>& zombies, std::size_t index);
  std::optional<Bound> bound(const Zombie& z) const;
  Finding zombie_finding(const Zombie& z, Time deadline) const;
  // Before this, no zombie bound of `member` reads its history.
  Time oldest_needed(const std::string& member) const;
  template <class T, class Stale>
  static void trim(History<T>& h, Stale&& stale);

  InvariantRules rules_;
  std::vector<Finding> findings_;
  int last_formed_ = 0;  // the last generation formed or loaded
  int last_stable_ = 0;  // the last generation that completed (assignments handed out)
  int reissued_ = 0;
  // When the group completed a generation (its leader's assignment handed
  // out): a static member kept over a rebalance it did not rejoin learns
  // what it lost only from an assignment of a later completed generation.
  History<Time> completed_;
  std::map<std::string, std::string> member_protocol_;  // member -> its own rebalance protocol (an assignor list's)
  // member -> (impairment kind -> intervals): frozen, cut off, slow,
  // revoking, waiting for an answer that was lost.
  std::map<std::string, std::map<std::string, History<Impairment>>> impaired_;
  std::map<std::string, std::string> process_of_;          // Streams member -> its process
  bool kip1071_ = false;  // the run is under the streams protocol (its coordinator withholds copies)
  // Tasks by their trace handle (Name::id): looked up, never listed, so no
  // handle order reaches output; string keys were 5% of a Streams run.
  std::map<std::string, std::set<std::uint32_t>> copies_;            // Streams member -> tasks it holds, any role
  std::unordered_map<std::uint32_t, std::set<std::string>> holders_;  // task -> the members of copies_ holding it
  std::set<std::string> removed_;                          // members the coordinator removed, until they join again
  // Per member: the last epoch assigned to this process (unset since its
  // start), and when the coordinator answered it (assignments, errors), in
  // order. One map, as an assignment reads and writes both (issue 16).
  struct Tracked {
    std::optional<int> epoch;
    History<Time> answers;
    // The answers that tell the member where it stands: all but a
    // REBALANCE_IN_PROGRESS heartbeat, which tells a cooperative member
    // nothing of what it owns (it rejoins and keeps everything, KIP-429).
    History<Time> told;
  };
  std::unordered_map<std::string, Tracked> tracked_;  // looked up; iterated only to reset epochs; never erased
  // tracked_'s entries by the events' actor slots, found once by name:
  // the lookup by name at every assignment was most of this checker's time
  // in a 10,000-member group (issue 16).
  std::vector<Tracked*> tracked_by_slot_;
  Tracked& tracked(const TraceEvent& ev);
  // Zombie bounds are checked once the instant a zombie ended is over: by
  // then everything that decides its bound has happened (what could still
  // come would only put the bound after its end), except an answer that has
  // not come yet: a zombie past its bound with no answer since it began waits
  // for one (which would excuse it) until the run ends.
  Time now_ = kTimeZero;
  std::size_t zombies_seen_ = 0;                                   // Ownership's zombies followed so far
  std::map<std::string, std::map<std::size_t, Time>> unchecked_;  // holder -> zombie -> its start, until checked
  std::deque<std::size_t> ended_;                                  // ended, not yet checked, in the order they ended
  std::map<std::string, std::vector<std::pair<std::size_t, Finding>>> unanswered_;  // holder -> past bound, no answer yet
  std::vector<std::pair<std::size_t, Finding>> zombie_findings_;                   // by zombie, added at finish
};

}  // namespace rsim::metrics
