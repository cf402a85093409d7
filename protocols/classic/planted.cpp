#include "protocols/assignors/cooperative_sticky.hpp"
#include "protocols/classic/embedded.hpp"

namespace rsim::protocols::classic {

// The bug: the partitions cooperative-sticky withholds this round (still
// owned by their old owner, who revokes them now) are handed to their new
// owners at once.
std::vector<std::pair<std::string, MemberAssignment>> PlantedBugCooperativeProtocol::assign(
    const Assignor& assignor, const Metadata& metadata, const std::vector<JoinedMember>& members, LeaderMemory& memory,
    Time now) const {
  auto out = EmbeddedProtocol::assign(assignor, metadata, members, memory, now);
  const auto* sticky = dynamic_cast<const CooperativeStickyAssignor*>(&assignor);
  if (sticky == nullptr) return out;
  for (const auto& [tp, member] : sticky->transferring(snapshot_of(assignor, metadata, members)))
    for (auto& [id, assignment] : out)
      if (id == member) assignment.partitions.push_back(tp);
  return out;
}

}  // namespace rsim::protocols::classic
