// Exact timelines of the member lifecycle around the classic protocol: the
// poll loop, max.poll.interval.ms, coordinator failover, metadata refresh.
// Hand-computed with 1 ms latency, heartbeats every 3 s phase-locked at 0 s
// by the initial assignment.
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

using namespace rsim;
using namespace std::chrono_literals;

namespace {

using testing::run;

std::string lines(const scenario::RunResult& r, const std::set<std::string>& kinds) {
  return testing::timeline(r, kinds, true);
}
using testing::joined;

const std::set<std::string> kGroupEvents{"state", "generation", "stable", "assigned", "revoking", "lost",
                                         "member-removed", "poll-timeout"};

}  // namespace

TEST_SUITE("protocols") {
// C joins at 6 s: the group is PreparingRebalance from 6.003 s. A hears it at
// its 9 s heartbeat and rejoins at once; B is in a 12 s batch (5-17 s) and
// rejoins only at its next poll, 17 s, which completes the join phase.
TEST_CASE("a member busy in a long batch holds the join phase until its next poll") {
  const auto x = run(R"(
name: slow
duration: 40s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, max.poll.interval.ms: 20000}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events:
  - {at: 5s, slow: B, batch: 12s, for: 10s}
  - {at: 6s, join: C, subscribe: [T]}
)");
  const std::vector<std::string> want{
      "0.000s coordinator generation g1",
      "0.000s coordinator stable g1",
      "0.000s A assigned g1 [T-0,T-1]",
      "0.000s B assigned g1 [T-2,T-3]",
      "6.003s coordinator state PreparingRebalance",
      "9.002s A revoking [T-0,T-1]",
      "17.000s B revoking [T-2,T-3]",
      "17.001s coordinator state CompletingRebalance",
      "17.001s coordinator generation g2",
      "17.003s coordinator state Stable",
      "17.003s coordinator stable g2",
      "17.004s A assigned g2 [T-0,T-1]",
      "17.004s B assigned g2 [T-2]",
      "17.004s C assigned g2 [T-3]",
  };
  CHECK(lines(x.r, kGroupEvents) == joined(want));
  // A's partitions stop for the whole wait (9.002-17.004 s), B's keep going
  // until its poll: the slow member costs everyone else.
  CHECK(x.m.downtime_by_resource.at("T-0") == Duration{8'002'000});
  CHECK(x.m.downtime_by_resource.at("T-2") == Duration{4'000});
  CHECK_FALSE(x.m.violation);
}

// B's batch (5-45 s) outlives max.poll.interval.ms (20 s): at 25 s its
// heartbeat thread sends LeaveGroup, the join phase completes without it, and
// C gets B's partitions while B, still in its batch, holds them: a zombie until
// its next poll at 45 s loses them. B then joins as a new member (id B-2) and
// A and C hear of it at their 46.004 s heartbeats.
TEST_CASE("a batch longer than max.poll.interval.ms makes the member leave, a zombie until it polls") {
  const auto x = run(R"(
name: poll-timeout
duration: 60s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, max.poll.interval.ms: 20000}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events:
  - {at: 5s, slow: B, batch: 40s, for: 30s}
  - {at: 6s, join: C, subscribe: [T]}
)");
  const std::vector<std::string> want{
      "0.000s coordinator generation g1",
      "0.000s coordinator stable g1",
      "0.000s A assigned g1 [T-0,T-1]",
      "0.000s B assigned g1 [T-2,T-3]",
      "6.003s coordinator state PreparingRebalance",
      "9.002s A revoking [T-0,T-1]",
      "25.000s B poll-timeout",
      "25.001s coordinator member-removed (left the group)",
      "25.001s coordinator state CompletingRebalance",
      "25.001s coordinator generation g2",
      "25.003s coordinator state Stable",
      "25.003s coordinator stable g2",
      "25.004s A assigned g2 [T-0,T-1]",
      "25.004s C assigned g2 [T-2,T-3]",
      "45.000s B lost [T-2,T-3]",
      "45.003s coordinator state PreparingRebalance",
      "46.006s A revoking [T-0,T-1]",
      "46.006s C revoking [T-2,T-3]",
      "46.007s coordinator state CompletingRebalance",
      "46.007s coordinator generation g3",
      "46.009s coordinator state Stable",
      "46.009s coordinator stable g3",
      "46.010s A assigned g3 [T-0,T-1]",
      "46.010s C assigned g3 [T-3]",  // answers go out in member order: B joined last
      "46.010s B assigned g3 [T-2]",
  };
  CHECK(lines(x.r, kGroupEvents) == joined(want));
  CHECK_FALSE(x.m.violation);
  REQUIRE(x.m.zombies.size() == 2);
  CHECK(x.m.zombies[0].holder == "B");
  CHECK(x.m.zombies[0].from == time_at(Duration{25'004'000}));
  CHECK(x.m.zombies[0].to == time_at(45s));
}

// The coordinator's broker fails at 10 s for 2 s. Members retry
// FindCoordinator every 102 ms (1 ms each way + 100 ms backoff); the first
// answer after 12 s is at 12.042 s. The new coordinator loaded generation 1
// from the log, so heartbeats simply resume: no rebalance.
TEST_CASE("coordinator failover in a stable group: members find the new coordinator, no rebalance") {
  const auto x = run(R"(
name: failover
duration: 30s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 2}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0], B: [T-1]}
events: [{at: 10s, coordinator-failover: true, down: 2s}]
)");
  CHECK(lines(x.r, {"failover", "loaded", "coordinator-lost", "coordinator-found"}) ==
        joined({"10.000s coordinator failover", "10.000s A coordinator-lost", "10.000s B coordinator-lost",
                                 "12.000s coordinator loaded g1", "12.042s A coordinator-found",
                                 "12.042s B coordinator-found"}));
  CHECK(x.m.rebalances == 0);
  CHECK(x.m.final_generation == 1);
  CHECK(x.m.downtime.total == Duration{0});  // consumers fetch from partition leaders meanwhile
  int answered = 0;
  for (const auto& ev : x.r.trace.events())
    if (ev.kind == "heartbeat" && ev.at > time_at(12s)) answered += *ev.text("error") == "NONE" ? 1 : 0;
  CHECK(answered >= 10);
}

TEST_CASE("coordinator failover in the middle of a rebalance converges from the persisted generation") {
  const auto x = run(R"(
name: failover-mid-rebalance
duration: 60s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 3}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2]}
events:
  - {at: 9s, join: C, subscribe: [T]}
  - {at: 9500ms, coordinator-failover: true, down: 1s}
)");
  CHECK_FALSE(x.m.violation);
  CHECK(x.m.final_generation == 2);  // the lost PreparingRebalance never made a generation
  CHECK(x.m.final_assignment.size() == 3);
  for (const auto& [member, rs] : x.m.final_assignment) CHECK(rs.size() == 1);
}

// 2 partitions become 4 at 10 s; the leader notices at its metadata refresh
// (every 30 s from 0 s), rejoins at 30 s, B follows on its 30 s heartbeat
// answer, and the new partitions are processed from 30.006 s.
TEST_CASE("added partitions wait for the leader's metadata refresh") {
  const auto x = run(R"(
name: add-partitions
duration: 60s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, metadata.max.age.ms: 30000}
topics: [{name: T, partitions: 2}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0], B: [T-1]}
events: [{at: 10s, add-partitions: {topic: T, count: 4}}]
)");
  CHECK(x.m.rebalances == 1);
  CHECK(x.m.final_assignment.at("A") == std::vector<std::string>{"T-0", "T-1"});
  CHECK(x.m.final_assignment.at("B") == std::vector<std::string>{"T-2", "T-3"});
  CHECK(x.m.downtime_by_resource.at("T-2") == Duration{20'006'000});
  CHECK(x.m.downtime_by_resource.at("T-0") == Duration{6'000});
  CHECK(x.m.downtime_by_resource.at("T-1") == Duration{4'000});
  CHECK(x.m.downtime.total == Duration{40'022'000});
}

TEST_CASE("a subscription change rejoins with the new topics") {
  const auto x = run(R"(
name: subscribe
duration: 30s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 2}, {name: U, partitions: 2}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0], B: [T-1]}
events: [{at: 10s, subscribe: B, topics: [T, U]}]
)");
  CHECK(x.m.rebalances == 1);
  CHECK(x.m.final_assignment.at("B") == std::vector<std::string>{"T-1", "U-0", "U-1"});
  CHECK_FALSE(x.m.violation);
}
}
