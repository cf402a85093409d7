#include "protocols/assignors/range.hpp"

#include <algorithm>
#include <cassert>

namespace rsim::protocols {

GroupAssignment RangeAssignor::assign(const GroupSnapshot& group) const {
  GroupAssignment out;
  for (const auto& m : group.members) out[m.member_id];
  const auto members = sorted_members(group);
  for (const auto& [topic, partitions] : group.topics) {
    if (partitions <= 0) continue;
    std::vector<const MemberSubscription*> consumers;
    for (const auto* m : members)
      if (std::find(m->topics.begin(), m->topics.end(), topic) != m->topics.end()) consumers.push_back(m);
    if (consumers.empty()) continue;
    const int count = static_cast<int>(consumers.size());
    const int per_member = partitions / count;
    int extra = partitions % count;
    int next = 0;
    for (const auto* m : consumers) {
      const int take = per_member + (extra > 0 ? 1 : 0);
      if (extra > 0) --extra;
      auto& list = out[m->member_id];
      for (int i = 0; i < take; ++i) list.push_back(TopicPartition{topic, next++});
    }
    assert(next == partitions);
  }
  return out;
}

}  // namespace rsim::protocols
