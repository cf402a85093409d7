// What a consumer group assigns: topic-partitions. The traits with which
// the epoch-group core (protocols/epoch/) becomes the KIP-848 consumer
// group: EpochGroup<Partitions>, Record<Partitions>, Member<Partitions>.
#pragma once

#include "protocols/topic_names.hpp"
#include "protocols/epoch/group.hpp"
#include "protocols/topic_partition.hpp"
#include "sim/time.hpp"

#include <boost/container/flat_set.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rsim::protocols::consumer {

using Metadata = std::map<std::string, int>;  // topic -> partition count

// ConsumerGroupMemberMetadata.
struct MemberMetadata {
  std::string member_id, client_id;
  std::optional<std::string> instance_id;
  TopicNames topics;  // interned by the coordinator: members subscribing alike share it
  Duration rebalance_timeout{0};
  // A classic member in a consumer group (online migration, KIP-848): it
  // speaks JoinGroup/SyncGroup/Heartbeat, with its own session timeout.
  bool classic = false;
  Duration session_timeout{0};  // a classic member's own; 0: the group's
  friend bool operator==(const MemberMetadata&, const MemberMetadata&) = default;
};

struct Partitions {
  // Sorted and contiguous: a member holds tens to thousands of partitions, and
  // the coordinator copies, compares and splits assignments at every step.
  using Assignment = boost::container::flat_set<TopicPartition>;
  using Owned = std::vector<TopicPartition>;  // ownedTopicPartitions
  using Unit = TopicPartition;
  static std::vector<TopicPartition> units(const Assignment& a);  // as_list
  using MemberMetadata = consumer::MemberMetadata;
  using GroupMetadata = Metadata;  // the subscribed topics' partition counts

  template <class HeldElsewhere>
  static epoch::Step<Assignment> step(const Assignment& assigned, const Assignment& target, const HeldElsewhere& held) {
    return epoch::split(assigned, target, held);
  }
  static bool holds(const Assignment& a, const TopicPartition& tp) { return a.count(tp) != 0; }
  // The coordinator's count of holders per partition (epoch::EpochGroup).
  static std::uint64_t holder_key(const TopicPartition& tp) {
    return (std::uint64_t{tp.topic.id()} << 32) | static_cast<std::uint32_t>(tp.partition);
  }
  // isUnreleasedPartition: another member has it, assigned or pending
  // revocation.
  template <class M>
  static bool unreleased(const M& other, const M& /*asker*/, const TopicPartition& tp) {
    return holds(other.assigned, tp) || holds(other.revoking, tp);
  }
  static bool empty(const Assignment& a) { return a.empty(); }
  static Assignment merge(Assignment keep, const Assignment& add);
  static bool owns_any(const Owned& owned, const Assignment& revoking);
  static bool within(const Owned& owned, const Assignment& assigned, const Assignment& revoking);
};

using MemberView = epoch::Member<Partitions>;
using GroupImage = epoch::GroupImage<Partitions>;
using Record = epoch::Record<Partitions>;

std::vector<TopicPartition> as_list(const Partitions::Assignment& s);

}  // namespace rsim::protocols::consumer

namespace rsim::protocols::epoch {
extern template class EpochGroup<consumer::Partitions>;
}
