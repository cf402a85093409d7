// What this build simulates of the scenario contract: everything else is
// loaded and validated, and refused before the run with a clear message.
#pragma once

#include "scenarios/scenario.hpp"

#include <set>
#include <string>
#include <vector>

namespace rsim::scenario {

// Throws InputError for a protocol, assignor or event this build cannot run.
void check_supported(const Scenario& s, const std::string& protocol, const std::string& assignor);

// The protocols a scenario runs under when none is named (compare, the
// golden timelines): every one this build simulates whose kind of group the
// scenario describes (a topology: streams; otherwise the others).
std::vector<std::string> protocols_for(const Scenario& s);

// The members an upgrade event restarts speaking the consumer protocol.
std::set<std::string> upgraded_members(const Scenario& s);

}  // namespace rsim::scenario
