#include "protocols/assignors/exec.hpp"

#include "protocols/assignors/plugin_process.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace rsim::protocols {

using Json = nlohmann::ordered_json;

std::string_view side_name(AssignorSide side) {
  switch (side) {
    case AssignorSide::ClientLeader: return "client-leader";
    case AssignorSide::ConsumerGroup: return "consumer-group";
    case AssignorSide::ConnectLeader: return "connect-leader";
    case AssignorSide::StreamsGroup: return "streams-group";
  }
  return "?";
}

std::vector<std::string> split_command(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto start = text.find_first_not_of(" \t", i);
    if (start == std::string::npos) break;
    const auto end = std::min(text.find_first_of(" \t", start), text.size());
    out.push_back(text.substr(start, end - start));
    i = end;
  }
  return out;
}

namespace {

// {"t0": [0, 1]}: the snapshot format's partitions by topic.
Json partitions_json(const std::vector<TopicPartition>& tps) {
  Json out = Json::object();
  for (const auto& tp : tps) out[tp.topic.name()].push_back(tp.partition);
  return out;
}

Json member_json(const MemberSubscription& m) {
  Json out = {{"id", m.member_id}, {"topics", m.topics}};
  if (!m.owned.empty()) out["owned"] = partitions_json(m.owned);
  out["generation"] = m.generation;
  if (m.instance_id) out["instance-id"] = *m.instance_id;
  if (m.rack) out["rack"] = *m.rack;
  return out;
}

// Shortens a list for a message: the first few and how many more.
std::string some(const std::vector<std::string>& items) {
  constexpr std::size_t kShown = 5;
  if (items.size() <= kShown) return fmt::format("{}", fmt::join(items, ", "));
  return fmt::format("{}, ... ({} in all)", fmt::join(items.begin(), items.begin() + kShown, ", "), items.size());
}

[[noreturn]] void bad(const std::string& what) { throw PluginError(what); }

// One member's entry of the answer: {"topic": [partitions]}, each partition
// one the member may be given.
std::vector<TopicPartition> member_partitions(const GroupSnapshot& group, const MemberSubscription& m, const Json& value) {
  if (!value.is_object())
    bad(fmt::format("member '{}': expected an object of topic -> partitions, got {}", m.member_id, value.dump()));
  std::vector<TopicPartition> out;
  for (const auto& [topic, list] : value.items()) {
    const auto t = group.topics.find(topic);
    if (t == group.topics.end())
      bad(fmt::format("member '{}' is given partitions of topic '{}', which is not among the group's topics", m.member_id, topic));
    if (std::find(m.topics.begin(), m.topics.end(), topic) == m.topics.end())
      bad(fmt::format("member '{}' is given partitions of topic '{}', which it does not subscribe to", m.member_id, topic));
    if (!list.is_array()) bad(fmt::format("member '{}', topic '{}': expected a list of partitions, got {}", m.member_id, topic, list.dump()));
    for (const auto& p : list) {
      if (!p.is_number_integer() || p.get<std::int64_t>() < 0 || p.get<std::int64_t>() >= t->second)
        bad(fmt::format("member '{}' is given partition {} of topic '{}', which has partitions 0..{}", m.member_id, p.dump(), topic, t->second - 1));
      out.push_back(TopicPartition{Topic(topic), p.get<int>()});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every partition once at most; then the protocol's rule on the ones left
// out and on ownership changes.
void check_coverage(const GroupSnapshot& group, const GroupAssignment& a, bool cooperative) {
  std::map<TopicPartition, std::string> owner_now, owner_before;
  for (const auto& [member, list] : a)
    for (const auto& tp : list)
      if (auto [it, fresh] = owner_now.emplace(tp, member); !fresh)
        bad(fmt::format("partition {} is assigned twice (to '{}' and '{}')", to_string(tp), it->second, member));
  for (const auto& m : group.members)
    for (const auto& tp : m.owned) owner_before.emplace(tp, m.member_id);
  std::set<std::string> subscribed;  // Kafka assigns the partitions of subscribed topics only
  for (const auto& m : group.members) subscribed.insert(m.topics.begin(), m.topics.end());
  std::vector<std::string> missing;
  for (const auto& [topic, count] : group.topics)
    for (int p = 0; p < count && subscribed.count(topic) != 0; ++p) {
      const TopicPartition tp{Topic(topic), p};
      if (owner_now.count(tp) != 0) continue;
      // Cooperative: left out while its owner revokes it (it owns it and is not given it).
      if (!cooperative || owner_before.count(tp) == 0) missing.push_back(to_string(tp));
    }
  if (!missing.empty())
    bad(fmt::format("{} not assigned to anyone: {} (the protocol needs every partition assigned{})",
                    missing.size() == 1 ? "a partition is" : "partitions are", some(missing),
                    cooperative ? ", but for those their owner is revoking" : ""));
  if (!cooperative) return;
  for (const auto& [tp, member] : owner_now)
    if (auto it = owner_before.find(tp); it != owner_before.end() && it->second != member)
      bad(fmt::format("partition {} goes straight from '{}' to '{}': under a cooperative protocol its owner revokes it first "
                      "(leave it out of this assignment; the follow-up rebalance hands it over)",
                      to_string(tp), it->second, member));
}

}  // namespace

std::string plugin_request(const GroupSnapshot& group, AssignorSide side, std::string_view protocol) {
  Json req;
  req["side"] = side_name(side);
  req["protocol"] = protocol;
  req["generation"] = group.generation;
  req["topics"] = Json::object();
  for (const auto& [t, n] : group.topics) req["topics"][t] = n;
  req["members"] = Json::array();
  for (const auto& m : group.members) req["members"].push_back(member_json(m));
  if (!group.partition_racks.empty()) req["racks"] = group.partition_racks;
  return req.dump();
}

Json answer_assignment(const std::string& line, const std::string& shape) {
  Json answer = Json::parse(line, nullptr, false);
  if (answer.is_discarded())
    bad(fmt::format("the answer is not JSON: '{}'", line.size() > 80 ? line.substr(0, 80) + "..." : line));
  if (!answer.is_object()) bad(fmt::format("the answer is not a JSON object: {}", answer.dump().substr(0, 80)));
  if (auto e = answer.find("error"); e != answer.end())
    throw PluginRefusal(fmt::format("the plugin answered an error: {}", e->is_string() ? e->get<std::string>() : e->dump()));
  const auto body = answer.find("assignment");
  if (body == answer.end() || !body->is_object())
    bad(fmt::format("the answer has no \"assignment\" object (expected {{\"assignment\": {}}})", shape));
  return std::move(*body);
}

GroupAssignment plugin_answer(const std::string& line, const GroupSnapshot& group, bool cooperative) {
  const Json assignment = answer_assignment(line, "{MEMBER: {TOPIC: [PARTITION, ..]}}");
  std::map<std::string, const MemberSubscription*> members;
  for (const auto& m : group.members) members.emplace(m.member_id, &m);
  GroupAssignment out;
  for (const auto& m : group.members) out[m.member_id];  // a member the answer leaves out gets nothing
  for (const auto& [id, value] : assignment.items()) {
    const auto m = members.find(id);
    if (m == members.end()) bad(fmt::format("the answer names member '{}', which is not in the group", id));
    out[id] = member_partitions(group, *m->second, value);
  }
  check_coverage(group, out, cooperative);
  return out;
}

PluginSession::PluginSession(ExecSettings settings) : settings_(std::move(settings)) {}

PluginSession::~PluginSession() = default;

std::string PluginSession::command() const { return fmt::format("{}", fmt::join(settings_.command, " ")); }

std::string PluginSession::exchange(const std::string& request) {
  ++requests_;
  if (!process_) process_ = std::make_unique<PluginProcess>(settings_.command);
  return process_->exchange(request, settings_.timeout);
}

ExecAssignor::ExecAssignor(ExecSettings settings, AssignorSide side, std::string protocol, bool cooperative)
    : ExecAssignor(std::make_shared<PluginSession>(std::move(settings)), side, std::move(protocol), cooperative) {}

ExecAssignor::ExecAssignor(std::shared_ptr<PluginSession> session, AssignorSide side, std::string protocol, bool cooperative)
    : session_(std::move(session)), side_(side), protocol_(std::move(protocol)), cooperative_(cooperative) {}

ExecAssignor::~ExecAssignor() = default;

std::string ExecAssignor::context(const GroupSnapshot& group) const {
  return fmt::format("assignor plugin '{}', {} rebalance{} (request {})", session_->command(), protocol_,
                     group.generation >= 0 ? fmt::format(" of generation {}", group.generation) : std::string(),
                     session_->requests());
}

GroupAssignment ExecAssignor::assign(const GroupSnapshot& group) const {
  return with_plugin_context([&] { return plugin_answer(session_->exchange(plugin_request(group, side_, protocol_)), group, cooperative_); },
                             [&] { return context(group); });
}

}  // namespace rsim::protocols
