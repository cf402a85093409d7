// Who owns which resource, replayed from the trace.
//
// Members are identified by their scenario id (the trace's actor), not by
// their Kafka member id, so a bounced member that gets its partitions back has
// made no move. Ownership starts at `assigned` and ends at `revoked`, `lost`,
// `crash` or `stopped`.
#pragma once

#include "sim/trace.hpp"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace rsim::metrics {

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
  std::map<std::string, std::set<std::string>> by_member() const;

 private:
  void release(const std::string& member, const std::vector<std::string>& resources);
  void release_all(const std::string& member);

  std::map<std::string, std::set<std::string>> owners_;      // resource -> members
  std::map<std::string, std::string> last_owner_;            // resource -> member
  DoubleOwnership double_;
  Move move_;
};

}  // namespace rsim::metrics
