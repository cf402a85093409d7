#include "protocols/assignors/roundrobin.hpp"

#include <algorithm>
#include <cassert>
#include <set>

namespace rsim::protocols {

GroupAssignment RoundRobinAssignor::assign(const GroupSnapshot& group) const {
  GroupAssignment out;
  for (const auto& m : group.members) out[m.member_id];
  const auto members = sorted_members(group);
  if (members.empty()) return out;
  std::set<std::string> topics;  // every topic somebody subscribes to, by name
  for (const auto& m : group.members) topics.insert(m.topics.begin(), m.topics.end());
  auto subscribed = [](const MemberSubscription* m, const std::string& t) {
    return std::find(m->topics.begin(), m->topics.end(), t) != m->topics.end();
  };
  std::size_t next = 0;  // the circular iterator's position
  for (const auto& topic : topics) {
    auto it = group.topics.find(topic);
    if (it == group.topics.end()) continue;
    for (int p = 0; p < it->second; ++p) {
      // Someone subscribes to this topic, so the scan ends within one turn.
      std::size_t guard = 0;
      while (!subscribed(members[next], topic)) {
        next = (next + 1) % members.size();
        assert(++guard <= members.size());
      }
      out[members[next]->member_id].push_back(TopicPartition{topic, p});
      next = (next + 1) % members.size();
    }
  }
  return out;
}

}  // namespace rsim::protocols
