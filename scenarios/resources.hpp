// Resource names of the scenario contract: `TOPIC-N` partitions, `CONNECTOR`
// and `CONNECTOR/N` for Connect, `SUBTOPOLOGY_N` stream tasks.
#pragma once

#include "scenarios/scenario.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace rsim::scenario {

// Empty if `name` is a resource of the scenario (as declared at the start);
// otherwise why it is not.
std::string check_resource(const Scenario& s, std::string_view name);

// A partition's name.
std::string partition_name(std::string_view topic, int partition);

}  // namespace rsim::scenario
