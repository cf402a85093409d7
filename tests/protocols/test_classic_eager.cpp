// Exact timelines of the classic group under the eager protocol, computed by
// hand from the protocol rules in ../shared/reference/ (sections 1, 3, 11).
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

using namespace rsim;
using namespace std::chrono_literals;

namespace {

std::string lines(const scenario::RunResult& r, const std::set<std::string>& kinds) {
  return testing::timeline(r, kinds, false);
}
using testing::joined;

const char* kTwoMembers = R"(
name: two
duration: 40s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
network: {latency: 1ms}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
events: [{at: 20s, crash: B}]
)";

}  // namespace

TEST_SUITE("protocols") {
// Both members join at 0 with the MEMBER_ID_REQUIRED round trip (added at
// 3 ms). The initial delay of 3 s is extended once because B was added after
// the timer started (same millisecond counts): generation 1 forms at 6.003 s.
// Heartbeats are phase-locked to the SyncGroup response at 6.006 s, so B's
// last heartbeat before its crash at 20 s reaches the coordinator at
// 18.007 s; its session (10 s) expires at 28.007 s. A learns at its next
// heartbeat (sent 30.006 s, answered REBALANCE_IN_PROGRESS at 30.008 s),
// revokes everything (eager), rejoins, and generation 2 gives it all four.
TEST_CASE("eager: a group forms with the initial delay, a crash is detected at session timeout") {
  const auto s = scenario::load_text(kTwoMembers, "two.yaml");
  const auto r = scenario::run(s);
  const std::vector<std::string> want{
      "0.003s coordinator member-added",
      "0.003s coordinator state PreparingRebalance",
      "0.003s coordinator member-added",
      "6.003s coordinator state CompletingRebalance",
      "6.003s coordinator generation g1",
      "6.005s coordinator state Stable",
      "6.005s coordinator stable g1",
      "6.006s A assigned g1 [T-0,T-1]",
      "6.006s B assigned g1 [T-2,T-3]",
      "20.000s B crash [T-2,T-3]",
      "28.007s coordinator member-removed",
      "28.007s coordinator state PreparingRebalance",
      "30.008s A revoking [T-0,T-1]",
      "30.008s A revoked [T-0,T-1]",
      "30.009s coordinator state CompletingRebalance",
      "30.009s coordinator generation g2",
      "30.011s coordinator state Stable",
      "30.011s coordinator stable g2",
      "30.012s A assigned g2 [T-0,T-1,T-2,T-3]",
  };
  CHECK(lines(r, {"member-added", "member-removed", "state", "generation", "stable", "assigned", "revoking",
                  "revoked", "crash"}) == joined(want));
  const auto m = metrics::summarize(s, r);
  REQUIRE(m.window_start);
  CHECK(*m.window_start == time_at(Duration{6'006'000}));
  CHECK(m.rebalances == 1);
  CHECK(m.moves == 2);         // T-2 and T-3 from B to A
  CHECK(m.revocations == 2);   // A revoked T-0 and T-1 (B crashed: nothing revoked)
  CHECK(m.final_generation == 2);
  CHECK_FALSE(m.violation);
  CHECK(m.final_assignment == std::map<std::string, std::vector<std::string>>{{"A", {"T-0", "T-1", "T-2", "T-3"}}});
  // T-2 and T-3 are down from B's crash (20 s) until A has them (30.012 s);
  // T-0 and T-1 while A revokes and rejoins (30.008 to 30.012 s), which is
  // also the only time nothing at all is processed.
  CHECK(m.downtime.total == 2 * Duration{10'012'000} + 2 * Duration{4'000});
  CHECK(m.downtime.max == Duration{10'012'000});
  CHECK(m.stop_the_world == Duration{4'000});
  // From the crash until A holds all four: one disruption, one rebalance.
  REQUIRE(m.recoveries.size() == 1);
  CHECK(m.recoveries[0].rebalances == 1);
  CHECK(m.time_to_stable == Duration{10'012'000});
}

TEST_CASE("eager: the coordinator removes a crashed member session.timeout.ms after its last heartbeat") {
  // Over many crash instants the detection delay stays within
  // [session - heartbeat, session] of the crash (plus one network hop).
  for (int crash_ms = 20000; crash_ms < 23000; crash_ms += 250) {
    const std::string text = fmt::format(R"(
name: crash
duration: 60s
config: {{session.timeout.ms: 10000, heartbeat.interval.ms: 3000}}
topics: [{{name: T, partitions: 2}}]
members: [{{id: A, subscribe: [T]}}, {{id: B, subscribe: [T]}}]
events: [{{at: {}ms, crash: B}}]
)", crash_ms);
    const auto r = scenario::run(scenario::load_text(text, "crash.yaml"));
    std::optional<Time> removed;
    for (const auto& ev : r.trace.events())
      if (ev.kind == "member-removed" && *ev.text("member") == "B") removed = ev.at;
    REQUIRE(removed);
    const Duration delay = *removed - time_at(Duration{crash_ms * 1000});
    CAPTURE(crash_ms);
    CHECK(delay >= Duration{7s});
    CHECK(delay <= Duration{10s} + Duration{1ms});
  }
}

TEST_CASE("eager: a clean leave rebalances at once; revoke and assign costs delay processing") {
  const auto s = scenario::load_text(R"(
name: leave
duration: 30s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
costs: {revoke: 10ms, assign: 5ms}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events: [{at: 10s, leave: B}]
)", "leave.yaml");
  const auto r = scenario::run(s);
  // B revokes its two partitions (20 ms) before LeaveGroup reaches the
  // coordinator at 10.021 s; A hears of the rebalance at its heartbeat
  // (12.000 s, answered 12.002 s), revokes (20 ms), rejoins; the new
  // generation is stable at 12.025 s and A is ready after 4 x 5 ms.
  const std::vector<std::string> want{
      "0.000s coordinator generation g1",
      "0.000s coordinator stable g1",
      "0.000s A assigned g1 [T-0,T-1]",
      "0.000s A ready [T-0,T-1]",
      "0.000s B assigned g1 [T-2,T-3]",
      "0.000s B ready [T-2,T-3]",
      "10.000s B revoking [T-2,T-3]",
      "10.020s B revoked [T-2,T-3]",
      "10.020s B stopped",
      "10.021s coordinator member-removed",
      "10.021s coordinator state PreparingRebalance",
      "12.002s A revoking [T-0,T-1]",
      "12.022s A revoked [T-0,T-1]",
      "12.023s coordinator state CompletingRebalance",
      "12.023s coordinator generation g2",
      "12.025s coordinator state Stable",
      "12.025s coordinator stable g2",
      "12.026s A assigned g2 [T-0,T-1,T-2,T-3]",
      "12.046s A ready [T-0,T-1,T-2,T-3]",
  };
  CHECK(lines(r, {"member-removed", "state", "generation", "stable", "assigned", "ready", "revoking", "revoked",
                  "stopped"}) == joined(want));
}

TEST_CASE("static member: a bounce within the session timeout causes no rebalance") {
  const auto s = scenario::load_text(R"(
name: static
duration: 60s
config: {session.timeout.ms: 30000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T], instance-id: a}, {id: B, subscribe: [T], instance-id: b}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events: [{at: 10s, bounce: B, down: 5s}]
)", "static.yaml");
  const auto r = scenario::run(s);
  const auto m = metrics::summarize(s, r);
  CHECK(m.rebalances == 0);
  CHECK(m.final_generation == 1);
  CHECK(m.moves == 0);
  CHECK(m.final_assignment.at("B") == std::vector<std::string>{"T-2", "T-3"});
  // B is back with its partitions one round trip after its restart at 15 s.
  bool regained = false;
  for (const auto& ev : r.trace.events())
    if (ev.actor == "B" && ev.kind == "assigned" && ev.at == time_at(Duration{15'004'000})) regained = true;
  CHECK(regained);
}

// Safety over many seeds: whatever the faults, no resource is owned by two
// members in good standing, and generations only grow. Liveness: without
// message loss, the group converges with every partition owned once.
// Down longer than the session timeout: B's last heartbeat reached the
// coordinator at 9.001 s, so it is removed at 19.001 s. Rebalance one: A's
// 21 s heartbeat is answered REBALANCE_IN_PROGRESS at 21.002 s, its JoinGroup
// completes the join at 21.003 s; its heartbeats re-phase at its SyncGroup
// answer (21.006 s). B comes back at 30 s with an instance id the group no
// longer knows, joins as a new static member at 30.001 s (no
// MEMBER_ID_REQUIRED for static members); A hears at its 30.006 s heartbeat
// (answered 30.008 s) and generation 3 forms at 30.009 s.
TEST_CASE("static member: a bounce beyond the session timeout causes two rebalances") {
  const auto s = scenario::load_text(R"(
name: static-long
duration: 60s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T], instance-id: a}, {id: B, subscribe: [T], instance-id: b}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events: [{at: 10s, bounce: B, down: 20s}]
)", "static-long.yaml");
  const auto r = scenario::run(s);
  const auto m = metrics::summarize(s, r);
  CHECK(m.rebalances == 2);
  CHECK(m.final_generation == 3);
  CHECK(lines(r, {"member-removed", "generation"}) == joined({
      "0.000s coordinator generation g1",
      "19.001s coordinator member-removed",
      "21.003s coordinator generation g2",
      "30.009s coordinator generation g3",
  }));
  CHECK(m.final_assignment.at("B") == std::vector<std::string>{"T-2", "T-3"});
  CHECK_FALSE(m.violation);
}

// A joins a group of B, C, D (two partitions each). Its member id A-1 sorts
// first, so range shifts every range down: T-0..T-4 all change owner. Sticky
// keeps two members at two partitions and moves only the one partition the
// third gives up. Under eager everyone still stops either way.
TEST_CASE("eager with range versus sticky: a member joins") {
  const std::string text = R"(
name: join
duration: 40s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 6}]
members: [{id: B, subscribe: [T]}, {id: C, subscribe: [T]}, {id: D, subscribe: [T]}]
initial-assignment: {B: [T-0, T-1], C: [T-2, T-3], D: [T-4, T-5]}
events: [{at: 10s, join: A, subscribe: [T]}]
)";
  const auto s = scenario::load_text(text, "join.yaml");
  auto moves = [&](const char* assignor) {
    scenario::RunOptions o;
    o.assignor = assignor;
    const auto r = scenario::run(s, o);
    const auto m = metrics::summarize(s, r);
    CHECK_FALSE(m.violation);
    CHECK(m.rebalances == 1);
    std::size_t owned = 0;
    for (const auto& [member, rs] : m.final_assignment) owned += rs.size();
    CHECK(owned == 6);
    return m.moves;
  };
  CHECK(moves("range") == 5);
  CHECK(moves("sticky") == 1);
}

TEST_CASE("invariants hold over many seeds, and the group converges when no message is lost") {
  const std::string base = R"(
name: noisy
duration: 4m
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
network: {latency: {exponential: 3ms}, drop: DROP}
costs: {revoke: 5ms, assign: 5ms}
topics: [{name: T, partitions: 12}, {name: U, partitions: 5}]
members: {count: 5, prefix: m, subscribe: [T, U]}
events:
  - {at: 20s, join: x, subscribe: [T]}
  - {at: 40s, crash: m001}
  - {at: 60s, bounce: m002, down: 3s}
  - {at: 80s, pause: m003, for: 15s}
  - {at: 100s, isolate: m004, for: 12s}
  - {at: 120s, rolling-restart: [m000, x], down: 2s, interval: 5s}
)";
  for (const char* drop : {"0.0", "0.02"}) {
    std::string text = base;
    text.replace(text.find("DROP"), 4, drop);
    const auto s = scenario::load_text(text, "noisy.yaml");
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      const char* assignors[] = {"range", "roundrobin", "sticky"};
      CAPTURE(drop);
      CAPTURE(seed);
      scenario::RunOptions o;
      o.seed = seed;
      o.assignor = assignors[seed % 3];
      const auto r = scenario::run(s, o);
      const auto m = metrics::summarize(s, r);
      if (m.violation) FAIL(metrics::describe(*m.violation));
      REQUIRE(m.window_start);
      if (std::string(drop) != "0.0") continue;
      std::size_t owned = 0;
      for (const auto& [member, rs] : m.final_assignment) owned += rs.size();
      CHECK(owned == 17);
    }
  }
}

TEST_CASE("a member frozen past its session timeout keeps its partitions as a zombie, not a violation") {
  const auto s = scenario::load_text(R"(
name: zombie
duration: 60s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 2}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0], B: [T-1]}
events: [{at: 10s, pause: B, for: 20s}]
)", "zombie.yaml");
  const auto r = scenario::run(s);
  const auto m = metrics::summarize(s, r);
  CHECK_FALSE(m.violation);
  // B's last heartbeat reached the coordinator at 9.001 s: removed at
  // 19.001 s; A rejoins at its 21 s heartbeat and is given T-1 at 21.006 s
  // while B, frozen, still holds it until it thaws at 30 s and learns it was
  // removed (UNKNOWN_MEMBER_ID at 30.002 s: onPartitionsLost).
  REQUIRE(m.zombies.size() == 1);
  CHECK(m.zombies[0].resource == "T-1");
  CHECK(m.zombies[0].holder == "B");
  CHECK(m.zombies[0].from == time_at(Duration{21'006'000}));
  CHECK(m.zombies[0].to == time_at(Duration{30'002'000}));
}
}
