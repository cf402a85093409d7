// The cooperative protocol (KIP-429, seed 1 "Simple Cooperative") with the
// cooperative-sticky assignor: the seed's worked examples as exact timelines.
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

using namespace rsim;

namespace {

using testing::run;

std::string lines(const scenario::RunResult& r, const std::set<std::string>& kinds) {
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

}  // namespace

TEST_SUITE("protocols") {
// The bundled scenarios/seed/cooperative-join.yaml. D joins at 10 s (added
// 10.003 s); A, B, C hear at their 12 s heartbeats and rejoin owning what they
// own, still processing it. Generation 2 (12.003 s): the sticky target moves
// T-3 from A to D, so it is withheld from D; A revokes T-3 at 12.006 s and
// rejoins at once. Generation 3 (15.009 s, when B, C, D heard at their 15 s
// heartbeats) gives D T-3 at 15.012 s. Only T-3 ever stops.
TEST_CASE("a member joins: the moving partition is revoked in round one and assigned in round two") {
  const auto x = testing::run_bundled("scenarios/seed/cooperative-join.yaml");
  CHECK(lines(x.r, {"generation", "assigned", "revoking", "revoked"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0,T-3]\n"
        "0.000s B assigned [T-1]\n"
        "0.000s C assigned [T-2]\n"
        "12.003s coordinator generation g2\n"
        "12.006s A revoking [T-3]\n"
        "12.006s A revoked [T-3]\n"
        "15.009s coordinator generation g3\n"
        "15.012s D assigned [T-3]\n");
  CHECK(x.m.rebalances == 2);
  CHECK(x.m.moves == 1);
  CHECK(x.m.stop_the_world == Duration{0});
  CHECK(x.m.downtime.total == Duration{3'006'000});  // T-3 only: 12.006 to 15.012 s
  CHECK(x.m.time_to_stable == Duration{5'012'000});  // the join at 10 s until D has T-3
  REQUIRE(x.m.recoveries.size() == 1);
  CHECK(x.m.recoveries[0].rebalances == 2);
  CHECK_FALSE(x.m.violation);
}

// Seed 1: "D(T-3) leaves: one rebalance, A gets T-3 at once". D's LeaveGroup
// arrives at 10.001 s; A, B, C hear at 12 s; the one generation gives the
// unowned T-3 to the first member at minQuota by id, A.
TEST_CASE("a member leaves: one rebalance, its partition goes straight to a survivor") {
  const auto x = run(R"(
name: seed-cooperative-leave
duration: 1m
protocol: cooperative
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}, {id: C, subscribe: [T]}, {id: D, subscribe: [T]}]
initial-assignment: {A: [T-0], B: [T-1], C: [T-2], D: [T-3]}
events: [{at: 10s, leave: D}]
)");
  CHECK(lines(x.r, {"generation", "assigned", "revoking"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0]\n"
        "0.000s B assigned [T-1]\n"
        "0.000s C assigned [T-2]\n"
        "0.000s D assigned [T-3]\n"
        "10.000s D revoking [T-3]\n"
        "12.003s coordinator generation g2\n"
        "12.006s A assigned [T-3]\n");
  CHECK(x.m.rebalances == 1);
  CHECK(x.m.moves == 1);
  CHECK(x.m.stop_the_world == Duration{0});
}

// Seed 1, Deferred Resolution, scenarios/seed/deferred-leave.yaml: D's
// LeaveGroup arrives at 10.001 s; generation 2 (12.003 s, after the 12 s
// heartbeats) holds T-3 and tells A, B, C to rejoin in 60 s; generation 3
// (72.007 s) gives T-3 to A. No other partition moves; nothing stops but T-3.
TEST_CASE("deferred: a departed member's partition waits for the delay, then goes to a survivor") {
  const auto x = testing::run_bundled("scenarios/seed/deferred-leave.yaml");
  CHECK(lines(x.r, {"generation", "assigned", "revoking", "scheduled-rebalance"}) ==
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

// Seed 1: "a member bounces and returns as D' before the delay: D' gets T-3
// in the rebalance its return triggers". D crashes at 10 s; its session
// expires at 19.001 s; generation 2 (21.003 s) holds T-3; D' is back at 30 s
// and generation 3 (30.009 s) gives it T-3, which also ends the hold.
TEST_CASE("deferred: a member back before the delay gets its partition back") {
  const auto x = testing::run_bundled("scenarios/seed/deferred-bounce.yaml");
  CHECK(lines(x.r, {"generation", "assigned"}) ==
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

// Seed 1, Incremental Resolution, scenarios/seed/incremental-scale-out.yaml:
// two members join a one-member group owning six partitions; four must move,
// at most two per round, rounds at least 10 s apart: ceil(4 / 2) = 2 rounds.
// A round starts moves by revoking them; the follow-up rebalance assigns them.
TEST_CASE("incremental: a scale-out moves N partitions in ceil(N / max-moves) rounds") {
  const auto x = testing::run_bundled("scenarios/seed/incremental-scale-out.yaml");
  CHECK(lines(x.r, {"revoking"}) == "12.006s A revoking [T-2,T-3]\n22.010s A revoking [T-4,T-5]\n");
  CHECK(x.m.moves == 4);
  CHECK(x.m.stop_the_world == Duration{0});
  CHECK(x.m.final_assignment.at("A") == std::vector<std::string>{"T-0", "T-1"});
  CHECK(x.m.final_assignment.at("m001").size() == 2);
  CHECK(x.m.final_assignment.at("m002").size() == 2);
  // With a larger budget all four move in one round.
  scenario::Scenario s = x.s;
  s.config["incremental.max.moves.per.round"].value = std::int64_t{4};
  const auto r = scenario::run(s);
  CHECK(lines(r, {"revoking"}) == "12.006s A revoking [T-2,T-3,T-4,T-5]\n");
}

TEST_CASE("cooperative: no double ownership and convergence over many seeds") {
  const std::string text = R"(
name: cooperative-noisy
duration: 4m
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, scheduled.rebalance.max.delay.ms: 20000}
protocol: cooperative
network: {latency: {exponential: 3ms}}
costs: {revoke: 5ms, assign: 5ms}
topics: [{name: T, partitions: 12}, {name: U, partitions: 5}]
members: {count: 5, prefix: m, subscribe: [T, U]}
events:
  - {at: 20s, join: x, subscribe: [T, U]}
  - {at: 40s, crash: m001}
  - {at: 60s, bounce: m002, down: 3s}
  - {at: 80s, pause: m003, for: 15s}
  - {at: 100s, scale-out: 2, subscribe: [T, U]}
  - {at: 120s, rolling-restart: [m000, x], down: 2s, interval: 5s}
)";
  for (std::uint64_t seed = 1; seed <= 45; ++seed) {
    CAPTURE(seed);
    // Each cooperative design in turn.
    std::string variant = text;
    const char* protocols[] = {"cooperative", "deferred", "incremental"};
    variant.replace(variant.find("protocol: cooperative"), 21, std::string("protocol: ") + protocols[seed % 3]);
    const auto x = run(variant, seed);
    if (x.m.violation) FAIL(metrics::describe(*x.m.violation));
    std::size_t owned = 0;
    for (const auto& [member, rs] : x.m.final_assignment) owned += rs.size();
    CHECK(owned == 17);
  }
}
}
