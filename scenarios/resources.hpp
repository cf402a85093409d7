// Resource names of the scenario contract: `TOPIC-N` partitions, `CONNECTOR`
// and `CONNECTOR/N` for Connect, `SUBTOPOLOGY_N` stream tasks.
#pragma once

#include "scenarios/scenario.hpp"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace rsim::scenario {

// The names resources are made of, as declared at the start, by kind: a
// lookup stays fast however many topics a scenario declares.
struct ResourceIndex {
  explicit ResourceIndex(const Scenario& s);
  std::map<std::string, int, std::less<>> partitions;  // topic -> partition count
  std::map<std::string, int, std::less<>> tasks;       // connector -> task count
  std::set<std::string, std::less<>> subtopologies;
};

struct Resource {
  std::string error;  // why the name is not a resource of the scenario; empty if it is
  std::string name;   // as the simulator writes it: `T-01` is `T-1`
  std::string owner;  // its topic, connector or subtopology
};

// Whether `name` is a resource of the scenario, and which.
Resource check_resource(const ResourceIndex& index, std::string_view name);

// A partition's name.
std::string partition_name(std::string_view topic, int partition);

}  // namespace rsim::scenario
