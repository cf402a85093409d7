#include "protocols/assignors/cooperative_sticky.hpp"

#include <algorithm>
#include <set>

namespace rsim::protocols {

namespace {

// Kafka's computePartitionsTransferringOwnership, for the general algorithm
// (which does not track it): partitions added to some member that some other
// member owned and no longer gets.
std::map<TopicPartition, std::string> added_and_revoked(const GroupSnapshot& group, const GroupAssignment& assignment) {
  std::map<TopicPartition, std::string> added;
  std::set<TopicPartition> revoked;
  for (const auto& m : group.members) {
    const auto it = assignment.find(m.member_id);
    const std::vector<TopicPartition> none;
    const auto& now = it == assignment.end() ? none : it->second;
    for (const auto& tp : now)
      if (std::find(m.owned.begin(), m.owned.end(), tp) == m.owned.end()) added[tp] = m.member_id;
    for (const auto& tp : m.owned)
      if (std::find(now.begin(), now.end(), tp) == now.end()) revoked.insert(tp);
  }
  std::map<TopicPartition, std::string> out;
  for (const auto& [tp, member] : added)
    if (revoked.count(tp) != 0) out[tp] = member;
  return out;
}

}  // namespace

std::map<TopicPartition, std::string> CooperativeStickyAssignor::transferring(const GroupSnapshot& group) const {
  const StickyResult r = sticky_.assign_detailed(group);
  return r.transferring ? *r.transferring : added_and_revoked(group, r.assignment);
}

GroupAssignment CooperativeStickyAssignor::assign(const GroupSnapshot& group) const {
  StickyResult r = sticky_.assign_detailed(group);
  const auto withheld = r.transferring ? std::move(*r.transferring) : added_and_revoked(group, r.assignment);
  for (const auto& [tp, member] : withheld) {
    auto& list = r.assignment[member];
    list.erase(std::remove(list.begin(), list.end(), tp), list.end());
  }
  return std::move(r.assignment);  // a member of a local: not moved implicitly
}

}  // namespace rsim::protocols
