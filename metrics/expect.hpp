// Evaluates a scenario's `expect:` block against a run's metrics.
#pragma once

#include "metrics/summary.hpp"
#include "scenarios/scenario.hpp"

#include <string>
#include <vector>

namespace rsim::metrics {

struct ExpectResult {
  std::string name;
  std::string want;  // as written
  std::string got;
  bool ok = false;
};

// Throws scenario::InputError (exit 2) for a metric this version does not
// compute yet.
std::vector<ExpectResult> evaluate(const scenario::Scenario& s, const Summary& summary);

// The metric names this version computes.
bool computed(std::string_view metric);

std::string format_assignment(const std::map<std::string, std::vector<std::string>>& a);

}  // namespace rsim::metrics
