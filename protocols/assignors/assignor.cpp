#include "protocols/assignors/assignor.hpp"

#include "protocols/assignors/range.hpp"
#include "protocols/assignors/roundrobin.hpp"

#include <algorithm>

namespace rsim::protocols {

std::vector<const MemberSubscription*> sorted_members(const GroupSnapshot& group) {
  std::vector<const MemberSubscription*> out;
  out.reserve(group.members.size());
  for (const auto& m : group.members) out.push_back(&m);
  std::sort(out.begin(), out.end(), [](const MemberSubscription* a, const MemberSubscription* b) {
    if (a->instance_id && b->instance_id) return *a->instance_id < *b->instance_id;
    if (a->instance_id.has_value() != b->instance_id.has_value()) return a->instance_id.has_value();
    return a->member_id < b->member_id;
  });
  return out;
}

std::unique_ptr<Assignor> make_classic_assignor(std::string_view name) {
  if (name == "range") return std::make_unique<RangeAssignor>();
  if (name == "roundrobin") return std::make_unique<RoundRobinAssignor>();
  return nullptr;
}

}  // namespace rsim::protocols
