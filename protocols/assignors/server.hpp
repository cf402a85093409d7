// Broker-side assignors of the KIP-848 `consumer` protocol (reference §6.5):
// the coordinator computes the target assignment from the members'
// subscriptions and their current target assignment (the snapshot's `owned`).
#pragma once

#include "protocols/assignors/assignor.hpp"

#include <boost/smart_ptr/local_shared_ptr.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>

namespace rsim::protocols {

// PartitionAssignorException: e.g. a member subscribed to a topic that does
// not exist.
struct AssignorError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The order the coordinator iterates subscribed topic ids: Kafka keeps them
// in a java.util.HashSet<Uuid>, so the order follows the ids' hashes.
// `group.topic_order` when given (a vector file states the test's); else the
// simulator's topic ids, which are the names' Java string hashes (Kafka's are
// random UUIDs, so any fixed order is as faithful).
std::vector<std::string> topic_id_order(const std::vector<std::string>& given_order, const std::vector<std::string>& subscribed);

// A member's partitions, shared between the spec and the answer: Kafka's
// assignors hand back a member's current assignment object when it does not
// change, so a rebalance that moves little copies little (issue 16).
using SharedPartitions = std::shared_ptr<const std::vector<TopicPartition>>;

// The topic metadata a broker-side assignor reads (Kafka's
// SubscribedTopicDescriber over the coordinator's metadata image): topics
// as handles with their partition counts, in name order, each found by its
// rank there. Built once from names and shared by every spec while the
// metadata stays, as Kafka's coordinator resolves topic ids once: interning
// 1,000 names and sizing tables by them at every call cost small calls
// over many topics as much as the assignment (issue 16).
class TopicMetadata {
 public:
  explicit TopicMetadata(const std::map<std::string, int>& partitions_by_topic);
  // The topics (handle, partition count), in name order: by rank.
  const std::vector<std::pair<Topic, int>>& topics() const { return topics_; }
  std::size_t size() const { return topics_.size(); }
  // A topic's rank, or -1 when the metadata does not hold it.
  int rank(Topic t) const { return t.id() < rank_.size() ? rank_[t.id()] : -1; }
  // The rank table by Topic::id() (-1: not held), for loops that look
  // ranks up per partition.
  const std::vector<int>& ranks_by_id() const { return rank_; }
  // A name's rank, or -1, without interning it (a binary search).
  int rank_of_name(std::string_view name) const;
  // The topic of rank k: its Java string hash (the simulator's topic id).
  std::int32_t id_hash(int k) const { return hashes_[static_cast<std::size_t>(k)]; }
  // Every rank in the order a Java HashSet of all the topics' ids iterates.
  const std::vector<int>& ranks_in_id_order() const { return id_order_; }

 private:
  std::vector<std::pair<Topic, int>> topics_;
  std::vector<int> rank_;  // by Topic::id(), for the topics interned when built; -1: not held
  std::vector<std::int32_t> hashes_;
  std::vector<int> id_order_;
};

// Kafka's GroupSpec (coordinator-group api.assignor): what the coordinator
// hands a broker-side assignor. Members in the coordinator's iteration
// order, with unique ids; members subscribing alike may share one topic
// list. Topics as handles, resolved when the spec is built (Kafka's
// subscribed topic ids). Simplified: the simulator's coordinator builds the
// members' part per target, where Kafka's keeps it as members come and go.
struct GroupSpec {
  struct Member {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::shared_ptr<const std::vector<Topic>> topics;  // subscribed topics, as listed; never null
    SharedPartitions assignment;                       // current target; null: nothing
    // Inline, and no static to guard: two calls per member per assignment
    // were 8% of a fresh uniform call over 10,000 members (issue 16).
    const std::vector<TopicPartition>& owned() const { return assignment ? *assignment : kNoPartitions; }
    static inline const std::vector<TopicPartition> kNoPartitions;
  };
  std::shared_ptr<const TopicMetadata> topics;  // never null
  std::vector<Member> members;
  bool homogeneous = true;  // SubscriptionType.HOMOGENEOUS: every member subscribes to the same set
  std::vector<std::string> topic_order, topic_uuid_order;  // as GroupSnapshot's
};

// A subscription's topics as handles, as listed.
std::shared_ptr<const std::vector<Topic>> topic_handles(const std::vector<std::string>& names);

// A member's target in a broker-side assignor's answer (Kafka's
// MemberAssignment): a shared list, or runs of consecutive partitions of
// a topic, as Kafka's RangeAssignor answers a lazy RangeSet per member and
// topic. Writing every partition kept range at Java's speed on few topics
// with many partitions (issue 16). The list is built from the runs when
// first read: a coordinator reads every member's target, so the cost moves
// out of the call, as in Kafka, whose TargetAssignmentBuilder iterates the
// sets. Not shared between threads (the built list is cached).
class MemberAssignment {
 public:
  // Partitions first .. first + count - 1 of a topic; count > 0.
  struct Run {
    Topic topic;
    int first = 0, count = 0;
  };
  // Every member's runs laid end to end, one table per answer, held by
  // every member's assignment. Counted without atomics, as nothing here is
  // shared between threads: std::shared_ptr's release reads both counts
  // as one 8-byte word just after a 4-byte store to one of them, a stall
  // per member that was a fifth of a fresh uniform call over 10,000
  // members, where every member holds the one table (issue 16).
  using Runs = std::vector<Run>;
  using SharedRuns = boost::local_shared_ptr<const Runs>;

  MemberAssignment() = default;             // no partitions
  MemberAssignment(SharedPartitions list);  // implicit: a list is an assignment
  MemberAssignment& operator=(const SharedPartitions& list) {
    list_ = list;
    runs_ = nullptr;
    return *this;
  }
  // Runs [begin, end) of the table, in the list's order (topics by name,
  // partitions ascending).
  // Inline: built out of line into a temporary, its two pointers were
  // stored 8 bytes at a time and reloaded 16 (a store-forwarding stall, a
  // tenth of a fresh uniform assignment of 10,000 members; issue 16).
  MemberAssignment(SharedRuns runs, std::uint32_t begin, std::uint32_t end)
      : runs_(std::move(runs)), begin_(begin), end_(end) {}

  // The list, built at the first read.
  const SharedPartitions& shared() const;
  const std::vector<TopicPartition>& operator*() const { return *shared(); }
  const std::vector<TopicPartition>* operator->() const { return shared().get(); }
  // Whether this is that very list (an assignor hands a current target
  // back unchanged), known without reading a partition.
  bool is(const SharedPartitions& list) const { return list != nullptr && shared_if_built() == list; }
  // Partitions, without building the list.
  std::size_t size() const;
  // The one empty list every assignment of no partitions shares.
  static const SharedPartitions& none();

 private:
  const SharedPartitions& shared_if_built() const { return list_ != nullptr || runs_ != nullptr ? list_ : none(); }
  mutable SharedPartitions list_;    // given, or built from runs_ at the first read; both null: none()
  SharedRuns runs_;                   // null: list_ was given (or nothing was)
  std::uint32_t begin_ = 0, end_ = 0;
};

// One assignment per member of the spec, in its order.
using TargetAssignment = std::vector<MemberAssignment>;

// The spec of a snapshot: equal consecutive subscriptions shared, the
// subscription type computed, owned partitions moved into shared lists.
GroupSpec group_spec(GroupSnapshot group);

// SubscriptionType of a spec's members: HOMOGENEOUS when all subscribe to
// the same set of topics.
bool subscribed_alike(const GroupSpec& spec);

// A broker-side assignor: answers a GroupSpec; a snapshot goes through
// group_spec (member ids given twice: their lists joined and sorted).
class ServerAssignor : public Assignor {
 public:
  using Assignor::assign;
  GroupAssignment assign(const GroupSnapshot& group) const final;
  virtual TargetAssignment assign(const GroupSpec& spec) const = 0;
};

// UniformAssignor: homogeneous subscriptions -> UniformHomogeneousAssignmentBuilder
// (keep what fits the quota, deal the rest to members under quota);
// heterogeneous -> UniformHeterogeneousAssignmentBuilder (balance first,
// then stickiness). Members in the snapshot's order (the coordinator's
// iteration order).
class UniformAssignor final : public ServerAssignor {
 public:
  using ServerAssignor::assign;
  std::string_view name() const override { return "uniform"; }
  TargetAssignment assign(const GroupSpec& spec) const override;
};

// The broker-side RangeAssignor: per topic, subscribers sorted (instance id
// first, then member id), contiguous ranges, the first P % k one extra; not
// sticky in the Kafka snapshot modelled.
class ServerRangeAssignor final : public ServerAssignor {
 public:
  using ServerAssignor::assign;
  std::string_view name() const override { return "range"; }
  TargetAssignment assign(const GroupSpec& spec) const override;
};

// A built-in broker-side (consumer family) assignor by name, or nullptr.
std::unique_ptr<Assignor> make_consumer_assignor(std::string_view name);

}  // namespace rsim::protocols
