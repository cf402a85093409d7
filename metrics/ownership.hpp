// Who owns which resource, replayed from the trace.
//
// Members are identified by their scenario id (the trace's actor), not by
// their Kafka member id, so a bounced member that gets its partitions back has
// made no move. Ownership starts at `assigned` and ends at `revoked`, `lost`,
// `crash` or `stopped`.
//
// Some overlaps are Kafka's own, and recorded as *zombies* (as Kafka
// engineers know them) rather than broken invariants, when the resource was
// given to someone else while its holder was:
// - removed: the coordinator had removed it (a frozen process, a network cut,
//   a missed deadline): nothing can stop a process that does not know;
// - not rejoined: a static member kept in the group over a rebalance it did
//   not rejoin (KIP-345): the leader saw its last JoinGroup's stale
//   ownedPartitions;
// - conversion: an online migration took its assignment of the last
//   completed SyncGroup for what it owns (ConsumerGroup.fromClassicGroup),
//   and it still held more (a revocation in flight, an assignment reset);
// - stale claim: a zombie rejoined still holding the resource and was given
//   it back while the member given it meanwhile revokes it in that round;
// - stale epoch: a KIP-848 member took it from an assignment after its
//   heartbeat at that epoch had listed what it owned without it (it was still
//   reconciling): the coordinator may release what a member does not report
//   owning without a revocation (CurrentAssignmentBuilder.ownsRevokedPartitions)
//   and give it to another at a later epoch; the member is fenced at its next
//   heartbeat. Only against a holder given it at a later epoch.
#pragma once

#include "metrics/member_log.hpp"
#include "metrics/standing.hpp"
#include "sim/trace.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rsim::metrics {

struct Zombie {
  std::string resource;
  std::string holder;     // still holding
  std::string cause;      // "removed", "not rejoined", "conversion", "stale claim" or "stale epoch"
  std::string newcomer;
  Time from;
  std::optional<Time> to;  // when the holder let go; unset if it never did
};

class Ownership {
 public:
  // Called when a member is given a resource that another member still owns.
  using DoubleOwnership = std::function<void(Time, const std::string& resource, const std::string& holder,
                                             const std::string& newcomer)>;
  // Called when a resource passes to a different member than its last owner.
  using Move = std::function<void(Time, const std::string& resource, const std::string& from, const std::string& to)>;
  // Called when a zombie ends (its `to` is set), with its index in zombies().
  using ZombieEnd = std::function<void(std::size_t index)>;
  // Called when a resource's owners change (one is added or let go).
  using OwnersChange = std::function<void(Name resource)>;

  void on_double_ownership(DoubleOwnership f) { double_ = std::move(f); }
  void on_move(Move f) { move_ = std::move(f); }
  void on_zombie_end(ZombieEnd f) { zombie_end_ = std::move(f); }
  void on_owners_change(OwnersChange f) { owners_change_ = std::move(f); }

  // Feeds one trace event; events that do not concern ownership are ignored.
  void apply(const TraceEvent& ev);
  // Who holds `resource` now, in name order.
  const std::vector<Name>& owners(Name resource) const;
  // What `member` holds now, in name order.
  std::vector<Name> held_by(const std::string& member) const;
  bool holds_any(const std::string& member) const;
  // Whether the coordinator has removed `member` since it last joined.
  bool removed(const std::string& member) const { return standing_.removed(member); }
  const std::vector<Zombie>& zombies() const { return zombies_; }
  std::map<std::string, std::set<std::string>> by_member() const;

 private:
  // What a member was given (see MemberLog: whether it still holds a
  // resource is the resource's owners' list's to say) and how much it holds.
  struct Held {
    MemberLog<Name> given;
    std::size_t count = 0;
  };
  void release(Time at, Name member, const NameList& resources);
  void release_all(Time at, Name member);
  void end_zombie(Time at, const std::string& member, const std::string& resource);
  void add_zombie(Zombie z);
  void close_zombie(std::size_t index, Time at);
  void reaffirm(Time at, const std::string& member);
  // `unlisted`: taken after a heartbeat listed what the member owned without it.
  void given(Time at, Name resource, Name newcomer, std::optional<std::int64_t> generation, bool unlisted);
  std::vector<Name>& holders(Name resource);
  bool holds(Name member, Name resource) const;
  bool let_go(Name member, Name resource);  // false if it did not hold it
  // Why `holder` still holding `resource` is Kafka's overlap; empty if it is not.
  std::string zombie_cause(const std::string& holder, const std::string& resource,
                           std::optional<std::int64_t> generation) const;
  std::vector<std::vector<Name>> owners_;                    // resource's Name::id() -> members, in name order
  std::map<std::string, Held> held_;                         // member -> what it holds
  std::map<std::string, std::int64_t> rejoined_;             // classic member -> generation it last joined
  std::map<std::string, std::set<std::string>> unknown_;     // member -> what a conversion did not know it held
  // The member a resource was last given to, and the generation (epoch) of
  // that assignment.
  struct LastGiven {
    Name member;  // empty if none yet
    std::optional<std::int64_t> generation;
  };
  std::vector<LastGiven> last_given_;                        // by resource's Name::id()
  // member -> what it holds from an `unlisted` assignment -> its epoch
  std::map<std::string, std::map<Name, std::int64_t>> unlisted_;
  Standing standing_;
  std::vector<Zombie> zombies_;
  // The zombies still holding (no `to` yet), by holder and resource: ending
  // one is a lookup, not a scan of every zombie of the run.
  std::map<std::string, std::map<std::string, std::vector<std::size_t>>> open_zombies_;
  DoubleOwnership double_;
  Move move_;
  ZombieEnd zombie_end_;
  OwnersChange owners_change_;
};

}  // namespace rsim::metrics
