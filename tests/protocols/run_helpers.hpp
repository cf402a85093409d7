// A scenario run with its metrics, for the protocol tests.
#pragma once

#include "metrics/summary.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

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

// The events of the given kinds, one per line (time, actor, kind, then the
// generation, resources, new state and, if asked, why a member was removed),
// so a failed comparison prints both timelines in full.
inline std::string timeline(const scenario::RunResult& r, const std::set<std::string>& kinds, bool removal_reasons) {
  std::string out;
  for (const auto& ev : r.trace.events()) {
    if (kinds.count(ev.kind) == 0) continue;
    std::string line = fmt::format("{} {} {}", format_time(ev.at), ev.actor, ev.kind);
    if (auto g = ev.integer("generation")) line += fmt::format(" g{}", *g);
    if (const auto* rs = ev.list("resources")) line += fmt::format(" [{}]", fmt::join(*rs, ","));
    if (const auto* to = ev.text("to")) line += " " + *to;
    if (const auto* reason = ev.text("reason"); removal_reasons && reason && ev.kind == "member-removed")
      line += " (" + *reason + ")";
    out += line + "\n";
  }
  return out;
}

// The handovers of a run, for the cooperative designs' tests: the events of
// the given kinds with their resources; a coordinator's generation number;
// an `assigned` of nothing left out.
inline std::string handovers(const scenario::RunResult& r, const std::set<std::string>& kinds) {
  std::string out;
  for (const auto& ev : r.trace.events()) {
    if (kinds.count(ev.kind) == 0) continue;
    const auto* rs = ev.list("resources");
    if (ev.kind == "assigned" && rs != nullptr && rs->empty()) continue;
    out += fmt::format("{} {} {}", format_time(ev.at), ev.actor, ev.kind);
    if (auto g = ev.integer("generation"); g && ev.actor == "coordinator") out += fmt::format(" g{}", *g);
    if (rs != nullptr) out += fmt::format(" [{}]", fmt::join(*rs, ","));
    out += "\n";
  }
  return out;
}

// A Streams group's handover: tasks given, revoked, restored and ready, with
// standbys (and, for a scheduled rebalance, when); an `assigned` of nothing
// left out.
inline std::string tasks_timeline(const scenario::RunResult& r, const std::set<std::string>& kinds) {
  std::string out;
  for (const auto& ev : r.trace.events()) {
    if (kinds.count(ev.kind) == 0) continue;
    const auto* active = ev.list("resources");
    const auto* standby = ev.list("standbys");
    if (ev.kind == "assigned" && active != nullptr && active->empty() && standby == nullptr) continue;
    out += fmt::format("{} {} {}", format_time(ev.at), ev.actor, ev.kind);
    if (active != nullptr) out += fmt::format(" [{}]", fmt::join(*active, ","));
    if (standby != nullptr) out += fmt::format(" standby [{}]", fmt::join(*standby, ","));
    if (auto in = ev.integer("in_us")) out += fmt::format(" in {}s", *in / 1'000'000);
    out += "\n";
  }
  return out;
}

inline std::string joined(const std::vector<std::string>& want) {
  std::string out;
  for (const auto& l : want) out += l + "\n";
  return out;
}

}  // namespace rsim::testing
