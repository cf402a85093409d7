#include "scenarios/resources.hpp"

#include "scenarios/values.hpp"

#include <fmt/format.h>

namespace rsim::scenario {

std::string partition_name(std::string_view topic, int partition) { return fmt::format("{}-{}", topic, partition); }

std::string check_resource(const Scenario& s, std::string_view name) {
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) {
    const auto connector = name.substr(0, slash);
    const auto index = parse_integer(name.substr(slash + 1));
    for (const auto& c : s.connectors) {
      if (c.name != connector) continue;
      if (!index || *index < 0 || *index >= c.tasks)
        return fmt::format("connector '{}' has tasks {}/0..{}/{}", connector, connector, connector, c.tasks - 1);
      return {};
    }
    return fmt::format("'{}' names no declared connector", connector);
  }
  for (const auto& c : s.connectors)
    if (c.name == name) return {};
  if (auto underscore = name.rfind('_'); underscore != std::string_view::npos && !s.subtopologies.empty()) {
    const auto sub = name.substr(0, underscore);
    const auto index = parse_integer(name.substr(underscore + 1));
    for (const auto& st : s.subtopologies)
      if (st.id == sub && index && *index >= 0) return {};
  }
  if (auto dash = name.rfind('-'); dash != std::string_view::npos) {
    const std::string topic(name.substr(0, dash));
    const auto index = parse_integer(name.substr(dash + 1));
    if (const Topic* t = s.find_topic(topic)) {
      if (!index || *index < 0 || *index >= t->partitions)
        return fmt::format("topic '{}' has partitions {}-0..{}-{}", topic, topic, topic, t->partitions - 1);
      return {};
    }
    return fmt::format("'{}' names no declared topic", topic);
  }
  return fmt::format("'{}' is not a resource (expected TOPIC-N, CONNECTOR/N or SUBTOPOLOGY_N)", name);
}

}  // namespace rsim::scenario
