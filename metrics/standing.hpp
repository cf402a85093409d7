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
#include <vector>

namespace rsim::metrics {

class Standing {
 public:
  // The members whose standing the event changed.
  std::vector<std::string> apply(const TraceEvent& ev) {
    // A static member that left with epoch -2 (KIP-848) is out too: what it
    // was revoking is free for others, whatever the process still does.
    if ((ev.kind == "member-removed" || ev.kind == "member-left-static") && ev.actor == "coordinator") {
      const std::string* m = ev.text("member");
      if (m == nullptr) return {};
      const std::string* id = ev.text("member-id");
      auto joined = member_id_.find(*m);
      if (id != nullptr && joined != member_id_.end() && joined->second != *id) return {};  // an old id
      removed_.insert(*m);
      return {*m};
    }
    // A static member's instance id taken over by a new process: the process
    // that had joined under the old member id is out (it is fenced at its
    // next request).
    if (ev.kind == "member-replaced" && ev.actor == "coordinator") {
      const std::string* old_id = ev.text("old-member-id");
      if (old_id == nullptr) return {};
      for (const auto& [actor, id] : member_id_)
        if (id == *old_id) {
          removed_.insert(actor);
          return {actor};
        }
      return {};
    }
    // A new coordinator loads the group as last written: a removal not
    // written yet (a classic group writes at the next generation) is
    // undone, and a member whose id the loaded generation holds (it joined
    // at that generation or before) is in the group again.
    if (ev.kind == "loaded" && ev.actor == "coordinator") {
      const auto* members = ev.list("members");
      const auto generation = ev.integer("generation");
      if (members == nullptr || !generation) return {};
      std::vector<std::string> back;
      for (const auto& m : *members) {
        const auto at = joined_at_.find(m);
        if (at != joined_at_.end() && at->second <= *generation && removed_.erase(m) != 0) back.push_back(m);
      }
      return back;
    }
    if (ev.kind == "joined") {
      if (const std::string* id = ev.text("member-id")) member_id_[ev.actor] = *id;
      if (const auto g = ev.integer("generation")) joined_at_[ev.actor] = *g;
      if (removed_.erase(ev.actor) != 0) return {ev.actor};
    }
    return {};
  }
  bool removed(const std::string& member) const { return removed_.count(member) != 0; }

 private:
  std::map<std::string, std::string> member_id_;  // actor -> the id it last joined with
  std::map<std::string, std::int64_t> joined_at_;  // actor -> the generation it last joined
  std::set<std::string> removed_;
};

}  // namespace rsim::metrics
