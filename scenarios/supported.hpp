// What this build simulates of the scenario contract: everything else is
// loaded and validated, and refused before the run with a clear message.
#pragma once

#include "scenarios/scenario.hpp"

#include <set>
#include <string>

namespace rsim::scenario {

// Throws InputError for a protocol, assignor or event this build cannot run.
void check_supported(const Scenario& s, const std::string& protocol, const std::string& assignor);

// The members an upgrade event restarts speaking the consumer protocol.
std::set<std::string> upgraded_members(const Scenario& s);

}  // namespace rsim::scenario
