// Where a YAML node stands in its file, 1-based, for error messages.
#pragma once

#include "scenarios/scenario.hpp"

#include <yaml-cpp/yaml.h>

namespace rsim::scenario {

inline Mark mark_of(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.is_null() ? Mark{} : Mark{m.line + 1, m.column + 1};
}

inline Mark mark_of(const YAML::Exception& e) { return Mark{e.mark.line + 1, e.mark.column + 1}; }

}  // namespace rsim::scenario
