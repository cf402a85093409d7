// Writes a scenario back as a YAML file the loader reads into the same plain
// data: how the swarm turns a generated or shrunk scenario into a file a user
// can run, read and edit. The loader stays the only judge of validity: what
// is written is loaded again before it is trusted.
//
// Not written: `expect:` (the swarm checks its own invariants), comments and
// the `members: {count, prefix}` shorthand (members are listed one by one, and
// a scale-out as the joins of the members it started).
#pragma once

#include "scenarios/scenario.hpp"

#include <string>

namespace rsim::scenario {

// `header` is written first as comment lines (a leading "# " is added).
std::string to_yaml(const Scenario& s, const std::string& header = {});

// "250us", "5ms", "3s", "2m", "1h": the largest unit that is exact.
std::string duration_text(Duration d);

}  // namespace rsim::scenario
