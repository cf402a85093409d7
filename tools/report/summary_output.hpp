// The summary of a run: a table for people and the JSON object of the
// scenario contract ("Metric names") for scripts.
#pragma once

#include "metrics/expect.hpp"
#include "metrics/summary.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"

#include <ostream>
#include <vector>

namespace rsim::report {

void write_summary_table(std::ostream& out, const scenario::Scenario& s, const scenario::RunResult& run,
                         const metrics::Summary& m, const std::vector<metrics::ExpectResult>& expect);
void write_summary_json(std::ostream& out, const scenario::Scenario& s, const scenario::RunResult& run,
                        const metrics::Summary& m, const std::vector<metrics::ExpectResult>& expect);

}  // namespace rsim::report
