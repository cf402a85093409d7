// Resource names of the scenario contract: `TOPIC-N` partitions, `CONNECTOR`
// and `CONNECTOR/N` for Connect, `SUBTOPOLOGY_N` stream tasks.
#pragma once

#include "protocols/topic_partition.hpp"
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
  int index = 0;      // the partition or task number; a connector instance is -1
  bool connector = false;  // a connector or one of its tasks
};

// Whether `name` is a resource of the scenario, and which.
Resource check_resource(const ResourceIndex& index, std::string_view name);

// The topic, connector or subtopology a resource name belongs to, whatever
// its number (partitions added during a run included); empty if none.
std::string owner_of(const ResourceIndex& index, std::string_view name);

// A partition's name.
std::string partition_name(std::string_view topic, int partition);

// The resource as the simulator's actors hold it: a topic-partition, or a
// Connect resource as a partition of its connector's "topic" (partition 0
// the connector, N + 1 its task N; see protocols::Topic::connector). The name
// must be one check_resource accepts.
protocols::TopicPartition topic_partition(const ResourceIndex& index, std::string_view name);

// A group resource's name, whichever kind: TOPIC-N, CONNECTOR, CONNECTOR/N.
std::string resource_name(const protocols::TopicPartition& tp);

}  // namespace rsim::scenario
