// One scenario run under one protocol, judged by the safety invariants
// (metrics/invariants.hpp) and, once the faults are over, by liveness
// (metrics/liveness.hpp). A verdict crosses a process boundary as one line
// of JSON.
#pragma once

#include "scenarios/scenario.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace rsim::swarm {

struct Verdict {
  // "ok"; or what failed: an invariant (double-ownership, zombie,
  // generation, member-epoch, eager-join, static-leave, records, liveness), or
  // "no-progress" (the kernel's loop guard), "crash", "hang", "refused" (the
  // runner or loader said no), "error" (any other exception).
  std::string kind = "ok";
  std::string message;
  std::string shape;              // a finer kind, for shrinking (liveness: what was wrong)
  std::int64_t at_us = -1;        // when it failed, in simulated time (-1: not a timed finding)
  // Figures for the campaign's report.
  // Kafka's own overlaps (metrics/ownership.hpp), by cause: removed, not
  // rejoined, conversion, stale claim.
  std::map<std::string, int> zombies;
  std::int64_t longest_zombie_us = 0;
  int generations_reissued = 0;   // Kafka's behaviour after a failover
  std::int64_t settle_us = -1;    // faults' end to settled; -1: liveness not checked
  std::string liveness_skipped;   // why not, if not
  int stranded = 0;               // resources left unassigned by Kafka's own stalls (liveness.hpp)
  std::uint64_t events = 0;

  bool failed() const { return kind != "ok"; }
  // Whether `other` fails the same way (what a shrink must keep).
  bool same_failure(const Verdict& other) const { return kind == other.kind && shape == other.shape; }
  std::string to_json() const;
  static Verdict from_json(const std::string& line);
};

// Runs `s` under `protocol` (its default assignor unless the scenario names
// one for that protocol) in this process.
Verdict judge(const scenario::Scenario& s, const std::string& protocol);

// Loads `yaml` and judges it; a file the loader refuses is "refused".
Verdict judge_text(const std::string& yaml, const std::string& file, const std::string& protocol);

}  // namespace rsim::swarm
