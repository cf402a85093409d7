// Exact timelines of the member lifecycle around the classic protocol: the
// poll loop, max.poll.interval.ms, coordinator failover, metadata refresh.
// Hand-computed with 1 ms latency, heartbeats every 3 s phase-locked at 0 s
// by the initial assignment.
#include "protocols/classic/member.hpp"
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

// Two members of a stable generation 1, A with T-0 and T-1, B with T-2 and
// T-3; heartbeats every 3 s, max.poll.interval.ms 20 s; then `events`.
testing::Run two_members(std::string_view name, int session_ms, std::string_view events) {
  return run(fmt::format(R"(
name: {}
duration: 60s
config: {{session.timeout.ms: {}, heartbeat.interval.ms: 3000, max.poll.interval.ms: 20000}}
topics: [{{name: T, partitions: 4}}]
members: [{{id: A, subscribe: [T]}}, {{id: B, subscribe: [T]}}]
initial-assignment: {{A: [T-0, T-1], B: [T-2, T-3]}}
events:
{}
)",
                         name, session_ms, events));
}

// The group events of such a run: generation 1, then `rest`.
std::string generation_1_then(const std::vector<std::string>& rest) {
  std::vector<std::string> all{"0.000s coordinator generation g1", "0.000s coordinator stable g1",
                               "0.000s A assigned g1 [T-0,T-1]", "0.000s B assigned g1 [T-2,T-3]"};
  all.insert(all.end(), rest.begin(), rest.end());
  return joined(all);
}

}  // namespace

TEST_SUITE("protocols") {
// C joins at 6 s: the group is PreparingRebalance from 6.003 s. A hears it at
// its 9 s heartbeat and rejoins at once; B is in a 12 s batch (5-17 s) and
// rejoins only at its next poll, 17 s, which completes the join phase.
TEST_CASE("a member busy in a long batch holds the join phase until its next poll") {
  const auto x = two_members("slow", 10000, R"(
  - {at: 5s, slow: B, batch: 12s, for: 10s}
  - {at: 6s, join: C, subscribe: [T]})");
  CHECK(lines(x.r, kGroupEvents) == generation_1_then({
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
  }));
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
  const auto x = two_members("poll-timeout", 10000, R"(
  - {at: 5s, slow: B, batch: 40s, for: 30s}
  - {at: 6s, join: C, subscribe: [T]})");
  CHECK(lines(x.r, kGroupEvents) == generation_1_then({
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
  }));
  CHECK_FALSE(x.m.violation);
  REQUIRE(x.m.zombies.size() == 2);
  CHECK(x.m.zombies[0].holder == "B");
  CHECK(x.m.zombies[0].from == time_at(Duration{25'004'000}));
  CHECK(x.m.zombies[0].to == time_at(45s));
}

// The rebalance timeout (the largest max.poll.interval.ms, 20 s) ends a join
// phase a member never answers. B is frozen 5-45 s (a long GC pause) with a
// 60 s session, so its session outlives the wait: the join phase C's arrival
// opens at 6.003 s holds until 26.003 s, when the coordinator drops B and
// forms generation 2 without it. A revoked at its 9.002 s heartbeat and waits
// the whole time (eager). B, back at 45 s, polls at once (it was not in a
// batch), heartbeats, learns it is unknown, loses its partitions and joins as
// a new member (B-2); A and C rejoin at their 47.008 s heartbeats.
TEST_CASE("a member that never rejoins holds the join phase until the rebalance timeout removes it") {
  const auto x = two_members("rebalance-timeout", 60000, R"(
  - {at: 5s, pause: B, for: 40s}
  - {at: 6s, join: C, subscribe: [T]})");
  CHECK(lines(x.r, kGroupEvents) == generation_1_then({
      "6.003s coordinator state PreparingRebalance",
      "9.002s A revoking [T-0,T-1]",
      "26.003s coordinator member-removed (did not rejoin in time)",
      "26.003s coordinator state CompletingRebalance",
      "26.003s coordinator generation g2",
      "26.005s coordinator state Stable",
      "26.005s coordinator stable g2",
      "26.006s A assigned g2 [T-0,T-1]",
      "26.006s C assigned g2 [T-2,T-3]",
      "45.002s B lost [T-2,T-3]",
      "45.005s coordinator state PreparingRebalance",
      "47.008s A revoking [T-0,T-1]",
      "47.008s C revoking [T-2,T-3]",
      "47.009s coordinator state CompletingRebalance",
      "47.009s coordinator generation g3",
      "47.011s coordinator state Stable",
      "47.011s coordinator stable g3",
      "47.012s A assigned g3 [T-0,T-1]",
      "47.012s C assigned g3 [T-3]",
      "47.012s B assigned g3 [T-2]",
  }));
  // A's partitions wait from its revocation to generation 2: the whole
  // rebalance timeout.
  CHECK(x.m.downtime_by_resource.at("T-0") == Duration{17'004'000} + Duration{4'000});
  CHECK_FALSE(x.m.violation);
  // B, frozen, still held T-2 and T-3 after the coordinator gave them to C.
  REQUIRE_FALSE(x.m.zombies.empty());
  CHECK(x.m.zombies[0].holder == "B");
  CHECK(x.m.zombies[0].from == time_at(Duration{26'006'000}));
  CHECK(x.m.zombies[0].to == time_at(Duration{45'002'000}));
}

// max.poll.interval.ms is wall-clock time: B, frozen 8-33 s in the middle of
// a 10 s batch (5-15 s of work), has not polled for 28 s when it thaws, so
// its heartbeat thread leaves the group at once (33 s) instead of
// heartbeating; the rest of the batch runs to 40 s, when B loses its
// partitions and joins anew.
TEST_CASE("a process frozen in a batch past max.poll.interval.ms leaves the group when it thaws") {
  const auto x = two_members("frozen-in-batch", 60000, R"(
  - {at: 5s, slow: B, batch: 10s, for: 8s}
  - {at: 8s, pause: B, for: 25s})");
  CHECK(lines(x.r, kGroupEvents) == generation_1_then({
      "33.000s B poll-timeout",
      "33.001s coordinator member-removed (left the group)",
      "33.001s coordinator state PreparingRebalance",
      "33.002s A revoking [T-0,T-1]",
      "33.003s coordinator state CompletingRebalance",
      "33.003s coordinator generation g2",
      "33.005s coordinator state Stable",
      "33.005s coordinator stable g2",
      "33.006s A assigned g2 [T-0,T-1,T-2,T-3]",
      "40.000s B lost [T-2,T-3]",
      "40.003s coordinator state PreparingRebalance",
      "42.008s A revoking [T-0,T-1,T-2,T-3]",
      "42.009s coordinator state CompletingRebalance",
      "42.009s coordinator generation g3",
      "42.011s coordinator state Stable",
      "42.011s coordinator stable g3",
      "42.012s A assigned g3 [T-0,T-1]",
      "42.012s B assigned g3 [T-2,T-3]",
  }));
  CHECK_FALSE(x.m.violation);
}

// The coordinator's broker fails at 10 s for 2 s. Members retry
// FindCoordinator with Kafka's exponential backoff (100, 200, 400, 800 ms,
// then retry.backoff.max.ms, 1 s; 1 ms each way): asked at 10.000, 10.102,
// 10.304, 10.706, 11.508 and 12.510 s, answered "up" at 12.512 s. The new coordinator loaded generation 1
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
                                 "12.000s coordinator loaded g1", "12.512s A coordinator-found",
                                 "12.512s B coordinator-found"}));
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

// Members see the cluster through refreshes; the runner hands them one
// shared copy per change of it, and a change makes a new one while the
// members that have not refreshed keep the old.
TEST_CASE("metadata snapshots: one shared copy until the cluster changes") {
  protocols::classic::Metadata cluster{{"T", 2}, {"U", 1}};
  std::uint64_t version = 0;
  const protocols::classic::MetadataSnapshots snapshots(cluster, version);
  const auto first = snapshots.current();
  CHECK(snapshots.current() == first);  // the same object, not an equal copy
  CHECK(*first == cluster);
  cluster["T"] = 4;
  ++version;
  const auto second = snapshots.current();
  CHECK(second != first);
  CHECK(second->at("T") == 4);
  CHECK(first->at("T") == 2);
  CHECK(snapshots.current() == second);
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
