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

// Kafka's GroupRebalanceConfig gives a Connect worker no group.instance.id
// (static membership is the consumer's only): under `connect` a scenario's
// instance ids are ignored, a bounced worker rejoins as a new member, and
// the run says so; under `cooperative` the same file keeps its static
// members.
TEST_CASE("connect: workers have no static membership; a scenario's instance ids are ignored") {
  const char* text = R"(
name: static-workers
duration: 60s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 4}]
members:
  - {id: A, subscribe: [T], instance-id: a}
  - {id: B, subscribe: [T], instance-id: b}
events:
  - {at: 20s, bounce: A, down: 2s}
)";
  auto s = scenario::load_text(text, "static.yaml");
  const auto count = [](const scenario::RunResult& r, const std::string& kind) {
    int n = 0;
    for (const auto& ev : r.trace.events()) n += ev.kind == kind ? 1 : 0;
    return n;
  };
  const auto run_event = [](const scenario::RunResult& r) -> const TraceEvent* {
    for (const auto& ev : r.trace.events())
      if (ev.actor == "scenario" && ev.kind == "run") return &ev;
    return nullptr;
  };
  s.protocol = "cooperative";
  s.assignor.reset();
  const auto statics = testing::run_loaded(s, 1);
  CHECK(count(statics.r, "member-replaced") == 1);  // A's new process takes its place
  REQUIRE(run_event(statics.r) != nullptr);
  CHECK(run_event(statics.r)->text("instance-ids") == nullptr);
  CHECK(metrics::invariant_rules(s, "cooperative").static_members == std::set<std::string>{"A", "B"});
  s.protocol = "connect";
  const auto workers = testing::run_loaded(s, 1);
  CHECK(count(workers.r, "member-replaced") == 0);
  REQUIRE(run_event(workers.r) != nullptr);
  const auto* ignored = run_event(workers.r)->text("instance-ids");
  REQUIRE(ignored != nullptr);
  CHECK(*ignored == "ignored");
  CHECK(metrics::invariant_rules(s, "connect").static_members.empty());
  CHECK(workers.m.rebalances > statics.m.rebalances);  // A's return is a new worker: a rebalance
  CHECK_FALSE(workers.m.violation.has_value());
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
