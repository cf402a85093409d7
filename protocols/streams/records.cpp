#include "protocols/streams/records.hpp"

#include <algorithm>
#include <chrono>
#include <map>

namespace rsim::protocols::streams {

namespace {

using epoch::RecordWriter;

// Kafka's record types (CoordinatorRecordType).
enum Type {
  kMetadata = 17,
  kMemberMetadata = 19,
  kTargetMetadata = 20,
  kTargetMember = 21,
  kCurrentAssignment = 22,
  kTopology = 23,
};

// TaskIds: a sub-topology and its partitions, sub-topologies in order (a
// task set is sorted by sub-topology id, then partition: one run each).
void task_ids(RecordWriter& w, std::string_view field, const TaskSet& tasks) {
  std::vector<std::pair<SubtopologyId, std::vector<int>>> by_subtopology;
  for (const auto& t : tasks) {
    if (by_subtopology.empty() || by_subtopology.back().first != t.subtopology)
      by_subtopology.emplace_back(t.subtopology, std::vector<int>{});
    by_subtopology.back().second.push_back(t.partition);
  }
  w.structs(field, by_subtopology, [&w](const auto& e) {
    w.string("SubtopologyId", e.first.str());
    w.int32s("Partitions", e.second);
  });
}

void topic_info(RecordWriter& w, const std::string& name, int partitions) {
  w.string("Name", name);
  w.int32("Partitions", partitions);
  w.int16("ReplicationFactor", 0);
  w.structs("TopicConfigs", std::vector<int>{}, [](int) {});
}

int index_of(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
}

// StreamsGroupTopologyValue.Subtopology: external and repartition sources
// apart, changelogs (partitions 0: as many as the tasks), co-partition groups
// as indices into the two source lists.
void subtopology(RecordWriter& w, const Topology& topology, const SubtopologySpec& s) {
  std::vector<std::string> sources, repartition_sources;
  for (const auto& t : s.source_topics) (topology.is_repartition_topic(t) ? repartition_sources : sources).push_back(t);
  w.string("SubtopologyId", s.id);
  w.strings("SourceTopics", sources);
  w.strings("SourceTopicRegex", {});
  w.structs("StateChangelogTopics", s.state_stores, [&w](const std::string& store) { topic_info(w, changelog_topic(store), 0); });
  std::vector<std::string> sinks;
  for (const auto& r : s.repartition_sinks) sinks.push_back(r.name);
  w.strings("RepartitionSinkTopics", sinks);
  w.structs("RepartitionSourceTopics", repartition_sources, [&](const std::string& t) {
    topic_info(w, t, topology.repartition_topics().at(t).value_or(0));
  });
  w.structs("CopartitionGroups", s.copartition_groups, [&](const std::vector<std::string>& group) {
    std::vector<int> external, internal;
    for (const auto& t : group)
      if (topology.is_repartition_topic(t))
        internal.push_back(index_of(repartition_sources, t));
      else
        external.push_back(index_of(sources, t));
    w.int16s("SourceTopics", external);
    w.int16s("SourceTopicRegex", {});
    w.int16s("RepartitionSourceTopics", internal);
  });
}

int millis(Duration d) { return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); }

// host:port of a user endpoint.
std::pair<std::string, int> endpoint(const std::string& user_endpoint) {
  const auto colon = user_endpoint.rfind(':');
  if (colon == std::string::npos) return {user_endpoint, 0};
  return {user_endpoint.substr(0, colon), std::atoi(user_endpoint.c_str() + colon + 1)};
}

struct Encode {
  RecordWriter& w;
  const RecordContext& ctx;

  void operator()(const epoch::GroupEpochRecord<StreamsTasks>& r) const {
    if (r.epoch == ctx.creation_epoch && ctx.topology != nullptr) {  // the group is created with its topology
      w.group_key("StreamsGroupTopology", kTopology, ctx.group_id);
      w.value();
      w.int32("Epoch", r.subscribed_metadata.topology_epoch);
      w.structs("Subtopologies", ctx.topology->subtopologies(),
                [&](const SubtopologySpec& s) { subtopology(w, *ctx.topology, s); });
    }
    w.group_key("StreamsGroupMetadata", kMetadata, ctx.group_id);
    w.value();
    w.int32("Epoch", r.epoch);
    w.int64("MetadataHash", epoch::metadata_hash(r.subscribed_metadata.partitions));
    const std::vector<std::pair<std::string, std::string>> configs{
        {"num.standby.replicas", std::to_string(ctx.num_standby_replicas)}};
    w.structs("AssignmentConfigs", configs, [&](const auto& kv) {
      w.string("Key", kv.first);
      w.string("Value", kv.second);
    });
  }
  void operator()(const epoch::MemberMetadataRecord<StreamsTasks>& r) const {
    const MemberMetadata& m = r.metadata;
    w.member_key("StreamsGroupMemberMetadata", kMemberMetadata, ctx.group_id, m.member_id);
    w.value();
    w.nullable_string("InstanceId", m.instance_id);
    w.nullable_string("RackId", m.rack_id);
    w.string("ClientId", m.client_id);
    w.string("ClientHost", m.client_host);
    w.int32("RebalanceTimeoutMs", millis(m.rebalance_timeout));
    w.int32("TopologyEpoch", m.topology_epoch);
    w.string("ProcessId", m.process_id);
    w.nullable_struct("UserEndpoint", !m.user_endpoint.empty(), [&] {
      const auto [host, port] = endpoint(m.user_endpoint);
      w.string("Host", host);
      w.uint16("Port", port);
    });
    w.structs("ClientTags", m.client_tags, [&](const auto& kv) {
      w.string("Key", kv.first);
      w.string("Value", kv.second);
    });
  }
  void operator()(const epoch::TargetAssignmentRecord<StreamsTasks>& r) const {
    w.member_key("StreamsGroupTargetAssignmentMember", kTargetMember, ctx.group_id, r.member_id);
    w.value();
    task_ids(w, "ActiveTasks", r.target.active);
    task_ids(w, "StandbyTasks", r.target.standby);
    task_ids(w, "WarmupTasks", r.target.warmup);
  }
  void operator()(const epoch::TargetEpochRecord& r) const {
    w.group_key("StreamsGroupTargetAssignmentMetadata", kTargetMetadata, ctx.group_id);
    w.value();
    w.int32("AssignmentEpoch", r.epoch);
  }
  void operator()(const epoch::CurrentAssignmentRecord<StreamsTasks>& r) const {
    const auto& c = r.current;
    w.member_key("StreamsGroupCurrentMemberAssignment", kCurrentAssignment, ctx.group_id, r.member_id);
    w.value();
    w.int32("MemberEpoch", c.epoch);
    w.int32("PreviousMemberEpoch", c.previous_epoch);
    w.int8("State", epoch::member_state_value(c.state));
    task_ids(w, "ActiveTasks", c.assigned.active);
    task_ids(w, "StandbyTasks", c.assigned.standby);
    task_ids(w, "WarmupTasks", c.assigned.warmup);
    task_ids(w, "ActiveTasksPendingRevocation", c.revoking.active);
    task_ids(w, "StandbyTasksPendingRevocation", c.revoking.standby);
    task_ids(w, "WarmupTasksPendingRevocation", c.revoking.warmup);
  }
  void operator()(const epoch::MemberTombstone& r) const {
    w.member_tombstones({"StreamsGroupCurrentMemberAssignment", "StreamsGroupTargetAssignmentMember", "StreamsGroupMemberMetadata",
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

}  // namespace rsim::protocols::streams
