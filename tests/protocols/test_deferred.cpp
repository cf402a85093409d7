// The deferred protocol (seed 1, "Deferred Resolution of Imbalance"): a
// departed member's partitions held for scheduled.rebalance.max.delay.ms.
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>

using namespace rsim;
using testing::handovers;
using testing::run;

TEST_SUITE("protocols") {
TEST_CASE("deferred: a departed member's partition waits for the delay, then goes to a survivor") {
  const auto x = testing::run_bundled("scenarios/seed/deferred-leave.yaml");
  CHECK(handovers(x.r, {"generation", "assigned", "revoking", "scheduled-rebalance"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0]\n"
        "0.000s B assigned [T-1]\n"
        "0.000s C assigned [T-2]\n"
        "0.000s D assigned [T-3]\n"
        "10.000s D revoking [T-3]\n"
        "12.003s coordinator generation g2\n"
        "12.006s A scheduled-rebalance\n"
        "12.006s B scheduled-rebalance\n"
        "12.006s C scheduled-rebalance\n"
        "72.007s coordinator generation g3\n"
        "72.010s A assigned [T-3]\n");
  CHECK(x.m.moves == 1);
  CHECK(x.m.stop_the_world == Duration{0});
  CHECK(x.m.downtime.total == Duration{62'010'000});  // T-3, 10 s to 72.010 s
}

TEST_CASE("deferred: a member back before the delay gets its partition back") {
  const auto x = testing::run_bundled("scenarios/seed/deferred-bounce.yaml");
  CHECK(handovers(x.r, {"generation", "assigned"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0]\n"
        "0.000s B assigned [T-1]\n"
        "0.000s C assigned [T-2]\n"
        "0.000s D assigned [T-3]\n"
        "21.003s coordinator generation g2\n"
        "30.009s coordinator generation g3\n"
        "30.012s D assigned [T-3]\n");
  CHECK(x.m.rebalances == 2);
  CHECK(x.m.moves == 0);  // D is D, by scenario id
  // Under plain cooperative, T-3 goes to a survivor at 21 s and a partition
  // moves again when D' is back: two moves.
  scenario::RunOptions o;
  o.protocol = "cooperative";
  const auto r = scenario::run(x.s, o);
  CHECK(metrics::summarize(x.s, r).moves == 2);
}

TEST_CASE("deferred: a new leader holds work nobody owns and gives it to a member that comes back empty") {
  const std::string text = R"(
name: deferred-new-leader
duration: 2m
protocol: deferred
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, scheduled.rebalance.max.delay.ms: 60000}
topics: [{name: T, partitions: 6}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}, {id: C, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3], C: [T-4, T-5]}
events:
  - {at: 10s, bounce: A, down: 20s}
)";
  const auto x = run(text);
  CHECK(handovers(x.r, {"generation", "assigned", "scheduled-rebalance"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0,T-1]\n"
        "0.000s B assigned [T-2,T-3]\n"
        "0.000s C assigned [T-4,T-5]\n"
        "21.003s coordinator generation g2\n"
        "21.006s B scheduled-rebalance\n"
        "21.006s C scheduled-rebalance\n"
        "30.009s coordinator generation g3\n"
        "30.012s A assigned [T-0,T-1]\n");
  CHECK(x.m.moves == 0);
  std::string cooperative = text;
  cooperative.replace(cooperative.find("protocol: deferred"), 18, "protocol: cooperative");
  CHECK(run(cooperative).m.moves == 4);
}
}
