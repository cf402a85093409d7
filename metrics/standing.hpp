// Which members are in good standing: not removed by the coordinator since
// they last joined. A removal names the member id it removes; a process that
// has joined again under a new id since (a bounced consumer whose old id
// expires later) keeps its standing.
#pragma once

#include "sim/trace.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace rsim::metrics {

class Standing {
 public:
  // The member whose standing the event changed, if any.
  std::optional<std::string> apply(const TraceEvent& ev) {
    // A static member that left with epoch -2 (KIP-848) is out too: what it
    // was revoking is free for others, whatever the process still does.
    if ((ev.kind == "member-removed" || ev.kind == "member-left-static") && ev.actor == "coordinator") {
      const std::string* m = ev.text("member");
      if (m == nullptr) return std::nullopt;
      const std::string* id = ev.text("member-id");
      auto joined = member_id_.find(*m);
      if (id != nullptr && joined != member_id_.end() && joined->second != *id) return std::nullopt;  // an old id
      removed_.insert(*m);
      return *m;
    }
    // A static member's instance id taken over by a new process: the process
    // that had joined under the old member id is out (it is fenced at its
    // next request).
    if (ev.kind == "member-replaced" && ev.actor == "coordinator") {
      const std::string* old_id = ev.text("old-member-id");
      if (old_id == nullptr) return std::nullopt;
      for (const auto& [actor, id] : member_id_)
        if (id == *old_id) {
          removed_.insert(actor);
          return actor;
        }
      return std::nullopt;
    }
    if (ev.kind == "joined") {
      if (const std::string* id = ev.text("member-id")) member_id_[ev.actor] = *id;
      if (removed_.erase(ev.actor) != 0) return ev.actor;
    }
    return std::nullopt;
  }
  bool removed(const std::string& member) const { return removed_.count(member) != 0; }

 private:
  std::map<std::string, std::string> member_id_;  // actor -> the id it last joined with
  std::set<std::string> removed_;
};

}  // namespace rsim::metrics
