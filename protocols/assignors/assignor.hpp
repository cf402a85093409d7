// Assignors are pure functions: a group snapshot in, an assignment out.
// Pure functions make regression testing cheap: the same snapshot can be
// replayed against an old and a new assignor.
#pragma once

#include "protocols/topic_partition.hpp"
#include "protocols/topic_names.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rsim::protocols {

struct MemberSubscription {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack;
  TopicNames topics;  // shared with the member's JoinGroup: a group on 1,000 topics copied them per member per rebalance
  std::vector<TopicPartition> owned;
  int generation = -1;  // DEFAULT_GENERATION, as in Kafka
};

struct GroupSnapshot {
  std::map<std::string, int> topics;  // topic -> partition count (metadata)
  std::vector<MemberSubscription> members;
  // Racks of each partition's replicas (topic -> partition -> racks); empty
  // when the cluster has no rack information.
  std::map<std::string, std::vector<std::vector<std::string>>> partition_racks;
  // Kafka's AbstractPartitionAssignor.preferRackAwareLogic (a test hook).
  bool prefer_rack_aware = false;
  // Broker-side assignors: the order the coordinator iterates subscribed
  // topic ids (a Java HashSet of UUIDs); empty: the simulator's own order.
  std::vector<std::string> topic_order;
  // ... and the topic ids' ascending order (Uuid.compareTo), for ties.
  std::vector<std::string> topic_uuid_order;
  // The classic generation or KIP-848 group epoch this assignment is for,
  // when the caller knows it (-1 otherwise): named in a plug-in's errors.
  int generation = -1;
};

// member id -> partitions; every member of the snapshot has an entry.
using GroupAssignment = std::map<std::string, std::vector<TopicPartition>>;

class Assignor {
 public:
  virtual ~Assignor() = default;
  virtual std::string_view name() const = 0;
  virtual GroupAssignment assign(const GroupSnapshot& group) const = 0;
  // Where everything would go if nothing had to wait for its owner to let
  // go: a cooperative assignor's assignment before it withholds what moves.
  virtual GroupAssignment target(const GroupSnapshot& group) const { return assign(group); }
  // Whether the assignor keeps a member's last assignment in its user data
  // and reads it instead of ownedPartitions (Kafka's eager StickyAssignor).
  virtual bool keeps_last_assignment() const { return false; }
};

// Members in the order Kafka's AbstractPartitionAssignor.MemberInfo sorts them:
// members with an instance id first, by instance id; then dynamic members by
// member id.
std::vector<const MemberSubscription*> sorted_members(const GroupSnapshot& group);

// Positions of `keys` in ascending std::string order; nothing when two keys
// are equal (the caller's own sort then decides their order, as before).
// Compares the 8 bytes after the prefix the keys share as one integer, and
// keys tying there by the next 8 bytes after the prefix they share (string
// compares only for ties 64 bytes deep): 10,000 ids such as "member1234"
// sorted with string compares were most of a broker-side range assignment
// on Kafka's benchmark grid, and ties when one id ("newMember") left the
// others no shared prefix a tenth of it (issue 16).
std::optional<std::vector<std::size_t>> distinct_string_order(const std::vector<std::string_view>& keys);

template <class Member>
std::vector<const Member*> sorted_by_instance_then_member(const std::vector<Member>& members) {
  std::vector<const Member*> out;
  out.reserve(members.size());
  for (const auto& m : members) out.push_back(&m);
  auto before = [](const Member* a, const Member* b) {
    if (a->instance_id && b->instance_id) return *a->instance_id < *b->instance_id;
    if (a->instance_id.has_value() != b->instance_id.has_value()) return a->instance_id.has_value();
    return a->member_id < b->member_id;
  };
  // Snapshots usually come in this order already (the simulator builds them
  // from ordered maps): then checking is all there is to do.
  if (std::is_sorted(out.begin(), out.end(), before)) return out;
  // Sized first: grown push by push, the lists were a tenth of a
  // 1,000-member range call.
  const auto static_count =
      static_cast<std::size_t>(std::count_if(out.begin(), out.end(), [](const Member* m) { return m->instance_id.has_value(); }));
  std::vector<const Member*> statics, dynamics;
  std::vector<std::string_view> static_keys, dynamic_keys;
  statics.reserve(static_count);
  static_keys.reserve(static_count);
  dynamics.reserve(out.size() - static_count);
  dynamic_keys.reserve(out.size() - static_count);
  for (const auto* m : out) {
    if (m->instance_id) {
      statics.push_back(m);
      static_keys.push_back(*m->instance_id);
    } else {
      dynamics.push_back(m);
      dynamic_keys.push_back(m->member_id);
    }
  }
  const auto static_order = distinct_string_order(static_keys);
  const auto dynamic_order = distinct_string_order(dynamic_keys);
  if (!static_order || !dynamic_order) {  // equal keys: std::sort's order, as always
    std::sort(out.begin(), out.end(), before);
    return out;
  }
  out.clear();
  for (auto i : *static_order) out.push_back(statics[i]);
  for (auto i : *dynamic_order) out.push_back(dynamics[i]);
  return out;
}

// AbstractPartitionAssignor.useRackAwareAssignment: only when some consumer
// has a rack that some replica is on, and (unless preferred) not every
// partition has replicas on all racks. Shared by the range and sticky
// assignors, which both inherit it in Kafka.
bool use_rack_aware_assignment(const std::vector<std::string>& consumer_racks,
                               const std::vector<std::string>& partition_racks,
                               const std::vector<std::vector<std::string>>& racks_per_partition, bool prefer);

// Topic ids for each member's subscription (indices into `topics`, a sorted
// list of every subscribed topic), computed once per distinct subscription
// list: in real groups nearly every member subscribes to the same topics.
struct SubscriptionIndex {
  std::vector<std::string> topics;
  std::vector<const std::vector<std::size_t>*> of_member;  // parallel to the members given
  std::vector<std::vector<std::size_t>> distinct;
};
SubscriptionIndex index_subscriptions(const std::vector<const MemberSubscription*>& members);

// Partitions of several topics laid end to end, in the order the topics are
// added: the partition at a position is computed, not stored.
class PartitionSequence {
 public:
  PartitionSequence() { starts_.emplace_back(Topic(), 0); }
  void add(Topic topic, int partitions) {
    starts_.back().first = topic;
    starts_.emplace_back(Topic(), starts_.back().second + static_cast<std::size_t>(partitions));
  }
  std::size_t size() const { return starts_.back().second; }
  TopicPartition at(std::size_t pos) const;
  // Appends the partitions at positions first, first + stride, ... (`count`
  // of them, all < size()) to `list`.
  void append_strided(std::vector<TopicPartition>& list, std::size_t first, std::size_t stride,
                      std::size_t count) const;
  // Deals every partition round-robin: the one at position p goes to
  // lists[p mod n], each list written in one go.
  void deal(const std::vector<std::vector<TopicPartition>*>& lists) const;

 private:
  std::vector<std::pair<Topic, std::size_t>> starts_;  // each topic and its first position; then the end
};

// Puts an empty list in `out` for every member of the snapshot and returns
// the lists by the member's index in `group.members` (a snapshot listed by
// member id costs no lookups).
std::vector<std::vector<TopicPartition>*> add_empty_lists(const GroupSnapshot& group, GroupAssignment& out);

// A built-in client-side (classic family) assignor by name, or nullptr.
std::unique_ptr<Assignor> make_classic_assignor(std::string_view name);

}  // namespace rsim::protocols
