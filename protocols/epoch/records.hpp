// The records an epoch group writes to its log (key/value pairs in
// __consumer_offsets; a tombstone deletes a member's), and the group they
// rebuild. Generic over the traits of current_assignment.hpp plus
//   T::MemberMetadata  what a member tells about itself (member_id,
//                      client_id, instance_id, rebalance_timeout and the
//                      protocol's own fields)
//   T::GroupMetadata   what the group epoch was computed from (subscribed
//                      topics' partition counts; a Streams group: topology
//                      and partition metadata)
// Consumer groups: Record<Partitions>; a Streams group: Record<StreamsTasks>
// (StreamsGroupMemberMetadata, StreamsGroupTargetAssignmentMember, ...).
#pragma once

#include "protocols/epoch/current_assignment.hpp"

#include <fmt/format.h>

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace rsim::protocols::epoch {

// A member as the coordinator knows it: what it said about itself, and its
// current assignment.
template <class T>
struct Member : T::MemberMetadata, CurrentAssignment<typename T::Assignment> {
  friend bool operator==(const Member&, const Member&) = default;
};

// Everything the log rebuilds, for comparing coordinators field by field.
template <class T>
struct GroupImage {
  int group_epoch = 0;
  int target_epoch = 0;
  std::map<std::string, Member<T>> members;
  std::map<std::string, typename T::Assignment> target;
  typename T::GroupMetadata subscribed_metadata;
  friend bool operator==(const GroupImage&, const GroupImage&) = default;
};

template <class T>
struct GroupEpochRecord {
  int epoch = 0;
  typename T::GroupMetadata subscribed_metadata;  // what this epoch was computed from
};
template <class T>
struct MemberMetadataRecord {
  typename T::MemberMetadata metadata;
};
template <class T>
struct TargetAssignmentRecord {
  std::string member_id;
  typename T::Assignment target;
};
struct TargetEpochRecord {
  int epoch = 0;
};
template <class T>
struct CurrentAssignmentRecord {
  std::string member_id;
  CurrentAssignment<typename T::Assignment> current;
};
struct MemberTombstone {
  std::string member_id;
};
template <class T>
using Record = std::variant<GroupEpochRecord<T>, MemberMetadataRecord<T>, TargetAssignmentRecord<T>, TargetEpochRecord,
                            CurrentAssignmentRecord<T>, MemberTombstone>;

// The group as the log leaves it.
template <class T>
GroupImage<T> replay(const std::vector<Record<T>>& log) {
  GroupImage<T> g;
  for (const Record<T>& r : log) {
    std::visit(
        [&](const auto& x) {
          using R = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<R, GroupEpochRecord<T>>) {
            g.group_epoch = x.epoch;
            g.subscribed_metadata = x.subscribed_metadata;
          } else if constexpr (std::is_same_v<R, MemberMetadataRecord<T>>) {
            static_cast<typename T::MemberMetadata&>(g.members[x.metadata.member_id]) = x.metadata;
          } else if constexpr (std::is_same_v<R, TargetAssignmentRecord<T>>) {
            g.target[x.member_id] = x.target;
          } else if constexpr (std::is_same_v<R, TargetEpochRecord>) {
            g.target_epoch = x.epoch;
          } else if constexpr (std::is_same_v<R, CurrentAssignmentRecord<T>>) {
            static_cast<CurrentAssignment<typename T::Assignment>&>(g.members[x.member_id]) = x.current;
          } else {
            g.members.erase(x.member_id);
            g.target.erase(x.member_id);
          }
        },
        r);
  }
  return g;
}

// The first difference between a live group and what its log replays to, in
// words; empty if none. A live coordinator's state is always what its log
// replays to (the records are the state): anything else is lost at a
// failover. No target and an empty one are the same (Kafka writes no record
// for the empty target of a new member: nothing changed).
template <class T>
std::string image_difference(const GroupImage<T>& live, const GroupImage<T>& replayed) {
  if (live.group_epoch != replayed.group_epoch) return fmt::format("group epoch {} vs {}", live.group_epoch, replayed.group_epoch);
  if (live.target_epoch != replayed.target_epoch) return fmt::format("target epoch {} vs {}", live.target_epoch, replayed.target_epoch);
  if (!(live.subscribed_metadata == replayed.subscribed_metadata)) return "group metadata";
  for (const auto& [id, m] : live.members) {
    auto r = replayed.members.find(id);
    if (r == replayed.members.end()) return fmt::format("member {} missing", id);
    if (!(r->second == m))
      return fmt::format("member {}: epoch {} state {} vs epoch {} state {}", id, m.epoch, state_name(m.state),
                         r->second.epoch, state_name(r->second.state));
  }
  for (const auto& [id, m] : replayed.members)
    if (live.members.count(id) == 0) return fmt::format("member {} only in the log", id);
  auto target_of = [](const GroupImage<T>& g, const std::string& id) {
    auto it = g.target.find(id);
    return it == g.target.end() ? typename T::Assignment{} : it->second;
  };
  for (const auto* g : {&live, &replayed})
    for (const auto& [id, t] : g->target)
      if (!(target_of(live, id) == target_of(replayed, id))) return fmt::format("target of {}", id);
  return {};
}

}  // namespace rsim::protocols::epoch
