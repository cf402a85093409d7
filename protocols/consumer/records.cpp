#include "protocols/consumer/records.hpp"

#include <map>

namespace rsim::protocols::consumer {

namespace {

using epoch::RecordWriter;

// Kafka's record types (CoordinatorRecordType).
enum Type { kMetadata = 3, kMemberMetadata = 5, kTargetMetadata = 6, kTargetMember = 7, kCurrentAssignment = 8 };

// TopicPartitions: a topic id and its partitions, topics in order.
// An assignment is sorted by topic name, then partition: one run per topic.
void topic_partitions(RecordWriter& w, std::string_view field, const Partitions::Assignment& a) {
  std::vector<std::pair<Topic, std::vector<int>>> by_topic;
  for (const auto& tp : a) {
    if (by_topic.empty() || by_topic.back().first != tp.topic) by_topic.emplace_back(tp.topic, std::vector<int>{});
    by_topic.back().second.push_back(tp.partition);
  }
  w.structs(field, by_topic, [&w](const auto& e) {
    w.uuid("TopicId", e.first.name());
    w.int32s("Partitions", e.second);
  });
}

struct Encode {
  RecordWriter& w;
  const RecordContext& ctx;

  void operator()(const epoch::GroupEpochRecord<Partitions>& r) const {
    w.group_key("ConsumerGroupMetadata", kMetadata, ctx.group_id);
    w.value();
    w.int32("Epoch", r.epoch);
    w.int64("MetadataHash", epoch::metadata_hash(r.subscribed_metadata));
  }
  void operator()(const epoch::MemberMetadataRecord<Partitions>& r) const {
    const MemberMetadata& m = r.metadata;
    w.member_key("ConsumerGroupMemberMetadata", kMemberMetadata, ctx.group_id, m.member_id);
    w.value();
    w.nullable_string("InstanceId", m.instance_id);
    w.nullable_string("RackId", std::nullopt);
    w.string("ClientId", m.client_id);
    w.string("ClientHost", "/" + m.client_id);  // the simulator's stand-in for the client's address
    w.strings("SubscribedTopicNames", m.topics);
    w.nullable_string("SubscribedTopicRegex", std::nullopt);
    w.int32("RebalanceTimeoutMs", std::chrono::duration_cast<std::chrono::milliseconds>(m.rebalance_timeout).count());
    w.nullable_string("ServerAssignor", m.classic ? std::nullopt : std::optional<std::string>(ctx.server_assignor));
    // ClassicMemberMetadata (tag 0): a classic member's session timeout; its
    // supported protocols' metadata is not modelled (an empty list).
    if (m.classic)
      w.tagged(0, [&] {
        w.nullable_struct("ClassicMemberMetadata", true, [&] {
          w.int32("SessionTimeoutMs", std::chrono::duration_cast<std::chrono::milliseconds>(m.session_timeout).count());
          w.structs("SupportedProtocols", std::vector<int>{}, [](int) {});
        });
      });
  }
  void operator()(const epoch::TargetAssignmentRecord<Partitions>& r) const {
    w.member_key("ConsumerGroupTargetAssignmentMember", kTargetMember, ctx.group_id, r.member_id);
    w.value();
    topic_partitions(w, "TopicPartitions", r.target);
  }
  void operator()(const epoch::TargetEpochRecord& r) const {
    w.group_key("ConsumerGroupTargetAssignmentMetadata", kTargetMetadata, ctx.group_id);
    w.value();
    w.int32("AssignmentEpoch", r.epoch);
  }
  void operator()(const epoch::CurrentAssignmentRecord<Partitions>& r) const {
    w.member_key("ConsumerGroupCurrentMemberAssignment", kCurrentAssignment, ctx.group_id, r.member_id);
    w.value();
    w.int32("MemberEpoch", r.current.epoch);
    w.int32("PreviousMemberEpoch", r.current.previous_epoch);
    w.int8("State", epoch::member_state_value(r.current.state));
    topic_partitions(w, "AssignedPartitions", r.current.assigned);
    topic_partitions(w, "PartitionsPendingRevocation", r.current.revoking);
  }
  void operator()(const epoch::MemberTombstone& r) const {
    w.member_tombstones({"ConsumerGroupCurrentMemberAssignment", "ConsumerGroupTargetAssignmentMember", "ConsumerGroupMemberMetadata",
                         kCurrentAssignment, kTargetMember, kMemberMetadata},
                        ctx.group_id, r.member_id);
  }
};

}  // namespace

std::vector<epoch::CoordinatorRecord> coordinator_records(const Record& record, const RecordContext& ctx, bool json) {
  RecordWriter w(json);
  std::visit(Encode{w, ctx}, record);
  return w.take();
}

}  // namespace rsim::protocols::consumer
