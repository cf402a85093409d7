#include "protocols/consumer/partitions.hpp"

#include "protocols/epoch/group_impl.hpp"

#include <algorithm>

namespace rsim::protocols::consumer {

std::vector<TopicPartition> as_list(const Partitions::Assignment& s) { return {s.begin(), s.end()}; }

std::vector<TopicPartition> Partitions::units(const Assignment& a) { return as_list(a); }

Partitions::Assignment Partitions::merge(Assignment keep, const Assignment& add) {
  keep.insert(add.begin(), add.end());
  return keep;
}

bool Partitions::owns_any(const Owned& owned, const Assignment& revoking) {
  // Looked up in the sorted set: a member revoking many of many partitions
  // asks this at every heartbeat.
  return std::any_of(owned.begin(), owned.end(), [&](const TopicPartition& tp) { return holds(revoking, tp); });
}

bool Partitions::within(const Owned& owned, const Assignment& assigned, const Assignment& revoking) {
  return std::all_of(owned.begin(), owned.end(),
                     [&](const TopicPartition& tp) { return holds(assigned, tp) || holds(revoking, tp); });
}

}  // namespace rsim::protocols::consumer

namespace rsim::protocols::epoch {
template class EpochGroup<consumer::Partitions>;
}
