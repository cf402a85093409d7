// Loads a scenario file into plain data, validating all of it. Any problem is
// an InputError naming the file, line and column.
#pragma once

#include "scenarios/errors.hpp"
#include "scenarios/scenario.hpp"

#include <string>

namespace rsim::scenario {

// Reads and validates `path`.
Scenario load_file(const std::string& path);
// Validates YAML text; `file` names it in messages.
Scenario load_text(const std::string& text, const std::string& file);

}  // namespace rsim::scenario
