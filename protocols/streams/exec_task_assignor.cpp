#include "protocols/streams/exec_task_assignor.hpp"

#include "protocols/streams/invariants.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace rsim::protocols::streams {

using Json = nlohmann::ordered_json;

namespace {

[[noreturn]] void bad(const std::string& what) { throw PluginError(what); }

Json task_names(const TaskSet& tasks) {
  Json out = Json::array();
  for (const auto& t : tasks) out.push_back(to_string(t));
  return out;
}

// A member as the Streams snapshot writes it; empty fields left out.
Json member_json(const std::string& id, const AssignmentMemberSpec& m) {
  Json out = {{"id", id}, {"process", m.process_id}};
  if (m.instance_id) out["instance_id"] = *m.instance_id;
  if (m.rack_id) out["rack"] = *m.rack_id;
  out["active"] = task_names(m.current.active);
  out["standby"] = task_names(m.current.standby);
  if (!m.current.warmup.empty()) out["warmup"] = task_names(m.current.warmup);
  if (!m.task_offsets.empty()) {
    Json offsets = Json::object();
    for (const auto& [t, sum] : m.task_offsets) offsets[to_string(t)] = sum;
    out["task_offsets"] = offsets;
  }
  if (!m.client_tags.empty()) out["client_tags"] = m.client_tags;
  return out;
}

TaskSet tasks_of(const std::string& member, const char* role, const Json& list) {
  if (!list.is_array()) bad(fmt::format("member '{}': \"{}\" is not a list of tasks: {}", member, role, list.dump()));
  TaskSet out;
  for (const auto& name : list) {
    const auto task = name.is_string() ? parse_task(name.get<std::string>()) : std::nullopt;
    if (!task) bad(fmt::format("member '{}': {} task {} is not a task name (SUBTOPOLOGY_PARTITION, e.g. \"0_1\")", member, role, name.dump()));
    if (!out.insert(*task).second) bad(fmt::format("member '{}' is given {} task {} twice", member, role, to_string(*task)));
  }
  return out;
}

TasksTuple member_tasks(const std::string& member, const Json& value) {
  if (!value.is_object()) bad(fmt::format("member '{}': expected {{\"active\": [..], \"standby\": [..]}}, got {}", member, value.dump()));
  TasksTuple out;
  for (const auto& [role, list] : value.items()) {
    if (role == "active") out.active = tasks_of(member, "active", list);
    else if (role == "standby") out.standby = tasks_of(member, "standby", list);
    else if (role == "warmup")
      bad(fmt::format("member '{}' is given warm-up tasks: the Kafka 4.2 coordinator this version follows assigns none "
                      "(KAFKA-20116 adds them in 4.4)", member));
    else bad(fmt::format("member '{}': unknown role \"{}\" (expected active and standby)", member, role));
  }
  return out;
}

std::string some(const std::vector<std::string>& items) {
  constexpr std::size_t kShown = 5;
  if (items.size() <= kShown) return fmt::format("{}", fmt::join(items, "; "));
  return fmt::format("{}; ... ({} in all)", fmt::join(items.begin(), items.begin() + kShown, "; "), items.size());
}

}  // namespace

std::string task_plugin_request(const StreamsGroupSpec& group, const TopologyDescriber& topology) {
  Json req;
  req["side"] = side_name(AssignorSide::StreamsGroup);
  req["protocol"] = "streams";
  req["num_standby_replicas"] = group.num_standby_replicas;
  req["subtopologies"] = Json::object();
  for (const auto& [id, s] : topology.subtopologies) req["subtopologies"][id] = {{"tasks", s.tasks}, {"stateful", s.stateful}};
  req["members"] = Json::array();
  for (const auto& [id, m] : group.members) req["members"].push_back(member_json(id, m));
  return req.dump();
}

StreamsGroupAssignment task_plugin_answer(const std::string& line, const StreamsGroupSpec& group,
                                          const TopologyDescriber& topology) {
  const Json assignment = answer_assignment(line, "{MEMBER: {\"active\": [TASK, ..], \"standby\": [..]}}");
  StreamsGroupAssignment out;
  for (const auto& [id, m] : group.members) out[id];  // a member the answer leaves out gets nothing
  for (const auto& [id, value] : assignment.items()) {
    if (group.members.count(id) == 0) bad(fmt::format("the answer names member '{}', which is not in the group", id));
    out[id] = member_tasks(id, value);
  }
  if (const auto wrong = protocol_violations(group, topology, out); !wrong.empty()) bad(some(wrong));
  return out;
}

ExecTaskAssignor::ExecTaskAssignor(std::shared_ptr<PluginSession> session) : session_(std::move(session)) {}

StreamsGroupAssignment ExecTaskAssignor::assign(const StreamsGroupSpec& group, const TopologyDescriber& topology) const {
  auto context = [&] {
    return fmt::format("assignor plugin '{}', streams task assignment for {} member(s) (request {})", session_->command(),
                       group.members.size(), session_->requests());
  };
  return with_plugin_context([&] { return task_plugin_answer(session_->exchange(task_plugin_request(group, topology)), group, topology); },
                             context);
}

}  // namespace rsim::protocols::streams
