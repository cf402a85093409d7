#include "scenarios/snapshot.hpp"

#include "scenarios/errors.hpp"
#include "scenarios/text.hpp"
#include "scenarios/values.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include "scenarios/yaml_mark.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace rsim::scenario {

namespace {

class SnapshotLoader {
 public:
  explicit SnapshotLoader(std::string file) : file_(std::move(file)) {}

  Snapshot load(const std::string& text) {
    const YAML::Node root = parse(text);
    check_keys(root, "a group snapshot", {"assignor", "topics", "members", "racks"});
    Snapshot s;
    if (root["assignor"]) s.assignor = scalar(root["assignor"], "assignor");
    if (!root["topics"]) fail(mark_of(root), "a group snapshot needs 'topics'");
    if (!root["members"]) fail(mark_of(root), "a group snapshot needs 'members'");
    check_keys(root["topics"], "topics", {});
    for (const auto& kv : root["topics"]) s.group.topics[scalar(kv.first, "a topic")] = count(kv.second, "partition count");
    if (!root["members"].IsSequence()) fail(root["members"], "members must be a list");
    std::set<std::string> ids;
    for (const auto& m : root["members"]) s.group.members.push_back(member(m, ids));
    if (root["racks"]) {
      check_keys(root["racks"], "racks", {});
      for (const auto& kv : root["racks"]) {
        auto& per_partition = s.group.partition_racks[scalar(kv.first, "a topic")];
        if (!kv.second.IsSequence()) fail(kv.second, "racks of a topic must be a list, one list of racks per partition");
        for (const auto& p : kv.second) {
          per_partition.emplace_back();
          if (!p.IsSequence()) fail(p, "the racks of a partition must be a list");
          for (const auto& r : p) per_partition.back().push_back(scalar(r, "a rack"));
        }
      }
    }
    return s;
  }

  StreamsSnapshot load_streams(const std::string& text) {
    const YAML::Node root = parse(text);
    check_keys(root, "a streams group snapshot", {"assignor", "subtopologies", "num_standby_replicas", "members"});
    StreamsSnapshot s;
    if (root["assignor"]) s.assignor = scalar(root["assignor"], "assignor");
    if (!root["subtopologies"]) fail(mark_of(root), "a streams group snapshot needs 'subtopologies'");
    if (!root["members"]) fail(mark_of(root), "a streams group snapshot needs 'members'");
    check_keys(root["subtopologies"], "subtopologies", {});
    for (const auto& kv : root["subtopologies"]) s.topology.subtopologies[scalar(kv.first, "a sub-topology id")] = subtopology(kv.second);
    if (root["num_standby_replicas"]) {
      const int n = count(root["num_standby_replicas"], "num_standby_replicas");
      if (n > protocols::streams::kMaxStandbyReplicasDefault)
        fail(root["num_standby_replicas"], fmt::format("num_standby_replicas must be at most {} (group.streams.max.standby.replicas)",
                                                       protocols::streams::kMaxStandbyReplicasDefault));
      s.group.num_standby_replicas = n;
    }
    if (!root["members"].IsSequence()) fail(root["members"], "members must be a list");
    for (const auto& m : root["members"]) {
      const std::string id = m.IsMap() && m["id"] ? scalar(m["id"], "member id") : std::string();
      if (s.group.members.count(id)) fail(m["id"], fmt::format("member id '{}' is used twice", id));
      s.group.members[id] = streams_member(m, s.topology);
      s.member_order.push_back(id);
    }
    return s;
  }

 private:
  YAML::Node parse(const std::string& text) const {
    if (const auto fault = find_text_fault(text)) fail(Mark{fault->line, fault->column}, fault->what);
    try {
      return YAML::Load(text);
    } catch (const YAML::Exception& e) {
      fail(mark_of(e), fmt::format("not valid JSON or YAML: {}", e.msg));
    }
  }

  protocols::streams::SubtopologyTasks subtopology(const YAML::Node& n) const {
    check_keys(n, "a sub-topology", {"tasks", "stateful"});
    if (!n["tasks"]) fail(n, "a sub-topology needs 'tasks' (its number of input partitions)");
    protocols::streams::SubtopologyTasks sub;
    sub.tasks = count(n["tasks"], "tasks");
    if (n["stateful"]) {
      const std::string v = scalar(n["stateful"], "stateful");
      if (v != "true" && v != "false") fail(n["stateful"], "stateful must be true or false");
      sub.stateful = v == "true";
    }
    return sub;
  }

  protocols::streams::AssignmentMemberSpec streams_member(const YAML::Node& n, const protocols::streams::TopologyDescriber& topology) const {
    check_keys(n, "a member", {"id", "process", "instance_id", "rack", "active", "standby", "warmup", "task_offsets", "client_tags"});
    if (!n["id"]) fail(n, "a member needs 'id'");
    if (!n["process"]) fail(n, "a member needs 'process' (its KafkaStreams instance)");
    protocols::streams::AssignmentMemberSpec m;
    m.process_id = scalar(n["process"], "process");
    if (n["instance_id"]) m.instance_id = scalar(n["instance_id"], "instance_id");
    if (n["rack"]) m.rack_id = scalar(n["rack"], "rack");
    if (n["active"]) m.current.active = task_list(n["active"], topology);
    if (n["standby"]) m.current.standby = task_list(n["standby"], topology);
    if (n["warmup"]) m.current.warmup = task_list(n["warmup"], topology);
    if (n["task_offsets"]) {
      check_keys(n["task_offsets"], "task_offsets", {});
      for (const auto& kv : n["task_offsets"]) {
        const auto offset = parse_integer(scalar(kv.second, "an offset sum"));
        if (!offset || *offset < 0) fail(kv.second, "an offset sum must be a whole number, 0 or more");
        m.task_offsets[task(kv.first, topology)] = *offset;
      }
    }
    if (n["client_tags"]) {
      check_keys(n["client_tags"], "client_tags", {});
      for (const auto& kv : n["client_tags"]) m.client_tags[scalar(kv.first, "a tag")] = scalar(kv.second, "a tag value");
    }
    for (const auto& t : m.current.active)
      if (m.current.standby.count(t) || m.current.warmup.count(t))
        fail(n, fmt::format("task {} is both active and standby/warm-up on one member", protocols::streams::to_string(t)));
    return m;
  }

  protocols::streams::TaskSet task_list(const YAML::Node& n, const protocols::streams::TopologyDescriber& topology) const {
    if (!n.IsSequence()) fail(n, "tasks must be a list like [\"0_1\", \"0_2\"]");
    protocols::streams::TaskSet out;
    for (const auto& t : n)
      if (!out.insert(task(t, topology)).second) fail(t, "a task is listed twice");
    return out;
  }

  protocols::streams::TaskId task(const YAML::Node& n, const protocols::streams::TopologyDescriber& topology) const {
    const std::string text = scalar(n, "a task");
    const auto t = protocols::streams::parse_task(text);
    if (!t) fail(n, fmt::format("'{}' is not a task: write SUBTOPOLOGY_PARTITION, like 0_3", text));
    const auto sub = topology.subtopologies.find(t->subtopology);
    if (sub == topology.subtopologies.end()) fail(n, fmt::format("task {}: no sub-topology '{}'", text, t->subtopology));
    if (t->partition >= sub->second.tasks)
      fail(n, fmt::format("task {}: sub-topology '{}' has {} tasks", text, t->subtopology, sub->second.tasks));
    return *t;
  }

  [[noreturn]] void fail(Mark m, std::string msg) const { throw InputError(file_, m, std::move(msg)); }
  [[noreturn]] void fail(const YAML::Node& n, std::string msg) const { fail(mark_of(n), std::move(msg)); }

  // An empty `allowed` list: any keys (a map of names).
  void check_keys(const YAML::Node& n, std::string_view what, const std::vector<std::string_view>& allowed) const {
    if (!n.IsMap()) fail(n, fmt::format("{} must be a map", what));
    std::set<std::string> seen;
    for (const auto& kv : n) {
      const std::string key = scalar(kv.first, "a key");
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(kv.first, fmt::format("unknown key '{}' in {}{}", key, what, did_you_mean(key, allowed)));
      if (!seen.insert(key).second) fail(kv.first, fmt::format("key '{}' appears twice in {}", key, what));
    }
  }

  std::string scalar(const YAML::Node& n, std::string_view what) const {
    if (!n.IsScalar()) fail(n, fmt::format("{} must be a single value", what));
    return n.Scalar();
  }

  int count(const YAML::Node& n, std::string_view what) const {
    const auto v = parse_integer(scalar(n, what));
    if (!v || *v < 0 || *v > 10'000'000) fail(n, fmt::format("{} must be a whole number from 0 to 10000000", what));
    return static_cast<int>(*v);
  }

  protocols::MemberSubscription member(const YAML::Node& n, std::set<std::string>& ids) const {
    check_keys(n, "a member", {"id", "topics", "owned", "generation", "instance-id", "rack"});
    protocols::MemberSubscription m;
    if (!n["id"]) fail(n, "a member needs 'id'");
    m.member_id = scalar(n["id"], "member id");
    if (!ids.insert(m.member_id).second) fail(n["id"], fmt::format("member id '{}' is used twice", m.member_id));
    if (n["topics"]) {
      if (!n["topics"].IsSequence()) fail(n["topics"], "topics must be a list");
      std::vector<std::string> topics;
      for (const auto& t : n["topics"]) topics.push_back(scalar(t, "a topic"));
      m.topics = std::move(topics);
    }
    if (n["owned"]) {
      check_keys(n["owned"], "owned", {});
      for (const auto& kv : n["owned"]) {
        if (!kv.second.IsSequence()) fail(kv.second, "owned partitions of a topic must be a list of numbers");
        for (const auto& p : kv.second) m.owned.push_back({scalar(kv.first, "a topic"), count(p, "a partition")});
      }
    }
    if (n["generation"]) {
      const auto g = parse_integer(scalar(n["generation"], "generation"));
      if (!g || *g < -1 || *g > INT32_MAX) fail(n["generation"], "generation must be a whole number, -1 or more");
      m.generation = static_cast<int>(*g);
    }
    if (n["instance-id"]) m.instance_id = scalar(n["instance-id"], "instance-id");
    if (n["rack"]) m.rack = scalar(n["rack"], "rack");
    return m;
  }

  std::string file_;
};

}  // namespace

Snapshot load_snapshot_text(const std::string& text, const std::string& file) { return SnapshotLoader(file).load(text); }

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, Mark{}, "cannot open the file");
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace

Snapshot load_snapshot_file(const std::string& path) { return load_snapshot_text(read_file(path), path); }

StreamsSnapshot load_streams_snapshot_text(const std::string& text, const std::string& file) {
  return SnapshotLoader(file).load_streams(text);
}

StreamsSnapshot load_streams_snapshot_file(const std::string& path) { return load_streams_snapshot_text(read_file(path), path); }

}  // namespace rsim::scenario
