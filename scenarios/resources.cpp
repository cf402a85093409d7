#include "scenarios/resources.hpp"

#include "scenarios/values.hpp"

#include <fmt/format.h>

#include <cassert>

namespace rsim::scenario {

std::string partition_name(std::string_view topic, int partition) { return fmt::format("{}-{}", topic, partition); }

ResourceIndex::ResourceIndex(const Scenario& s) {
  for (const auto& t : s.topics) partitions.emplace(t.name, t.partitions);
  for (const auto& c : s.connectors) tasks.emplace(c.name, c.tasks);
  for (const auto& st : s.subtopologies) subtopologies.insert(st.id);
}

namespace {
Resource found(std::string_view owner, std::string name, int index = 0, bool connector = false) {
  return Resource{{}, std::move(name), std::string(owner), index, connector};
}
Resource refused(std::string why) { return Resource{std::move(why), {}, {}}; }
}  // namespace

Resource check_resource(const ResourceIndex& ix, std::string_view name) {
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) {
    const auto connector = name.substr(0, slash);
    const auto index = parse_integer(name.substr(slash + 1));
    const auto it = ix.tasks.find(connector);
    if (it == ix.tasks.end()) return refused(fmt::format("'{}' names no declared connector", connector));
    if (!index || *index < 0 || *index >= it->second)
      return refused(fmt::format("connector '{}' has tasks {}/0..{}/{}", connector, connector, connector, it->second - 1));
    return found(connector, fmt::format("{}/{}", connector, *index), static_cast<int>(*index), true);
  }
  if (ix.tasks.count(name) != 0) return found(name, std::string(name), -1, true);
  if (auto underscore = name.rfind('_'); underscore != std::string_view::npos && !ix.subtopologies.empty()) {
    const auto sub = name.substr(0, underscore);
    const auto index = parse_integer(name.substr(underscore + 1));
    if (ix.subtopologies.count(sub) != 0 && index && *index >= 0)
      return found(sub, fmt::format("{}_{}", sub, *index), static_cast<int>(*index));
  }
  if (auto dash = name.rfind('-'); dash != std::string_view::npos) {
    const auto topic = name.substr(0, dash);
    const auto index = parse_integer(name.substr(dash + 1));
    const auto it = ix.partitions.find(topic);
    if (it == ix.partitions.end()) return refused(fmt::format("'{}' names no declared topic", topic));
    if (!index || *index < 0 || *index >= it->second)
      return refused(fmt::format("topic '{}' has partitions {}-0..{}-{}", topic, topic, topic, it->second - 1));
    return found(topic, partition_name(topic, static_cast<int>(*index)), static_cast<int>(*index));
  }
  return refused(fmt::format("'{}' is not a resource (expected TOPIC-N, CONNECTOR/N or SUBTOPOLOGY_N)", name));
}

std::string owner_of(const ResourceIndex& ix, std::string_view name) {
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) return std::string(name.substr(0, slash));
  if (ix.tasks.count(name) != 0) return std::string(name);
  if (auto underscore = name.rfind('_'); underscore != std::string_view::npos && ix.subtopologies.count(name.substr(0, underscore)) != 0)
    return std::string(name.substr(0, underscore));
  if (auto dash = name.rfind('-'); dash != std::string_view::npos && ix.partitions.count(name.substr(0, dash)) != 0)
    return std::string(name.substr(0, dash));
  return {};
}

protocols::TopicPartition topic_partition(const ResourceIndex& index, std::string_view name) {
  const Resource r = check_resource(index, name);
  assert(r.error.empty() && "a resource the loader checked");
  if (r.connector) return {protocols::Topic::connector(r.owner), r.index + 1};
  return {r.owner, r.index};
}

std::string resource_name(const protocols::TopicPartition& tp) { return protocols::to_string(tp); }

}  // namespace rsim::scenario
