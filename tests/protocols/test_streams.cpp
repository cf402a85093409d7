// The Streams protocol (KIP-1071) end to end: exact timelines of a join, a
// crash fenced at the session timeout with the new owner restoring, a move
// to a caught-up standby, and a coordinator failover in the middle of a
// reconciliation. Hand-computed: heartbeats every 5 s, 1 ms latency, the
// session timeout 45 s, 1 GB at 100 MB/s restores in 10.24 s.
#include "protocols/streams/local_state.hpp"
#include "protocols/streams/wire_size.hpp"
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>

using namespace rsim;

namespace {

std::string tasks_timeline(const scenario::RunResult& r) {
  return testing::tasks_timeline(r, {"assigned", "revoking", "revoked", "restoring", "ready", "crash", "member-removed"});
}

const char* kTwoMembers = R"(
name: streams
duration: 3m
protocol: streams
topics: [{name: T, partitions: PARTITIONS}]
topology: {subtopologies: [{id: "0", source: [T], STATE}]}
members: [{id: A}, {id: B}]
)";

// The group forms at once (no initial rebalance delay: its own test below),
// so the hand-computed times start at the first heartbeat.
std::string group(int partitions, bool stateful, std::string extra) {
  std::string s = kTwoMembers;
  s.replace(s.find("PARTITIONS"), 10, std::to_string(partitions));
  s.replace(s.find("STATE"), 5, stateful ? "state: [store]" : "state: []");
  const std::string no_delay = "group.streams.initial.rebalance.delay.ms: 0";
  if (auto at = extra.find("config: {"); at != std::string::npos)
    extra.insert(at + 9, no_delay + ", ");
  else
    extra = "config: {" + no_delay + "}\n" + extra;
  return s + extra;
}

}  // namespace

TEST_SUITE("protocols") {
TEST_CASE("streams: StreamsGroupHeartbeat sizes as Kafka encodes them; the topology only when joining") {
  namespace st = protocols::streams;
  const auto topology = st::Topology::build({st::SubtopologySpec{"0", {"T"}, {}, {"store"}, {}}});
  st::HeartbeatRequest join;
  join.process_id = "A";
  join.owned = st::TasksTuple{};
  // Header 27, group 17, member id "" 1, epoch 4, endpoint epoch 4, instance
  // and rack null 2, rebalance timeout 4: 59. The topology 42: present 1,
  // epoch 4, count 1, sub-topology 35 (id 2, sources 3, regex 1, changelog
  // store-changelog 1 + 24, sinks 1, repartition sources 1, co-partition
  // groups 1, tags 1), tags 1. Three empty task arrays 3, process id 2, the
  // null endpoint, tags, offsets and end offsets, shutdown, tags 6.
  CHECK(st::request_size(join, &topology) == 59 + 42 + 3 + 2 + 6);
  CHECK(st::request_size(join, nullptr) == 59 + 1 + 3 + 1 + 6);
  st::HeartbeatResponse r;
  r.answer.member_id = "A-1";
  r.answer.assignment = {{st::Role::Active, {"0", 0}}, {st::Role::Active, {"0", 1}}, {st::Role::Standby, {"0", 2}}};
  // Header 5, throttle 4, error 2, message 1, member id 4, epoch 4,
  // interval 4, acceptable lag 4, offset interval 4: 32; no status 1; actives
  // 1 + (2 + 1 + 8 + 1), standbys 1 + (2 + 1 + 4 + 1), warm-ups 1: 23;
  // endpoint epoch 4, endpoints null 1, tags 1.
  CHECK(st::response_size(r, true) == 32 + 1 + 23 + 6);
  CHECK(st::response_size(r, false) == 32 + 1 + 3 + 6);
}

TEST_CASE("streams: a member joins; only the moving task stops, revoked before it is assigned") {
  const auto x = testing::run(group(4, false, "events: [{at: 30s, join: C}]\n"));
  CHECK(tasks_timeline(x.r) ==
        "0.002s A assigned [0_0,0_1,0_2,0_3]\n"
        "0.002s A ready [0_0,0_1,0_2,0_3]\n"
        "0.004s A revoking [0_2,0_3]\n"
        "0.004s A revoked [0_2,0_3]\n"
        "5.002s B assigned [0_2,0_3]\n"
        "5.002s B ready [0_2,0_3]\n"
        // C's join: B gives up 0_3; C gets it at its next heartbeat, 5 s on.
        "30.004s B revoking [0_3]\n"
        "30.004s B revoked [0_3]\n"
        "35.002s C assigned [0_3]\n"
        "35.002s C ready [0_3]\n");
  CHECK(x.m.stop_the_world == Duration{0});
  CHECK(x.m.moves == 1);
  CHECK(x.m.downtime.max == Duration{4'998'000});  // 0_3: 30.004 to 35.002 s
  CHECK(x.m.downtime.total == Duration{4'998'000});  // nobody else stops
  CHECK_FALSE(x.m.violation);
}

TEST_CASE("streams: a crash is fenced at the session timeout; the new owner restores the state first") {
  const auto x = testing::run(group(2, true, "costs: {state: 1GB, restore.rate: 100MB/s}\nevents: [{at: 60s, crash: B}]\n"));
  const std::string t = tasks_timeline(x.r);
  // B's last heartbeat reached the coordinator at 55.003 s: removed 45 s on.
  CHECK(t.find("100.003s coordinator member-removed\n"
               "100.006s A assigned [0_1]\n"
               "100.006s A restoring [0_1]\n"
               "110.246s A ready [0_1]\n") != std::string::npos);
  CHECK(x.m.downtime.max == Duration{50'246'000});  // 0_1: 60 s to 110.246 s, 10.24 s of it restoring
  CHECK_FALSE(x.m.violation);
}

TEST_CASE("streams: with a standby the crashed member's task moves to its caught-up copy, restoring nothing") {
  const auto x = testing::run(group(2, true,
                                    "config: {num.standby.replicas: 1}\n"
                                    "costs: {state: 1GB, restore.rate: 100MB/s}\n"
                                    "events: [{at: 60s, crash: B}]\n"));
  const std::string t = tasks_timeline(x.r);
  CHECK(t.find("60.000s B crash [0_1] standby [0_0]\n") != std::string::npos);
  // A drops its standby of 0_1 (a process holds one copy of a task), then
  // takes it active: ready at once.
  CHECK(t.find("100.008s A revoking [] standby [0_1]\n"
               "100.008s A revoked [] standby [0_1]\n"
               "100.010s A assigned [0_1]\n"
               "100.010s A ready [0_1]\n") != std::string::npos);
  CHECK(t.find("restoring", t.find("60.000s")) == std::string::npos);
  CHECK(x.m.downtime.max == Duration{40'010'000});  // only the session timeout's wait
}

TEST_CASE("streams: a coordinator failover mid-reconciliation replays the group and converges to the same target") {
  const std::string base = group(6, true,
                                 "config: {num.standby.replicas: 1}\n"
                                 "costs: {revoke: 50ms, state: 100MB, restore.rate: 100MB/s}\n");
  const auto plain = testing::run(base + "events: [{at: 30s, join: C}]\n");
  const auto failed = testing::run(base + "events: [{at: 30s, join: C}, {at: 30.004s, coordinator-failover: true, down: 2s}]\n");
  CHECK(failed.m.final_assignment == plain.m.final_assignment);
  CHECK(failed.m.final_assignment.at("C") == std::vector<std::string>{"0_2", "0_5"});
  CHECK_FALSE(failed.m.violation);
  bool loaded_reconciling = false, diverged = false;
  for (const auto& ev : failed.r.trace.events()) {
    if (ev.kind == "loaded" && ev.text("state") && *ev.text("state") == "Reconciling") loaded_reconciling = true;
    diverged |= ev.kind == "records-divergence";
  }
  CHECK(loaded_reconciling);  // the new coordinator took over in the middle
  CHECK_FALSE(diverged);
}
TEST_CASE("streams: initial-assignment starts the group stable, standbys placed, their copies caught up") {
  // A and B run two tasks each; the coordinator puts each one's standbys on
  // the other. A crashes at 30 s; its last heartbeat reached the coordinator
  // at 25.001 s, so it is fenced at 70.001 s (45 s session), and its tasks
  // move to B's standby copies: nothing to restore.
  const auto x = testing::run(group(4, true,
                                    "config: {num.standby.replicas: 1}\n"
                                    "costs: {state: 1GB, restore.rate: 100MB/s}\n"
                                    "initial-assignment: {A: [0_0, 0_1], B: [0_2, 0_3]}\n"
                                    "events: [{at: 30s, crash: A}]\n"));
  CHECK(tasks_timeline(x.r) ==
        "0.000s A assigned [0_0,0_1] standby [0_2,0_3]\n"
        "0.000s A ready [0_0,0_1] standby [0_2,0_3]\n"
        "0.000s B assigned [0_2,0_3] standby [0_0,0_1]\n"
        "0.000s B ready [0_2,0_3] standby [0_0,0_1]\n"
        "30.000s A crash [0_0,0_1] standby [0_2,0_3]\n"
        "70.001s coordinator member-removed\n"
        "70.002s B revoking [] standby [0_0,0_1]\n"
        "70.002s B revoked [] standby [0_0,0_1]\n"
        "70.004s B assigned [0_0,0_1]\n"
        "70.004s B ready [0_0,0_1]\n");
  CHECK(x.m.window_start == time_at(Duration{0}));
  CHECK(*x.m.restoration == Duration{0});
  CHECK(x.m.rebalances == 1);
}

TEST_CASE("streams: the state cleaner deletes a copy nobody has had for state.cleanup.delay.ms, at its tick, while the instance is up") {
  // B leaves at 60 s and is down 25 min: its copy of 0_1 survives (a
  // stopped instance runs no cleaner; the tick at 1200 s of a cleaner that
  // kept running would delete it), so B takes 0_1 back with nothing to
  // restore. A lets 0_1 go at 1560.008 s: stale after 2160.008 s, deleted at
  // A's next cleaner tick, 2400 s (every 600 s from its start). When B
  // leaves again, A restores 0_1 in full only after that tick.
  auto run = [](const std::string& extra_config, const char* second_leave) {
    std::string yaml = group(2, true, "config: {" + extra_config + "}\n" +
                                          "costs: {state: 1GB, restore.rate: 100MB/s}\n"
                                          "events: [{at: 60s, restart: B, down: 25m}, {at: " + second_leave +
                                          ", leave: B}]\n");
    yaml.replace(yaml.find("duration: 3m"), 12, "duration: 50m");
    return tasks_timeline(testing::run(yaml).r);
  };
  const std::string before = run("", "2390s");
  CHECK(before.find("1565.002s B assigned [0_1]\n1565.002s B ready [0_1]\n") != std::string::npos);
  CHECK(before.find("2390.010s A assigned [0_1]\n2390.010s A ready [0_1]\n") != std::string::npos);
  // A's heartbeats, every 5 s, reach it at 2405.010 s.
  CHECK(run("", "2401s").find("2405.010s A assigned [0_1]\n2405.010s A restoring [0_1]\n2415.250s A ready [0_1]\n") !=
        std::string::npos);
  // A longer delay keeps it.
  CHECK(run("state.cleanup.delay.ms: 20m", "2401s").find("2405.010s A assigned [0_1]\n2405.010s A ready [0_1]\n") !=
        std::string::npos);
}

TEST_CASE("streams: a new group's first target waits for group.streams.initial.rebalance.delay.ms") {
  // A and B join at 0 (epochs 2 and 3: a delayed group starts at 2) and get
  // nothing at epoch 1, status ASSIGNMENT_DELAYED; at 3.001 s the delay ends
  // and the target of epoch 3 is computed at once; each member takes its
  // tasks at its next heartbeat (sent at 5 s). One rebalance, one target.
  const auto x = testing::run(R"(
name: streams-delay
duration: 1m
protocol: streams
topics: [{name: T, partitions: 4}]
topology: {subtopologies: [{id: "0", source: [T]}]}
members: [{id: A}, {id: B}]
)");
  std::string t;
  for (const auto& ev : x.r.trace.events()) {
    if (ev.at > time_at(Duration{6'000'000})) break;
    if (ev.kind == "group-epoch" || ev.kind == "initial-delay-over" || ev.kind == "generation" || ev.kind == "status" ||
        (ev.kind == "assigned" && ev.actor == "A"))
      t += fmt::format("{} {} {}{}\n", format_time(ev.at), ev.actor, ev.kind,
                       ev.integer("generation") ? fmt::format(" {}", *ev.integer("generation"))
                       : ev.integer("epoch")    ? fmt::format(" {}", *ev.integer("epoch"))
                                                : std::string());
  }
  CHECK(t == "0.001s coordinator group-epoch 2\n"
             "0.001s coordinator group-epoch 3\n"
             "0.002s A status\n"
             "0.002s A assigned 1\n"
             "0.002s B status\n"
             "3.001s coordinator initial-delay-over\n"
             "3.001s coordinator generation 3\n"
             "5.002s A status\n"
             "5.002s A assigned 3\n"
             "5.002s B status\n");
  CHECK(x.m.rebalances == 0);  // formed before the window opens
  CHECK(x.m.final_generation == 3);
}

TEST_CASE("streams: a missing source topic leaves the group without tasks until create-topic makes it") {
  const auto x = testing::run(R"(
name: streams-create
duration: 2m
protocol: streams
topics: [{name: T, partitions: 2}]
topology: {subtopologies: [{id: "0", source: [T, U]}]}
members: [{id: A}, {id: B}]
events: [{at: 30s, create-topic: U, partitions: 4}]
)");
  std::string statuses;
  for (const auto& ev : x.r.trace.events())
    if (ev.kind == "status" && ev.actor == "A")
      if (const auto* l = ev.list("status")) statuses += fmt::format("{} [{}]\n", format_time(ev.at), fmt::join(*l, ","));
  // The first 3 s also wait for the initial rebalance delay.
  CHECK(statuses == "0.002s [MISSING_SOURCE_TOPICS,ASSIGNMENT_DELAYED]\n5.002s [MISSING_SOURCE_TOPICS]\n30.002s []\n");
  const std::string t = tasks_timeline(x.r);
  CHECK(t.rfind("30.", 0) == 0);  // nothing is assigned before the topic exists
  CHECK(x.r.resources == std::vector<std::string>{"0_0", "0_1", "0_2", "0_3"});  // the most partitions among its sources
  CHECK(x.m.final_assignment.at("A").size() + x.m.final_assignment.at("B").size() == 4);
  CHECK_FALSE(x.m.violation);
}

// The coordinator compares the source topics' counts at every heartbeat
// (one walk of the topology's topics, the cluster's and the recorded ones):
// a topic among others the topology does not read grows, then one it reads.
TEST_CASE("streams: a source topic's new partition count starts a group epoch; a topic it does not read does not") {
  auto run_with = [](const std::string& events) {
    return testing::run(R"(
name: streams-metadata
duration: 2m
protocol: streams
topics: [{name: A, partitions: 2}, {name: B, partitions: 2}, {name: C, partitions: 2}, {name: D, partitions: 2}, {name: E, partitions: 2}]
topology: {subtopologies: [{id: "0", source: [E, A, C]}]}
members: [{id: m1}, {id: m2}]
events: [)" + events + "]\n");
  };
  const auto quiet = run_with("");
  const auto unread = run_with("{at: 30s, add-partitions: {topic: D, count: 6}}");
  const auto read = run_with("{at: 30s, add-partitions: {topic: C, count: 6}}");
  CHECK(unread.m.final_generation == quiet.m.final_generation);
  CHECK(read.m.final_generation == quiet.m.final_generation + 1);
  CHECK(read.r.resources.size() == 6);  // tasks: the most partitions among its sources
  CHECK(read.m.final_assignment.at("m1").size() + read.m.final_assignment.at("m2").size() == 6);
  CHECK_FALSE(read.m.violation);
}
}

TEST_SUITE("protocols") {
TEST_CASE("streams local state: the cleaner's tick at the instant the instance stops ran; a copy taken is safe from then") {
  using namespace std::chrono_literals;
  // 1 GB at 100 MB/s restores in 10.24 s; no changelog growth; a 600 s delay.
  protocols::streams::LocalState st({1ull << 30, 100ull << 20, 0}, {"0"}, 600s);
  const protocols::streams::TaskId t{"0", 1};
  const Time at0 = time_at(0s);
  st.member_alive("P", true, at0);
  st.seed("P", t);
  st.release("P", t, time_at(100s));  // stale after 700 s: the tick at 1200 s deletes it
  CHECK(st.lag("P", t, time_at(1199s)) == 0);
  CHECK(st.lag("P", t, time_at(1200s)) == 1ull << 30);
  st.member_alive("P", false, time_at(1200s));  // stops at that very tick: it ran
  CHECK(st.lag("P", t, time_at(1200s)) == 1ull << 30);
  st.member_alive("P", true, time_at(1205s));
  CHECK(st.lag("P", t, time_at(1205s)) == 1ull << 30);

  // Q's copy goes stale after 700 s too; a member takes the task at 1100 s
  // behind a restoration that ends at 1300 s: the directory is locked from
  // 1100 s, so the tick at 1200 s cannot delete it and nothing is restored.
  st.member_alive("Q", true, at0);
  st.seed("Q", t);
  st.release("Q", t, time_at(100s));
  CHECK(st.maintain("Q", t, time_at(1100s), time_at(1300s)) == time_at(1300s));
  CHECK(st.lag("Q", t, time_at(1300s)) == 0);
}

TEST_CASE("streams local state: a copy queued behind another restoration is behind by what it will read") {
  using namespace std::chrono_literals;
  // 1 GiB at 100 MiB/s restores in 10.24 s; 1 MiB/s of changelog while unmaintained.
  protocols::streams::LocalState st({1ull << 30, 100ull << 20, 1ull << 20}, {"0"}, 600s);
  const protocols::streams::TaskId none{"0", 1}, kept{"0", 2};
  st.member_alive("P", true, time_at(0s));
  st.seed("P", kept);
  st.release("P", kept, time_at(0s));  // a standby let go: 10,485,760 bytes behind at 10 s
  // A thread takes both at 10 s: the one without a copy restores first.
  CHECK(st.maintain("P", none, time_at(10s), time_at(10s)) == time_at(20240ms));
  // The kept copy restores what it was behind when taken (0.1 s): nobody
  // processes the task while it waits, so its changelog gets nothing.
  CHECK(st.maintain("P", kept, time_at(10s), time_at(20240ms)) == time_at(20340ms));
  // While it waits, it reports its own restoration, not the wait at the
  // restore rate (which would be 1,080 MB here, over any acceptable lag).
  CHECK(st.lag("P", kept, time_at(15s)) == 10'485'760);
  CHECK(st.lag("P", none, time_at(15s)) == 549'453'824);  // 5.24 s of restoring left
  // Then it restores at the rate, and is caught up at its end.
  CHECK(st.lag("P", kept, time_at(20290ms)) == 5'242'880);
  CHECK(st.lag("P", kept, time_at(20340ms)) == 0);
}

TEST_CASE("streams: the holder index answers Kafka's unreleased-task rules as the walk over every member does") {
  using namespace rsim::protocols::streams;
  const TaskId t0{"0", 0}, t1{"0", 1};
  auto member = [](std::string id, std::string process, TasksTuple assigned, TasksTuple revoking = {}) {
    MemberView m;
    m.member_id = std::move(id);
    m.process_id = std::move(process);
    m.assigned = std::move(assigned);
    m.revoking = std::move(revoking);
    return m;
  };
  // A (process p) holds 0_0 active; B (p) holds 0_1 as a standby; C (q) is revoking 0_1 active.
  const MemberView a = member("A", "p", {{t0}, {}, {}});
  const MemberView b = member("B", "p", {{}, {t1}, {}});
  const MemberView c = member("C", "q", {}, {{t1}, {}, {}});
  const MemberView d = member("D", "q", {});
  StreamsHolders h;
  for (const MemberView* m : {&a, &b, &c, &d}) h.record(m->member_id, m, nullptr, m);
  auto held = [&](const MemberView& asker, Role role, const TaskId& t) {
    return h.held_by_other(asker, &asker, RoleTask{role, t});
  };
  CHECK(held(d, Role::Active, t0));       // A holds it active, in another process
  CHECK_FALSE(held(d, Role::Standby, t0));  // a standby waits only for its own process
  CHECK(held(b, Role::Standby, t0));      // A is in B's process
  CHECK(held(a, Role::Active, t1));       // C is still revoking it active
  CHECK(held(a, Role::Standby, t1));      // B holds it in A's process
  CHECK(held(a, Role::Active, t0));  // the asker's own holding counts too, as in the walk
  // A has just released 0_0 (live), its record still lists it: that record
  // is taken out, and nobody else holds it.
  const MemberView released = member("A", "p", {});
  CHECK_FALSE(h.held_by_other(released, &a, RoleTask{Role::Active, t0}));
  // C lets go: its record is rewritten without 0_1; then the process rule alone remains.
  const MemberView c2 = member("C", "q", {});
  h.record("C", &c2, &c, &c2);
  CHECK_FALSE(held(d, Role::Active, t1));
  CHECK(held(a, Role::Active, t1));  // B, in A's process, holds it as a standby
  // B leaves (a tombstone): nothing holds 0_1 any more.
  h.record("B", nullptr, &b, nullptr);
  CHECK_FALSE(held(a, Role::Active, t1));
  // The asker's live assignment counts though its record does not yet.
  const MemberView a2 = member("A", "p", {{t0, t1}, {}, {}});
  CHECK(h.held_by_other(a2, &a, RoleTask{Role::Standby, t1}));
}
}
