// Liveness: once the scenario's faults are over, the group settles (every
// resource processed by exactly one member, the coordinator Stable, nobody
// joining) within a bound derived from its timeouts, and stays settled to
// the end of the run. The safety phase is the scenario's events; the quiet
// phase starts when the last of their effects ends and network loss stops
// (`network.drop-until`).
#pragma once

#include "metrics/invariants.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace rsim::metrics {

// When the last fault's effect ends: an event's time plus its down, for,
// batch or rolling span; a member's start; the end of network loss. Unset
// when the network drops messages to the end (liveness is then a matter of
// luck, not of the protocol).
std::optional<Time> quiet_start(const scenario::Scenario& s);

// How long after the quiet start the group may take to settle: a few rounds
// of removal and rebalance timeouts, plus what holds work back on purpose
// (the deferred designs' delay, incremental rounds, a leader's metadata
// refresh) and the revoke and assign costs of every resource.
Duration settle_bound(const scenario::Scenario& s, const std::string& protocol);

struct LivenessResult {
  std::optional<Time> quiet_from;  // unset: not checked (see quiet_start)
  Duration bound{0};
  std::optional<Time> settled_at;  // start of the settled stretch that lasts to the end
  std::optional<Finding> finding;  // invariant "liveness"
  // What kind of liveness failure: "late", or what was wrong at the end
  // ("unprocessed", "not stable", "joining", joined by '+').
  std::string shape;
  std::string skipped;             // why it was not checked, if it was not
  // Resources excused from the check: left unassigned by one of Kafka's own
  // stalls (a static restart, a static rejoin with a new subscription, a
  // converted group's new partitions; see liveness.cpp).
  std::vector<std::string> stranded;
};

LivenessResult check_liveness(const scenario::Scenario& s, const scenario::RunResult& run);

}  // namespace rsim::metrics
