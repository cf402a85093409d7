#include "scenarios/group_topics.hpp"

#include "scenarios/resources.hpp"

namespace rsim::scenario {

GroupTopics::GroupTopics(const Scenario& s, const Kernel& kernel, Trace& trace) : s_(s), kernel_(kernel), trace_(trace) {
  for (const auto& t : s.topics) metadata_[t.name] = t.partitions;
  for (const auto& c : s.connectors) metadata_[protocols::Topic::connector(c.name).name()] = c.tasks + 1;
}

void GroupTopics::initial(const std::vector<std::string>& topics) { group_topics_.insert(topics.begin(), topics.end()); }

void GroupTopics::subscribed(const std::vector<std::string>& topics) {
  for (const auto& t : topics) {
    if (!group_topics_.insert(t).second) continue;
    std::vector<std::string> added;
    for (int p = 0; p < metadata_.at(t); ++p) added.push_back(resource_name({t, p}));
    trace_.emit(kernel_.now(), "scenario", "resources-added", {{"topic", t}, {"resources", added}});
  }
}

void GroupTopics::add_partitions(const std::string& topic, int count) {
  int& current = metadata_.at(topic);
  std::vector<std::string> added;
  for (int p = current; p < count; ++p) added.push_back(resource_name({topic, p}));
  current = count;
  ++version_;
  if (group_topics_.count(topic) != 0)
    trace_.emit(kernel_.now(), "scenario", "resources-added", {{"topic", topic}, {"resources", added}});
}

std::vector<std::string> GroupTopics::resources() const {
  std::vector<std::string> out;
  auto add = [&](const std::string& topic) {
    if (group_topics_.count(topic) == 0) return;
    for (int p = 0; p < metadata_.at(topic); ++p) out.push_back(resource_name({topic, p}));
  };
  for (const auto& t : s_.topics) add(t.name);
  for (const auto& c : s_.connectors) add(protocols::Topic::connector(c.name).name());
  return out;
}

}  // namespace rsim::scenario
