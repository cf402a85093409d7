// Who owns which resource, replayed from the trace.
//
// Members are identified by their scenario id (the trace's actor), not by
// their Kafka member id, so a bounced member that gets its partitions back has
// made no move. Ownership starts at `assigned` and ends at `revoked`, `lost`,
// `crash` or `stopped`.
//
// The classic protocol cannot stop a member it has removed from the group (a
// frozen process, a network cut) from still believing it owns its
// partitions. When the coordinator had removed the old holder before the
// resource was given to someone else, the overlap is a *zombie* (recorded,
// as Kafka engineers know it) rather than a broken invariant.
#pragma once

#include "metrics/standing.hpp"
#include "sim/trace.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rsim::metrics {

struct Zombie {
  std::string resource;
  std::string holder;     // removed from the group, still holding
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

  void on_double_ownership(DoubleOwnership f) { double_ = std::move(f); }
  void on_move(Move f) { move_ = std::move(f); }

  // Feeds one trace event; events that do not concern ownership are ignored.
  void apply(const TraceEvent& ev);

  const std::set<std::string>& owners(const std::string& resource) const;
  // What `member` holds now.
  const std::set<std::string>& held_by(const std::string& member) const;
  // Whether the coordinator has removed `member` since it last joined.
  bool removed(const std::string& member) const { return standing_.removed(member); }
  const std::vector<Zombie>& zombies() const { return zombies_; }
  std::map<std::string, std::set<std::string>> by_member() const;

 private:
  void release(Time at, const std::string& member, const std::vector<std::string>& resources);
  void release_all(Time at, const std::string& member);
  void end_zombie(Time at, const std::string& member, const std::string& resource);

  std::map<std::string, std::set<std::string>> owners_;      // resource -> members
  std::map<std::string, std::set<std::string>> held_;        // member -> resources
  std::map<std::string, std::string> last_owner_;            // resource -> member
  Standing standing_;
  std::vector<Zombie> zombies_;
  DoubleOwnership double_;
  Move move_;
};

}  // namespace rsim::metrics
