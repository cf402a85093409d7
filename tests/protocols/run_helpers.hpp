// A scenario run with its metrics, for the protocol tests.
#pragma once

#include "metrics/summary.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

#include <cstdint>
#include <string>

namespace rsim::testing {

struct Run {
  scenario::Scenario s;
  scenario::RunResult r;
  metrics::Summary m;
};

inline Run run_loaded(scenario::Scenario s, std::uint64_t seed) {
  Run out{std::move(s), {}, {}};
  scenario::RunOptions o;
  o.seed = seed;
  out.r = scenario::run(out.s, o);
  out.m = metrics::summarize(out.s, out.r);
  return out;
}

inline Run run(const std::string& text, std::uint64_t seed = 1) {
  return run_loaded(scenario::load_text(text, "test.yaml"), seed);
}

// A bundled scenario, by its path under the source tree.
inline Run run_bundled(const std::string& relative, std::uint64_t seed = 1) {
  return run_loaded(scenario::load_file(std::string(RSIM_SOURCE_DIR) + "/" + relative), seed);
}

}  // namespace rsim::testing
