// Metrics on hand-built traces with hand-computed answers.
#include "metrics/expect.hpp"
#include "metrics/lag.hpp"
#include "metrics/processing.hpp"
#include "metrics/summary.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/writer.hpp"
#include "sim/kernel.hpp"
#include "tools/report/summary_output.hpp"
#include "tools/swarm/generator.hpp"

#include <algorithm>
#include <sstream>

#include <doctest/doctest.h>

using namespace rsim;
using namespace std::chrono_literals;

namespace {
struct Builder {
  std::vector<TraceEvent> events;
  Builder& at(Duration t, std::string actor, std::string kind, std::vector<std::string> resources = {}) {
    TraceEvent ev{time_at(t), std::move(actor), std::move(kind), {}};
    if (!resources.empty()) ev.fields.push_back({"resources", resources});
    events.push_back(std::move(ev));
    return *this;
  }
  Builder& removed(Duration t, std::string member) {
    events.push_back(TraceEvent{time_at(t), "coordinator", "member-removed", {{"member", member}}});
    return *this;
  }
  Builder& stable(Duration t, int generation) {
    events.push_back(TraceEvent{time_at(t), "coordinator", "generation", {{"generation", generation}}});
    events.push_back(TraceEvent{time_at(t), "coordinator", "stable", {{"generation", generation}}});
    return *this;
  }
};
const std::vector<std::string> kTwo{"T-0", "T-1"};
}  // namespace

namespace {
// The summary folded as the run goes must be the summary of the run's whole
// trace, read afterwards: every field, as the JSON summary prints it.
std::string summary_json(const scenario::Scenario& s, const scenario::RunResult& run, const metrics::Summary& m) {
  std::ostringstream out;
  report::write_summary_json(out, s, run, m, metrics::evaluate(s, m));
  return out.str();
}

void check_folded_as_read(const scenario::Scenario& s, const std::string& protocol) {
  scenario::RunOptions kept, folded;
  kept.protocol = folded.protocol = protocol;
  folded.keep_trace = false;
  const auto a = metrics::run_summarized(s, kept);
  const auto b = metrics::run_summarized(s, folded);
  CHECK(b.run.trace.events().empty());
  REQUIRE_FALSE(a.run.trace.events().empty());
  const auto read = metrics::summarize(s, a.run);
  CHECK(summary_json(s, a.run, a.summary) == summary_json(s, a.run, read));
  CHECK(summary_json(s, b.run, b.summary) == summary_json(s, a.run, read));
}
}  // namespace

TEST_SUITE("metrics") {
TEST_CASE("a summary folded as the run goes, keeping no trace, is the summary read from the trace afterwards") {
  // Bundled runs: a Streams group (events before the run's first), a window
  // given by metrics.from, partitions added during the run.
  for (const char* file : {"scenarios/streams/crash-10gb.yaml", "scenarios/streams/rolling-bounce.yaml",
                           "scenarios/kip848-add-partitions.yaml", "scenarios/rolling-bounce.yaml"}) {
    CAPTURE(file);
    const auto s = scenario::load_file(std::string(RSIM_SOURCE_DIR) + "/" + file);
    check_folded_as_read(s, scenario::effective_protocol(s, {}));
  }
  // Random fault schedules (the swarm's files), every protocol; a run the
  // simulator refuses or that stops making progress has no summary.
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 25; ++seed)
    for (const std::string protocol : {"eager", "cooperative", "deferred", "incremental", "connect", "consumer", "streams"}) {
      CAPTURE(seed);
      CAPTURE(protocol);
      const auto s = scenario::load_text(scenario::to_yaml(swarm::random_scenario(seed, protocol)), "random.yaml");
      try {
        check_folded_as_read(s, protocol);
        ++compared;
      } catch (const scenario::InputError&) {
      } catch (const NoProgress&) {
      }
    }
  CHECK(compared >= 150);
}

// A Streams group measures its tasks; members that also subscribe make
// their topics announce partitions as they grow, which are not resources.
TEST_CASE("a Streams run folded as it goes measures its tasks, not the partitions its members' subscriptions announce") {
  const auto s = scenario::load_text(R"(
name: streams-subscribe
seed: 1
duration: 90s
protocol: streams
topics: [{name: orders, partitions: 4}]
topology: {subtopologies: [{id: "0", source: [orders], state: [store]}]}
members:
  - {id: A, subscribe: [orders]}
  - {id: B, subscribe: [orders]}
events:
  - {at: 30s, add-partitions: {topic: orders, count: 6}}
  - {at: 50s, crash: B}
)", "streams-subscribe.yaml");
  scenario::RunOptions o;
  o.keep_trace = false;
  const auto folded = metrics::run_summarized(s, o);
  std::vector<std::string> measured;
  for (const auto& [r, d] : folded.summary.downtime_by_resource) measured.push_back(r);
  std::vector<std::string> resources = folded.run.resources;
  std::sort(resources.begin(), resources.end());
  CHECK(resources.size() == 6);  // tasks 0_0 .. 0_5
  CHECK(measured == resources);
  check_folded_as_read(s, "streams");
}
}

TEST_SUITE("metrics") {
TEST_CASE("downtime and stop-the-world: initialisation, a pause, a handover") {
  // A owns both from 1 s; frozen 5-7 s; revokes at 10 s; B is ready at 10.5 s.
  Builder b;
  b.at(0s, "A", "start").at(0s, "B", "start")
      .at(0s, "A", "assigned", kTwo).at(1s, "A", "ready", kTwo)
      .at(5s, "A", "pause").at(7s, "A", "resume")
      .at(10s, "A", "revoking", kTwo).at(10100ms, "A", "revoked", kTwo)
      .at(10200ms, "B", "assigned", kTwo).at(10500ms, "B", "ready", kTwo);
  const auto p = metrics::measure_processing(b.events, kTwo, time_at(0s), time_at(20s));
  // Each: [0, 1) + [5, 7) + [10, 10.5) = 3.5 s; nothing at all is processed
  // in exactly those intervals, with members alive.
  CHECK(p.downtime.at("T-0") == Duration{3500ms});
  CHECK(p.downtime.at("T-1") == Duration{3500ms});
  CHECK(p.stop_the_world == Duration{3500ms});
  // Clipped to a window that starts inside the pause: [6, 7) + [10, 10.5).
  const auto w = metrics::measure_processing(b.events, kTwo, time_at(6s), time_at(20s));
  CHECK(w.downtime.at("T-0") == Duration{1500ms});
  CHECK(w.stop_the_world == Duration{1500ms});
}

TEST_CASE("a resource that is never assigned is down for the whole window; a dead group is not stop-the-world") {
  Builder b;
  b.at(0s, "A", "start").at(1s, "A", "assigned", {"T-0"}).at(1s, "A", "ready", {"T-0"}).at(4s, "A", "crash");
  const auto p = metrics::measure_processing(b.events, kTwo, time_at(0s), time_at(10s));
  CHECK(p.downtime.at("T-0") == Duration{1s} + Duration{6s});  // before 1 s, after the crash at 4 s
  CHECK(p.downtime.at("T-1") == Duration{10s});
  // [0, 1) with A alive counts; after the crash nobody is alive.
  CHECK(p.stop_the_world == Duration{1s});
  const auto stats = metrics::downtime_stats(p.downtime);
  CHECK(stats.total == Duration{17s});
  CHECK(stats.max == Duration{10s});
  CHECK(stats.p50 == Duration{7s});  // nearest rank: the 1st of 2
  CHECK(stats.p99 == Duration{10s});
}

TEST_CASE("a member removed by the coordinator stops counting as processing; two processors are not one") {
  Builder b;
  b.at(0s, "A", "start").at(0s, "B", "start")
      .at(0s, "A", "assigned", {"T-0"}).at(0s, "A", "ready", {"T-0"})
      .removed(3s, "A")                                              // A is a zombie from here
      .at(5s, "B", "assigned", {"T-0"}).at(5s, "B", "ready", {"T-0"})  // B processes, A does not count
      .at(6s, "A", "lost", {"T-0"});
  const auto p = metrics::measure_processing(b.events, {"T-0"}, time_at(0s), time_at(10s));
  CHECK(p.downtime.at("T-0") == Duration{2s});
}

TEST_CASE("overlapping disruptions: a crash during a rebalance") {
  // Two members each with one partition. At 10 s B crashes; at 11 s A starts
  // revoking for a rebalance (eager) and is ready again with both at 12 s.
  Builder b;
  b.at(0s, "A", "start").at(0s, "B", "start")
      .at(0s, "A", "assigned", {"T-0"}).at(0s, "A", "ready", {"T-0"})
      .at(0s, "B", "assigned", {"T-1"}).at(0s, "B", "ready", {"T-1"})
      .at(10s, "B", "crash")
      .at(11s, "A", "revoking", {"T-0"}).at(11s, "A", "revoked", {"T-0"})
      .at(12s, "A", "assigned", kTwo).at(12s, "A", "ready", kTwo);
  const auto p = metrics::measure_processing(b.events, kTwo, time_at(0s), time_at(20s));
  CHECK(p.downtime.at("T-0") == Duration{1s});
  CHECK(p.downtime.at("T-1") == Duration{2s});
  CHECK(p.stop_the_world == Duration{1s});  // [11, 12): nothing processed, A alive
}

TEST_CASE("summary: window, rebalances, moves by scenario id, revocations, double ownership") {
  Builder b;
  b.at(0s, "A", "start").at(0s, "B", "start").stable(1s, 1)
      .at(1s, "A", "assigned", kTwo).at(1s, "A", "ready", kTwo)   // window starts at 1 s
      .at(5s, "A", "revoking", kTwo).at(5s, "A", "revoked", kTwo)
      .stable(6s, 2)
      .at(6s, "A", "assigned", {"T-0"}).at(6s, "A", "ready", {"T-0"})
      .at(6s, "B", "assigned", {"T-1"}).at(6s, "B", "ready", {"T-1"})   // one move: T-1 A -> B
      .at(8s, "B", "crash")
      .at(9s, "B", "start").stable(10s, 3)
      .at(10s, "B", "assigned", {"T-1"}).at(10s, "B", "ready", {"T-1"});  // same member back: no move
  const auto s = metrics::summarize(b.events, kTwo, time_at(12s), std::nullopt);
  REQUIRE(s.window_start);
  CHECK(*s.window_start == time_at(1s));
  CHECK(s.rebalances == 2);
  CHECK(s.moves == 1);
  CHECK(s.revocations == 2);
  CHECK(s.final_generation == 3);
  CHECK_FALSE(s.violation);
  CHECK(s.downtime.total == Duration{1s} + Duration{1s} + Duration{2s});  // T-0 [5,6); T-1 [5,6) + [8,10)
  CHECK(s.stop_the_world == Duration{1s});

  Builder bad = b;
  bad.at(11s, "A", "assigned", {"T-1"});  // B still owns T-1 and is in good standing
  const auto v = metrics::summarize(bad.events, kTwo, time_at(12s), std::nullopt);
  REQUIRE(v.violation);
  CHECK(v.violation->at == time_at(11s));
  CHECK(v.violation->members == std::vector<std::string>{"B", "A"});
  CHECK(metrics::describe(*v.violation) == "resource T-1 owned by two members at 11.000s (B, A)");

  Builder gen;
  gen.stable(1s, 2).stable(2s, 2);
  const auto g = metrics::summarize(gen.events, {}, time_at(3s), std::nullopt);
  REQUIRE(g.violation);
  CHECK(g.violation->what == "generation went from 2 to 2");
}

// The default window starts when the group is stable and every resource has
// one owner, the member processing it: a resource found so earlier and
// changed since (not processed any more, or owned by a second member) holds
// it back again, wherever it is in the resource order.
TEST_CASE("summary: the window waits for resources that were ready and are not any more") {
  const std::vector<std::string> three{"T-0", "T-1", "T-2"};
  auto window = [&](const Builder& b) { return metrics::summarize(b.events, three, time_at(20s), std::nullopt).window_start; };
  Builder base;
  base.at(0s, "A", "start").at(0s, "B", "start").stable(1s, 1)
      .at(1s, "A", "assigned", {"T-0", "T-1"}).at(1s, "A", "ready", {"T-0", "T-1"});  // T-2 not yet
  Builder revoking = base;  // T-0 no longer processed
  revoking.at(2s, "A", "revoking", {"T-0"}).at(3s, "B", "assigned", {"T-2"}).at(3s, "B", "ready", {"T-2"});
  CHECK_FALSE(window(revoking));
  revoking.at(4s, "A", "revoked", {"T-0"}).at(5s, "B", "assigned", {"T-0"}).at(6s, "B", "ready", {"T-0"});
  CHECK(window(revoking) == time_at(6s));
  Builder second = base;  // T-1 owned by B as well (a zombie's overlap: A removed)
  second.removed(2s, "A").at(2s, "B", "assigned", {"T-1"}).at(3s, "B", "assigned", {"T-2"}).at(3s, "B", "ready", {"T-2"});
  CHECK_FALSE(window(second));
  second.at(4s, "A", "revoked", {"T-1"});  // B owns it alone, A still processes it: not yet
  CHECK_FALSE(window(second));
  second.at(5s, "B", "ready", {"T-1"});
  CHECK(window(second) == time_at(5s));
  Builder crashed = base;  // what A made ready, and owned, goes with it
  crashed.at(2s, "A", "crash").at(3s, "B", "assigned", {"T-2"}).at(3s, "B", "ready", {"T-2"});
  CHECK_FALSE(window(crashed));
  crashed.at(4s, "B", "assigned", {"T-0", "T-1"}).at(4s, "B", "ready", {"T-0", "T-1"});
  CHECK(window(crashed) == time_at(4s));
}

TEST_CASE("protocol-bytes: JoinGroup, SyncGroup and rebalance-carrying heartbeat round trips inside the window") {
  Builder b;
  b.at(0s, "A", "start");
  b.events.push_back(TraceEvent{time_at(500ms), "A", "joined", {{"generation", 1}, {"bytes", 100}}});  // before the window
  b.stable(1s, 1).at(1s, "A", "assigned", kTwo).at(1s, "A", "ready", kTwo);  // window starts at 1 s
  b.events.push_back(TraceEvent{time_at(5s), "A", "joined", {{"generation", 2}, {"bytes", 300}}});
  b.events.push_back(TraceEvent{time_at(5s), "A", "heartbeat", {{"bytes", 7}}});  // a ConsumerGroupHeartbeat acknowledging
  b.events.push_back(TraceEvent{time_at(5s), "A", "heartbeat", {{"error", std::string("NONE")}}});  // a classic one: no bytes
  b.stable(6s, 2);
  b.events.push_back(TraceEvent{time_at(6s), "A", "assigned", {{"generation", 2}, {"resources", kTwo}, {"bytes", 50}}});
  const auto s = metrics::summarize(b.events, kTwo, time_at(12s), std::nullopt);
  REQUIRE(s.window_start);
  CHECK(*s.window_start == time_at(1s));
  CHECK(s.protocol_bytes == 300 + 7 + 50);
}

TEST_CASE("lag: the backlog grows while down and drains at process - produce") {
  // 100 messages/s produced, 300/s processed: drains at 200/s.
  std::map<std::string, std::vector<std::pair<Time, Time>>> down;
  // r: down 10-12 s: backlog 200, drained 1 s later.
  down["r"] = {{time_at(10s), time_at(12s)}};
  // q: down 5-6 s (100), drains 0.3 s (-60, 40 left), down again 6.3-7.3 s
  // (+100 = 140), drained by 8.0 s: one stretch of 2 s from 6 s.
  down["q"] = {{time_at(5s), time_at(6s)}, {time_at(6300ms), time_at(7300ms)}};
  const auto lag = metrics::measure_lag(down, time_at(20s), 100, 300);
  CHECK(lag.peak == doctest::Approx(200));
  CHECK(lag.catch_up == Duration{2s});
  CHECK(lag.drained);
  // Processing slower than producing never catches up: the stretch runs to
  // the window's end.
  const auto behind = metrics::measure_lag(down, time_at(20s), 100, 90);
  CHECK_FALSE(behind.drained);
  CHECK(behind.catch_up == Duration{14s});  // q: from 6 s to 20 s
}

TEST_CASE("lag: measured as the replay goes, without keeping intervals, it is the lag of the intervals") {
  // T-0 down [0, 1) and [10, 10.5); T-1 down [0, 1), [5, 7) and [10, 10.5).
  Builder b;
  b.at(0s, "A", "start").at(0s, "B", "start")
      .at(0s, "A", "assigned", kTwo).at(1s, "A", "ready", kTwo)
      .at(5s, "A", "revoking", {"T-1"}).at(5s, "A", "revoked", {"T-1"})
      .at(5s, "B", "assigned", {"T-1"}).at(7s, "B", "ready", {"T-1"})
      .at(10s, "A", "revoking", {"T-0"}).at(10s, "B", "revoking", {"T-1"})
      .at(10500ms, "B", "assigned", kTwo).at(10500ms, "B", "ready", kTwo);
  for (const double process : {300.0, 90.0}) {
    const auto kept = metrics::measure_processing(b.events, kTwo, time_at(0s), time_at(20s));
    REQUIRE(kept.down_intervals.at("T-1").size() == 3);
    const auto want = metrics::measure_lag(kept.down_intervals, time_at(20s), 100, process);
    metrics::ProcessingOptions online;
    online.keep_intervals = false;
    online.lag = metrics::LagRates{100, process};
    const auto got = metrics::measure_processing(b.events, kTwo, time_at(0s), time_at(20s), online);
    CHECK(got.down_intervals.empty());
    REQUIRE(got.lag);
    CHECK(got.lag->peak == want.peak);
    CHECK(got.lag->catch_up == want.catch_up);
    CHECK(got.lag->drained == want.drained);
    CHECK(got.downtime == kept.downtime);
  }
}

// A and B hold T-0 and T-1; B goes down at 5 s (`action`), and A alone
// holds both, ready at 9.8 s: the survivors settled.
static Builder survivor_settles_after(const std::string& action) {
  Builder b;
  b.at(0s, "A", "start").at(0s, "B", "start").stable(1s, 1)
      .at(1s, "A", "assigned", {"T-0"}).at(1s, "A", "ready", {"T-0"})
      .at(1s, "B", "assigned", {"T-1"}).at(1s, "B", "ready", {"T-1"});
  b.events.push_back(TraceEvent{time_at(5s), "scenario", "disruption", {{"action", action}, {"member", std::string("B")}}});
  b.at(5s, "B", "crash");
  b.events.push_back(TraceEvent{time_at(8s), "coordinator", "state", {{"to", std::string("PreparingRebalance")}}});
  b.at(9s, "A", "rejoin").at(9s, "A", "revoking", {"T-0"}).at(9s, "A", "revoked", {"T-0"}).at(9s, "A", "join");
  b.events.push_back(TraceEvent{time_at(9500ms), "coordinator", "state", {{"to", std::string("Stable")}}});
  b.stable(9500ms, 2);
  b.at(9600ms, "A", "assigned", kTwo).at(9800ms, "A", "ready", kTwo);
  return b;
}

TEST_CASE("time to stable: each disruption until everything is processed, the group is Stable and every member settled") {
  Builder b = survivor_settles_after("crash");
  const auto s = metrics::summarize(b.events, kTwo, time_at(20s), std::nullopt);
  REQUIRE(s.recoveries.size() == 1);
  CHECK(s.recoveries[0].action == "crash");
  CHECK(s.recoveries[0].stable == time_at(9800ms));  // ready with both at 9.8 s
  CHECK(s.recoveries[0].rebalances == 1);
  CHECK(s.time_to_stable == Duration{4800ms});
}

// The window's start is found at an event (the group stable and everything
// ready), but the window holds its whole instant: a disruption marked at that
// instant, before that event, is one of the window's. Folded as the run
// goes, the processing replay learns the start only then, so the events of
// the instant wait for it.
TEST_CASE("time to stable: a disruption at the instant the window starts, before the event that starts it, is in it") {
  Builder b;
  b.at(0s, "A", "start").at(0s, "B", "start").stable(1s, 1).at(1s, "A", "assigned", kTwo);
  b.events.push_back(TraceEvent{time_at(1s), "scenario", "disruption", {{"action", "crash"}, {"member", "B"}}});
  b.at(1s, "B", "crash").at(1s, "A", "ready", kTwo);  // window starts here
  const auto s = metrics::summarize(b.events, kTwo, time_at(5s), std::nullopt);
  REQUIRE(s.window_start);
  CHECK(*s.window_start == time_at(1s));
  REQUIRE(s.recoveries.size() == 1);
  CHECK(s.recoveries[0].action == "crash");
  CHECK(s.recoveries[0].stable == time_at(1s));
}

TEST_CASE("time to stable: a bounced member back after the survivors settled is part of its bounce") {
  // B bounces at 5 s; A takes everything at 9.8 s (the survivors settled);
  // B is back at 20 s, and the comeback generation (A revokes T-1 at 21 s,
  // B ready with it at 22 s) is the bounce's too.
  Builder b = survivor_settles_after("bounce");
  b.at(20s, "B", "start").at(20s, "B", "join");
  b.events.push_back(TraceEvent{time_at(20s), "coordinator", "state", {{"to", std::string("PreparingRebalance")}}});
  b.at(21s, "A", "rejoin").at(21s, "A", "revoking", {"T-1"}).at(21s, "A", "revoked", {"T-1"}).at(21s, "A", "join");
  b.events.push_back(TraceEvent{time_at(21500ms), "coordinator", "state", {{"to", std::string("Stable")}}});
  b.stable(21500ms, 3);
  b.at(21600ms, "A", "assigned", {"T-0"}).at(21600ms, "B", "assigned", {"T-1"}).at(22s, "B", "ready", {"T-1"});
  const auto s = metrics::summarize(b.events, kTwo, time_at(30s), std::nullopt);
  REQUIRE(s.recoveries.size() == 1);
  CHECK(s.recoveries[0].stable == time_at(22s));
  CHECK(s.recoveries[0].rebalances == 2);   // generations 2 and 3
  CHECK(s.recoveries[0].revocations == 2);  // T-0 at 9 s, T-1 at 21 s
  CHECK(s.rebalances == 2);
  CHECK(s.revocations == 2);
  CHECK(s.time_to_stable == Duration{17s});
  // A crash (no comeback) is over when the survivors settle.
  for (auto& ev : b.events)
    if (ev.kind == "disruption") ev.fields = {{"action", std::string("crash")}, {"member", std::string("B")}};
  const auto crash = metrics::summarize(b.events, kTwo, time_at(30s), std::nullopt);
  CHECK(crash.recoveries[0].stable == time_at(9800ms));
  CHECK(crash.recoveries[0].rebalances == 1);
  CHECK(crash.recoveries[0].revocations == 1);
}
}

TEST_SUITE("metrics") {
TEST_CASE("a run that feeds only a summary drops routine heartbeats from its trace; the summary is the same") {
  const auto s = scenario::load_file(std::string(RSIM_SOURCE_DIR) + "/scenarios/rolling-bounce.yaml");
  for (const char* protocol : {"eager", "cooperative"}) {
    scenario::RunOptions full, lean;
    full.protocol = lean.protocol = protocol;
    lean.routine_events = false;
    const auto a = scenario::run(s, full);
    const auto b = scenario::run(s, lean);
    auto routine = [](const TraceEvent& ev) {
      const std::string* e = ev.text("error");
      return ev.kind == "heartbeat" && e != nullptr && *e == "NONE";
    };
    const auto kept = std::count_if(a.trace.events().begin(), a.trace.events().end(), routine);
    CHECK(kept > 100);
    CHECK(std::none_of(b.trace.events().begin(), b.trace.events().end(), routine));
    CHECK(b.trace.events().size() + static_cast<std::size_t>(kept) == a.trace.events().size());
    const auto sa = metrics::summarize(s, a), sb = metrics::summarize(s, b);
    CHECK(sa.window_start == sb.window_start);
    CHECK(sa.downtime_by_resource == sb.downtime_by_resource);
    CHECK(sa.stop_the_world == sb.stop_the_world);
    CHECK(sa.rebalances == sb.rebalances);
    CHECK(sa.moves == sb.moves);
    CHECK(sa.time_to_stable == sb.time_to_stable);
    CHECK(sa.final_assignment == sb.final_assignment);
    REQUIRE(sa.lag);
    REQUIRE(sb.lag);
    CHECK(sa.lag->peak == sb.lag->peak);
    CHECK(sa.lag->catch_up == sb.lag->catch_up);
    CHECK(sa.findings.size() == sb.findings.size());
  }
}
}
