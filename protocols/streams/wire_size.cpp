#include "protocols/streams/wire_size.hpp"

#include "protocols/classic/wire_size.hpp"

#include <map>

namespace rsim::protocols::streams {

namespace {

using namespace wire;

std::size_t strings(const std::vector<std::string>& v) {
  std::size_t n = varint(v.size() + 1);
  for (const auto& s : v) n += compact(s.size());
  return n;
}

// TopicInfo: name, partitions, replication factor, configs (none), tags.
std::size_t topic_info(const std::string& name) { return compact(name.size()) + 4 + 2 + 1 + 1; }

std::size_t subtopology(const SubtopologySpec& st, const Topology& topology) {
  std::size_t n = compact(st.id.size()) + strings(st.source_topics) + 1;  // id, source topics, regex (none)
  n += varint(st.state_stores.size() + 1);
  for (const auto& store : st.state_stores) n += topic_info(changelog_topic(store));
  std::vector<std::string> sinks;
  for (const auto& r : st.repartition_sinks) sinks.push_back(r.name);
  n += strings(sinks);
  std::vector<std::string> repartition_sources;
  for (const auto& t : st.source_topics)
    if (topology.is_repartition_topic(t)) repartition_sources.push_back(t);
  n += varint(repartition_sources.size() + 1);
  for (const auto& t : repartition_sources) n += topic_info(t);
  // Co-partition groups: indices (int16) into the source topics.
  n += varint(st.copartition_groups.size() + 1);
  for (const auto& g : st.copartition_groups) n += varint(g.size() + 1) + 2 * g.size() + 1 + 1 + 1;
  return n + 1;
}

std::size_t topology_struct(const Topology& topology) {
  std::size_t n = 1 + 4 + varint(topology.subtopologies().size() + 1);  // present, epoch, sub-topologies
  for (const auto& st : topology.subtopologies()) n += subtopology(st, topology);
  return n + 1;
}

// Three nullable arrays of TaskIds (sub-topology, partitions), one per role.
std::size_t task_arrays(const std::vector<RoleTask>& tasks) {
  std::size_t n = 0;
  for (const Role role : {Role::Active, Role::Standby, Role::Warmup}) {
    std::map<std::string, std::size_t> partitions;
    for (const auto& t : tasks)
      if (t.role == role) ++partitions[t.task.subtopology];
    n += varint(partitions.size() + 1);
    for (const auto& [id, count] : partitions) n += compact(id.size()) + varint(count + 1) + 4 * count + 1;
  }
  return n;
}

}  // namespace

std::size_t request_size(const HeartbeatRequest& r, const Topology* topology) {
  std::size_t n = kRequestHeader + compact(kGroupId) + compact(r.member_id.size()) + 4 + 4;  // epoch, endpoint epoch
  n += compact_nullable(r.instance_id) + compact_nullable(r.rack_id) + 4;                // rebalance timeout
  n += topology != nullptr ? topology_struct(*topology) : 1;
  n += r.owned ? task_arrays(units_of(*r.owned)) : 3;
  n += topology != nullptr ? compact(r.process_id.size()) : 1;
  return n + 1 + 1 + 1 + 1 + 1 + 1;  // endpoint, client tags, task offsets, end offsets (null), shutdown, tags
}

std::size_t response_size(const HeartbeatResponse& r, bool with_tasks) {
  std::size_t n = kResponseHeader + 4 + 2 + 1 + compact(r.answer.member_id.size()) + 4 + 4 + 4 + 4;
  if (r.status.empty()) {
    n += 1;
  } else {
    n += varint(r.status.size() + 1);
    for (const auto& s : r.status) n += 1 + compact(s.size()) + 1;
  }
  n += with_tasks ? task_arrays(r.answer.assignment) : 3;
  return n + 4 + 1 + 1;  // endpoint epoch, partitions by endpoint (null), tags
}

}  // namespace rsim::protocols::streams
