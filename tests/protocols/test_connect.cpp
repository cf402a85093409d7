// The connect protocol: Kafka Connect's IncrementalCooperativeAssignor as
// shipped (KIP-415).
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>

using namespace rsim;
using testing::handovers;
using testing::run;

TEST_SUITE("protocols") {
TEST_CASE("connect: lost work waits for the delay even when its worker is back") {
  auto s = scenario::load_file(std::string(RSIM_SOURCE_DIR) + "/scenarios/seed/deferred-bounce.yaml");
  s.protocol = "connect";
  s.assignor.reset();
  const auto x = testing::run_loaded(s, 1);
  CHECK(handovers(x.r, {"generation", "assigned", "scheduled-rebalance"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0]\n"
        "0.000s B assigned [T-1]\n"
        "0.000s C assigned [T-2]\n"
        "0.000s D assigned [T-3]\n"
        "21.003s coordinator generation g2\n"
        "21.006s A scheduled-rebalance\n"
        "21.006s B scheduled-rebalance\n"
        "21.006s C scheduled-rebalance\n"
        "30.009s coordinator generation g3\n"
        "30.012s A scheduled-rebalance\n"
        "30.012s B scheduled-rebalance\n"
        "30.012s C scheduled-rebalance\n"
        "30.012s D scheduled-rebalance\n"
        "81.007s coordinator generation g4\n"
        "81.010s D assigned [T-3]\n");
  CHECK(x.m.rebalances == 3);
  CHECK(x.m.moves == 0);
  CHECK(x.m.stop_the_world == Duration{0});
  // T-3 is down from D's crash (10 s) to D' being ready with it (81.010 s);
  // under the seed's deferred design, only until 30.012 s.
  CHECK(x.m.downtime_by_resource.at("T-3") == Duration{71'010'000});
  scenario::RunOptions o;
  o.protocol = "deferred";
  o.assignor = "cooperative-sticky";
  CHECK(metrics::summarize(s, scenario::run(s, o)).downtime_by_resource.at("T-3") == Duration{20'012'000});
}

TEST_CASE("connect: a revoking round right after another waits 40 ms") {
  const auto x = run(R"(
name: connect-backoff
duration: 1m
protocol: connect
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 12}]
members: [{id: A, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1, T-2, T-3, T-4, T-5, T-6, T-7, T-8, T-9, T-10, T-11]}
events:
  - {at: 10s, join: B, subscribe: [T]}
  - {at: 13s, join: C, subscribe: [T]}
)");
  CHECK(handovers(x.r, {"generation", "revoking", "assigned", "scheduled-rebalance"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0,T-1,T-2,T-3,T-4,T-5,T-6,T-7,T-8,T-9,T-10,T-11]\n"
        "12.003s coordinator generation g2\n"
        "12.006s A revoking [T-0,T-1,T-2,T-3,T-4,T-5]\n"
        "15.009s coordinator generation g3\n"
        "15.012s A scheduled-rebalance\n"
        "15.012s B scheduled-rebalance\n"
        "15.012s B assigned [T-0,T-2,T-4]\n"
        "15.012s C scheduled-rebalance\n"
        "15.012s C assigned [T-1,T-3,T-5]\n"
        "15.053s coordinator generation g4\n"
        "15.056s A revoking [T-6,T-7]\n"
        "18.059s coordinator generation g5\n"
        "18.062s B assigned [T-6]\n"
        "18.062s C assigned [T-7]\n");
  bool forty = false;
  for (const auto& ev : x.r.trace.events())
    if (ev.kind == "scheduled-rebalance" && ev.integer("in_us") == 40'000) forty = true;
  CHECK(forty);
  CHECK(x.m.final_assignment.at("A").size() == 4);
  CHECK_FALSE(x.m.violation);
}

TEST_CASE("connect: a new leader starts afresh and assigns lost work at once") {
  const auto x = run(R"(
name: connect-leader
duration: 1m
protocol: connect
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 6}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}, {id: C, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3], C: [T-4, T-5]}
events:
  - {at: 10s, crash: A}
)");
  CHECK(handovers(x.r, {"generation", "assigned", "scheduled-rebalance"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0,T-1]\n"
        "0.000s B assigned [T-2,T-3]\n"
        "0.000s C assigned [T-4,T-5]\n"
        "21.003s coordinator generation g2\n"
        "21.006s B assigned [T-0]\n"
        "21.006s C assigned [T-1]\n");
  // A follower's crash, by contrast, holds its work for the delay: 20 s from
  // the members' generation-2 assignment (21.006 s), they rejoin at 41.006 s.
  const auto y = run(R"(
name: connect-follower
duration: 1m
protocol: connect
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, scheduled.rebalance.max.delay.ms: 20000}
topics: [{name: T, partitions: 6}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}, {id: C, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3], C: [T-4, T-5]}
events:
  - {at: 10s, crash: C}
)");
  CHECK(handovers(y.r, {"generation", "assigned"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0,T-1]\n"
        "0.000s B assigned [T-2,T-3]\n"
        "0.000s C assigned [T-4,T-5]\n"
        "21.003s coordinator generation g2\n"
        "41.007s coordinator generation g3\n"
        "41.010s A assigned [T-4]\n"
        "41.010s B assigned [T-5]\n");
}
}
