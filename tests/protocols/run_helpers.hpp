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

inline Run run(const std::string& text, std::uint64_t seed = 1) {
  Run out{scenario::load_text(text, "test.yaml"), {}, {}};
  scenario::RunOptions o;
  o.seed = seed;
  out.r = scenario::run(out.s, o);
  out.m = metrics::summarize(out.s, out.r);
  return out;
}

}  // namespace rsim::testing
