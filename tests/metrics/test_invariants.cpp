// The safety and liveness checkers on hand-built traces: each rule must be
// able to fail, and Kafka's own overlaps must be told apart from violations.
#include "protocols/consumer/partitions.hpp"
#include "metrics/invariants.hpp"
#include "metrics/liveness.hpp"
#include "metrics/standing.hpp"
#include "metrics/summary.hpp"
#include "scenarios/loader.hpp"
#include "sim/random.hpp"

#include <doctest/doctest.h>
#include <fmt/ranges.h>

#include <algorithm>

using namespace rsim;
using namespace std::chrono_literals;

namespace {

struct Script {
  std::vector<TraceEvent> events;
  Script& ev(Duration t, std::string actor, std::string kind, std::vector<TraceField> fields = {}) {
    events.push_back(TraceEvent{time_at(t), std::move(actor), std::move(kind), std::move(fields)});
    return *this;
  }
  Script& owns(Duration t, const std::string& m, std::vector<std::string> rs, std::int64_t generation = 1) {
    return ev(t, m, "assigned", {{"generation", generation}, {"resources", rs}}).ev(t, m, "ready", {{"resources", rs}});
  }
  Script& removed(Duration t, const std::string& m, const std::string& reason = "session timeout expired") {
    return ev(t, "coordinator", "member-removed", {{"member", m}, {"reason", reason}});
  }
  // A run under `protocol` whose members (member, process) start at 0 s.
  Script& processes(const std::string& protocol, const std::vector<std::pair<std::string, std::string>>& members) {
    ev(0s, "scenario", "run", {{"protocol", protocol}});
    for (const auto& [m, process] : members) ev(0s, "scenario", "process", {{"member", m}, {"process", process}});
    for (const auto& [m, process] : members) ev(0s, m, "start");
    return *this;
  }
  // Given standby replicas of `tasks` (no active task).
  Script& standbys(Duration t, const std::string& m, std::vector<std::string> tasks, std::int64_t generation) {
    return ev(t, m, "assigned", {{"generation", generation}, {"resources", std::vector<std::string>{}}, {"standbys", tasks}});
  }
};

metrics::Summary check(const Script& t, metrics::InvariantRules rules = {}, Duration end = 100s) {
  return metrics::summarize(t.events, {"T-0", "T-1"}, time_at(end), Duration{0}, std::nullopt, rules);
}

metrics::InvariantRules bounded(Duration grace) {
  metrics::InvariantRules r;
  r.zombie_grace = grace;
  return r;
}


// Random traces of three members over four resources: assignments,
// releases, removals, rejoins, freezes, cuts, slow batches, revocations,
// lost messages and answers, a few events per instant, long enough that the
// checker trims its histories many times over.
std::vector<TraceEvent> random_zombie_trace(std::uint64_t seed, int events) {
  Rng rng(seed);
  const std::vector<std::string> members{"A", "B", "C"};
  const std::vector<std::string> resources{"T-0", "T-1", "T-2", "T-3"};
  auto some = [&] {
    std::vector<std::string> rs{resources[rng.below(4)]};
    if (rng.chance(0.3)) rs.push_back(resources[rng.below(4)]);
    if (rs.size() == 2 && rs[0] == rs[1]) rs.pop_back();
    return rs;
  };
  std::vector<TraceEvent> t;
  Duration at{0};
  std::int64_t generation = 1;
  for (const auto& m : members) t.push_back(TraceEvent{time_at(at), m, "start", {}});
  for (int i = 0; i < events; ++i) {
    if (rng.chance(0.6)) at += std::chrono::milliseconds(rng.between(1, 3000));
    const std::string m = members[rng.below(3)];
    const Time now = time_at(at);
    const std::int64_t us = rng.between(0, 20'000'000);
    switch (rng.below(14)) {
      case 0: case 1: case 2:
        if (rng.chance(0.2)) ++generation;
        t.push_back(TraceEvent{now, m, "assigned", {{"generation", generation}, {"resources", some()}}});
        break;
      case 3: t.push_back(TraceEvent{now, m, rng.chance(0.5) ? "revoked" : "lost", {{"resources", some()}}}); break;
      case 4: t.push_back(TraceEvent{now, m, rng.chance(0.8) ? "revoking" : "crash", {}}); break;
      case 5: t.push_back(TraceEvent{now, "coordinator", "member-removed", {{"member", m}, {"reason", std::string("session timeout expired")}}}); break;
      case 6: t.push_back(TraceEvent{now, m, "joined", {}}); break;
      case 7: t.push_back(TraceEvent{now, m, rng.chance(0.5) ? "pause" : "resume", {}}); break;
      case 8: t.push_back(TraceEvent{now, m, "isolated", {{"for_us", us}}}); break;
      case 9: t.push_back(TraceEvent{now, m, "slow", {{"for_us", us}, {"batch_us", us / 3}}}); break;
      case 10: {
        static const char* kMessages[] = {"JoinGroup", "HeartbeatResponse", "SyncGroupResponse", "LeaveGroup"};
        std::string from = m, to = "coordinator";
        if (rng.chance(0.5)) std::swap(from, to);
        t.push_back(TraceEvent{now, "network", "message-lost",
                               {{"from", from}, {"to", to}, {"message", std::string(kMessages[rng.below(4)])}}});
        break;
      }
      case 11: t.push_back(TraceEvent{now, m, "heartbeat", {{"error", std::string(rng.chance(0.5) ? "NONE" : "FENCED_MEMBER_EPOCH")}}}); break;
      case 12: t.push_back(TraceEvent{now, m, "fenced", {}}); break;
      default: t.push_back(TraceEvent{now, m, "revoked", {{"resources", some()}}}); break;
    }
  }
  return t;
}

// The zombie bound as a check of the whole run at its end computes it, from
// every impairment and answer of the trace: what the checker, which checks
// as the run goes and forgets what no bound can need, must agree with.
std::vector<metrics::Finding> zombie_findings_at_end(const std::vector<TraceEvent>& trace, const metrics::Summary& s,
                                                     const metrics::InvariantRules& rules, Time end) {
  struct Interval {
    Time from;
    std::optional<Time> to;
  };
  std::map<std::string, std::map<std::string, std::vector<Interval>>> impaired;
  std::map<std::string, std::vector<Time>> answers;
  auto close = [&](const std::string& m, const std::string& what, Time at) {
    for (auto& i : impaired[m][what])
      if (!i.to) i.to = at;
  };
  for (const auto& ev : trace) {
    auto us = [&](const char* f) { return Duration{ev.integer(f).value_or(0)}; };
    if (ev.actor == "network") {
      const std::string from = *ev.text("from"), to = *ev.text("to");
      std::string request = *ev.text("message");
      if (request.ends_with("Response")) request.resize(request.size() - 8);
      if (request == "LeaveGroup") continue;
      const Duration wait = request == "JoinGroup"   ? rules.join_timeout
                            : request == "Heartbeat" ? rules.heartbeat_interval
                                                     : rules.request_timeout;
      impaired[from == "coordinator" ? to : from]["answer lost"].push_back({ev.at, ev.at + wait});
      continue;
    }
    if (ev.actor == "coordinator") continue;
    const std::string& m = ev.actor;
    if (ev.kind == "pause") impaired[m]["frozen"].push_back({ev.at, {}});
    if (ev.kind == "resume") close(m, "frozen", ev.at);
    if (ev.kind == "isolated") impaired[m]["cut"].push_back({ev.at, ev.at + us("for_us")});
    if (ev.kind == "slow") impaired[m]["slow"].push_back({ev.at, ev.at + us("for_us") + us("batch_us")});
    if (ev.kind == "revoking") impaired[m]["revoking"].push_back({ev.at, {}});
    if (ev.kind == "revoked" || ev.kind == "lost" || ev.kind == "crash") close(m, "revoking", ev.at);
    if (ev.kind == "crash") close(m, "frozen", ev.at);
    const std::string* error = ev.text("error");
    if (ev.kind == "assigned" || ev.kind == "fenced" || (ev.kind == "heartbeat" && *error != "NONE"))
      answers[m].push_back(ev.at);
  }
  std::vector<metrics::Finding> out;
  for (const auto& z : s.zombies) {
    Time notice = z.from;
    for (Time before = Time::min(); before != notice && notice != Time::max();) {
      before = notice;
      for (const auto& [what, intervals] : impaired[z.holder])
        for (const auto& i : intervals)
          if (i.from <= before) notice = i.to ? std::max(notice, *i.to) : Time::max();
    }
    if (notice == Time::max()) continue;
    Time deadline = notice + *rules.zombie_grace;
    const auto& a = answers[z.holder];
    if (const auto next = std::lower_bound(a.begin(), a.end(), z.from); next != a.end())
      deadline = std::max(deadline, *next + rules.revoke_allowance);
    if (z.to.value_or(end) <= deadline || end <= deadline) continue;
    out.push_back({"zombie", deadline, "", {z.holder, z.newcomer}});
  }
  return out;
}
}  // namespace

TEST_SUITE("metrics") {
TEST_CASE("invariants: a resource given to a second member in good standing is a violation") {
  Script t;
  t.ev(0s, "A", "start").ev(0s, "B", "start").owns(1s, "A", {"T-0"}).owns(5s, "B", {"T-0"});
  const auto m = check(t);
  REQUIRE(m.violation);
  CHECK(m.violation->invariant == "double-ownership");
  CHECK(m.violation->at == time_at(5s));
  CHECK(m.violation->members == std::vector<std::string>{"A", "B"});
}

TEST_CASE("ownership: what a member holds is exact through many give-and-let-go rounds") {
  // A is given 200 resources and lets go of 190 (its list of what it was
  // given is then compacted), is given two back, and a release by a member
  // that does not hold them changes nothing.
  std::vector<std::string> all, most;
  for (int i = 0; i < 200; ++i) all.push_back(fmt::format("R-{}", i));
  most.assign(all.begin(), all.begin() + 190);
  metrics::Ownership o;
  int moves = 0;
  o.on_move([&](Time, const std::string&, const std::string&, const std::string&) { ++moves; });
  auto ev = [](Duration t, std::string actor, std::string kind, std::vector<std::string> rs) {
    return TraceEvent{time_at(t), std::move(actor), std::move(kind), {{"resources", rs}}};
  };
  o.apply(ev(1s, "A", "assigned", all));
  o.apply(ev(2s, "A", "revoked", most));
  o.apply(ev(3s, "B", "revoked", all));
  o.apply(ev(4s, "A", "assigned", {"R-5", "R-0", "R-199"}));
  std::vector<std::string> want{"R-0", "R-5"};
  for (int i = 190; i < 200; ++i) want.push_back(fmt::format("R-{}", i));
  std::sort(want.begin(), want.end());
  const auto held = o.held_by("A");
  CHECK(std::vector<std::string>(held.begin(), held.end()) == want);
  CHECK(o.by_member().at("A") == std::set<std::string>(want.begin(), want.end()));
  CHECK(o.owners("R-5") == std::vector<Name>{"A"});
  CHECK(o.owners("R-6").empty());
  CHECK(o.holds_any("A"));
  CHECK_FALSE(o.holds_any("B"));
  o.apply(ev(5s, "B", "assigned", {"R-6"}));
  CHECK(moves == 1);  // R-6 passed from its last owner, A, to B
  o.apply(TraceEvent{time_at(6s), "A", "crash", {}});
  CHECK(o.held_by("A").empty());
  CHECK_FALSE(o.holds_any("A"));
  CHECK(o.owners("R-195").empty());
  CHECK(o.by_member().count("A") == 0);
  o.apply(ev(7s, "B", "assigned", {"R-195"}));
  CHECK(o.owners("R-195") == std::vector<Name>{"B"});
  CHECK(moves == 2);
}

TEST_CASE("invariants: a Streams process holding an active and a standby of one task is a violation") {
  Script t;
  t.processes("streams", {{"A1", "p"}, {"A2", "p"}, {"B", "q"}});
  t.owns(1s, "A1", {"T-0"});
  // A standby of it on another process, and on this one once released: fine.
  t.standbys(2s, "B", {"T-0"}, 1);
  t.ev(3s, "A1", "revoked", {{"resources", std::vector<std::string>{"T-0"}}});
  t.standbys(4s, "A2", {"T-0"}, 2);
  CHECK_FALSE(check(t).violation);
  // The same process taking it active while its other thread has the standby.
  t.owns(5s, "A1", {"T-0"}, 2);
  const auto m = check(t);
  REQUIRE(m.violation);
  CHECK(m.violation->invariant == "process-copies");
  CHECK(m.violation->at == time_at(5s));
  CHECK(m.violation->members == std::vector<std::string>{"A2", "A1"});
  // Over the classic protocol the state directory's lock, not the
  // coordinator, keeps the copies apart: not checked there.
  Script classic;
  classic.processes("cooperative", {{"A1", "p"}, {"A2", "p"}});
  classic.standbys(1s, "A2", {"T-0"}, 1);
  classic.owns(2s, "A1", {"T-0"});
  CHECK_FALSE(check(classic).violation);
}

TEST_CASE("invariants: a crashed Streams thread's copies are gone; a copy it held before crashing is not") {
  Script t;
  t.processes("streams", {{"A1", "p"}, {"A2", "p"}});
  t.ev(1s, "A2", "assigned", {{"generation", std::int64_t{1}}, {"resources", std::vector<std::string>{"T-0", "T-1"}}});
  t.ev(2s, "A2", "crash");
  t.owns(3s, "A1", {"T-0"}, 2);
  CHECK_FALSE(check(t).violation);
  // Back with a standby of T-1 while A1 takes it active: a copy.
  t.standbys(4s, "A2", {"T-1"}, 3);
  t.owns(5s, "A1", {"T-1"}, 4);
  const auto m = check(t);
  REQUIRE(m.violation);
  CHECK(m.violation->invariant == "process-copies");
  CHECK(m.violation->at == time_at(5s));
  CHECK(m.violation->members == std::vector<std::string>{"A2", "A1"});
}

TEST_CASE("invariants: a coordinator whose state its records log does not replay to is a violation") {
  Script t;
  t.ev(0s, "A", "start").owns(1s, "A", {"T-0", "T-1"}).ev(10s, "coordinator", "failover");
  CHECK_FALSE(check(t).violation);
  t.ev(10s, "coordinator", "records-divergence");
  const auto m = check(t);
  REQUIRE(m.violation);
  CHECK(m.violation->invariant == "records");
  CHECK(m.violation->at == time_at(10s));
}

// The check itself: the replacement of a static member that wrote no target
// record for its new member id (seed 8529's bug, planted here as a log
// without that record) replays to another group.
TEST_CASE("invariants: a log missing a record replays to another group") {
  namespace c = protocols::consumer;
  c::GroupImage live;
  live.group_epoch = live.target_epoch = 2;
  c::MemberView m;
  m.member_id = "x-5";
  m.client_id = "x";
  m.epoch = 2;
  m.previous_epoch = 0;
  m.assigned = {{"T", 1}};
  live.members["x-5"] = m;
  live.target["x-5"] = {{"T", 1}};
  c::MemberMetadata meta;
  meta.member_id = "x-5";
  meta.client_id = "x";
  std::vector<c::Record> log{protocols::epoch::GroupEpochRecord<c::Partitions>{2, {}},
                             protocols::epoch::MemberMetadataRecord<c::Partitions>{meta},
                             protocols::epoch::TargetEpochRecord{2},
                             protocols::epoch::CurrentAssignmentRecord<c::Partitions>{"x-5", m}};
  CHECK(protocols::epoch::image_difference(live, protocols::epoch::replay(log)) == "target of x-5");
  log.insert(log.begin() + 2, protocols::epoch::TargetAssignmentRecord<c::Partitions>{"x-5", {{"T", 1}}});
  CHECK(protocols::epoch::image_difference(live, protocols::epoch::replay(log)).empty());
  // An empty target needs no record.
  live.target["y-6"] = {};
  CHECK(protocols::epoch::image_difference(live, protocols::epoch::replay(log)).empty());
}

TEST_CASE("invariants: a zombie ends within its bound, or it is a violation") {
  // A is removed at 10 s and T-0 given to B at 12 s. A lets go at 20 s: 8 s
  // after the handover, inside a 10 s grace; at 30 s it is 18 s, outside.
  auto trace = [](Duration released) {
    Script t;
    t.ev(0s, "A", "start").ev(0s, "B", "start").owns(1s, "A", {"T-0"}).removed(10s, "A").owns(12s, "B", {"T-0"});
    t.ev(released, "A", "lost", {{"resources", std::vector<std::string>{"T-0"}}});
    return t;
  };
  const auto within = check(trace(20s), bounded(10s));
  CHECK_FALSE(within.violation);
  REQUIRE(within.zombies.size() == 1);
  CHECK(within.zombies[0].cause == "removed");
  const auto beyond = check(trace(30s), bounded(10s));
  REQUIRE(beyond.violation);
  CHECK(beyond.violation->invariant == "zombie");
  CHECK(beyond.violation->at == time_at(22s));
  // A freeze delays when A can notice: frozen 11-25 s, the bound is 25 + 10 s.
  Script frozen = trace(30s);
  frozen.events.insert(frozen.events.begin() + 5, TraceEvent{time_at(11s), "A", "pause", {}});
  frozen.events.push_back(TraceEvent{time_at(25s), "A", "resume", {}});
  CHECK_FALSE(check(frozen, bounded(10s)).violation);
  // A zombie that never ends is caught once the run passes its bound.
  Script forever;
  forever.ev(0s, "A", "start").ev(0s, "B", "start").owns(1s, "A", {"T-0"}).removed(10s, "A").owns(12s, "B", {"T-0"});
  const auto never = check(forever, bounded(10s));
  REQUIRE(never.violation);
  CHECK(never.violation->invariant == "zombie");
}

TEST_CASE("invariants: a zombie whose requests were lost notices when its wait for the answer ends") {
  // A is removed at 10 s and T-0 given to B at 12 s; A lets go at 90 s.
  // With nothing lost that is far beyond a 10 s grace. A JoinGroup of A's
  // lost at 9 s is noticed at its timeout (50 s), and the one sent then,
  // lost at 50 s, at 90 s: the bound is 90 + 10 s. A lost heartbeat only
  // waits for the next one.
  auto trace = [](std::vector<std::pair<Duration, std::string>> lost) {
    Script t;
    t.ev(0s, "A", "start").ev(0s, "B", "start").owns(1s, "A", {"T-0"});
    for (const auto& [at, message] : lost)
      t.ev(at, "network", "message-lost",
           {{"from", std::string("A")}, {"to", std::string("coordinator")}, {"message", message},
            {"reason", std::string("drop")}});
    t.removed(10s, "A").owns(12s, "B", {"T-0"});
    t.ev(90s, "A", "lost", {{"resources", std::vector<std::string>{"T-0"}}});
    return t;
  };
  metrics::InvariantRules rules = bounded(10s);
  rules.join_timeout = 41s;
  rules.request_timeout = 30s;
  rules.heartbeat_interval = 3s;
  CHECK(check(trace({}), rules).violation);
  CHECK_FALSE(check(trace({{9s, "JoinGroup"}, {50s, "JoinGroup"}}), rules).violation);
  // One loss alone covers only one wait: 50 + 10 s.
  REQUIRE(check(trace({{9s, "JoinGroup"}}), rules).violation);
  CHECK(check(trace({{9s, "JoinGroup"}}), rules).violation->at == time_at(60s));
  // A lost heartbeat answer: the next heartbeat goes out 3 s later.
  REQUIRE(check(trace({{9s, "HeartbeatResponse"}}), rules).violation);
  CHECK(check(trace({{9s, "HeartbeatResponse"}}), rules).violation->at == time_at(22s));
}

TEST_CASE("invariants: a static member never sends LeaveGroup; an eager member owns nothing when it joins") {
  Script leave;
  leave.ev(0s, "A", "start").owns(1s, "A", {"T-0"}).removed(10s, "A", "left the group");
  metrics::InvariantRules rules;
  rules.static_members = {"A"};
  const auto s = check(leave, rules);
  REQUIRE(s.violation);
  CHECK(s.violation->invariant == "static-leave");
  CHECK_FALSE(check(leave).violation);  // a dynamic member may leave

  Script join;
  join.ev(0s, "A", "start").owns(1s, "A", {"T-0"}).ev(5s, "A", "join");
  rules = {};
  rules.eager = true;
  const auto e = check(join, rules);
  REQUIRE(e.violation);
  CHECK(e.violation->invariant == "eager-join");
  CHECK_FALSE(check(join).violation);  // a cooperative member keeps what it owns
}

TEST_CASE("invariants: generations only grow; one formed again after a failover reloaded its predecessor is Kafka's") {
  auto generation = [](Script& t, Duration at, std::int64_t g) { t.ev(at, "coordinator", "generation", {{"generation", g}}); };
  Script back;
  generation(back, 1s, 1);
  generation(back, 2s, 2);
  generation(back, 3s, 2);
  REQUIRE(check(back).violation);
  CHECK(check(back).violation->invariant == "generation");

  Script reissued;  // 2 formed, not synced; the new coordinator loads 1; 2 forms again
  generation(reissued, 1s, 1);
  reissued.ev(1s, "coordinator", "stable", {{"generation", std::int64_t{1}}});
  generation(reissued, 2s, 2);
  reissued.ev(3s, "coordinator", "loaded", {{"generation", std::int64_t{1}}});
  generation(reissued, 4s, 2);
  const auto m = check(reissued);
  CHECK_FALSE(m.violation);
  CHECK(m.generations_reissued == 1);

  Script lost;  // a new coordinator must not load a generation older than a completed one
  generation(lost, 1s, 1);
  generation(lost, 2s, 2);
  lost.ev(2s, "coordinator", "stable", {{"generation", std::int64_t{2}}});
  lost.ev(3s, "coordinator", "loaded", {{"generation", std::int64_t{1}}});
  REQUIRE(check(lost).violation);
  CHECK(check(lost).violation->invariant == "generation");

  Script member;  // one process given an older epoch than before
  member.ev(0s, "A", "start").owns(1s, "A", {"T-0"}, 3).owns(2s, "A", {"T-1"}, 2);
  REQUIRE(check(member).violation);
  CHECK(check(member).violation->invariant == "member-epoch");

  Script restarted;  // a new process of the member starts its epochs again
  restarted.ev(0s, "A", "start").owns(1s, "A", {"T-0"}, 3).ev(2s, "A", "start").owns(3s, "A", {"T-1"}, 1);
  const auto r = check(restarted);
  CHECK(std::none_of(r.findings.begin(), r.findings.end(), [](const auto& f) { return f.invariant == "member-epoch"; }));
  restarted.owns(4s, "A", {"T-2"}, 0);  // and within the new process, an older epoch is one
  const auto again = check(restarted);
  CHECK(std::count_if(again.findings.begin(), again.findings.end(), [](const auto& f) { return f.invariant == "member-epoch"; }) == 1);

  // A join without a member id is a new membership: a group replaced
  // meanwhile (empty, deleted, created again) starts its epochs again.
  auto epoch_findings = [&](const Script& sc) {
    const auto f = check(sc).findings;
    return std::count_if(f.begin(), f.end(), [](const auto& x) { return x.invariant == "member-epoch"; });
  };
  Script rejoined;
  rejoined.ev(0s, "A", "start").owns(1s, "A", {"T-0"}, 24);
  rejoined.ev(2s, "A", "join", {{"member-id", std::string()}}).owns(3s, "A", {"T-1"}, 8);
  CHECK(epoch_findings(rejoined) == 0);
  rejoined.owns(4s, "A", {"T-2"}, 7);  // within the new membership, an older epoch is one
  CHECK(epoch_findings(rejoined) == 1);
  Script same_membership;  // a join with its member id goes on with its epochs
  same_membership.ev(0s, "A", "start").owns(1s, "A", {"T-0"}, 24);
  same_membership.ev(2s, "A", "join", {{"member-id", std::string("A-1")}}).owns(3s, "A", {"T-1"}, 8);
  CHECK(epoch_findings(same_membership) == 1);
}

TEST_CASE("invariants: Kafka's overlaps are zombies with their cause, not violations") {
  // Not rejoined: B, a static member kept over generation 2 without joining
  // it, still holds T-0 when A is given it in generation 2.
  Script kept;
  kept.ev(0s, "A", "start").ev(0s, "B", "start");
  kept.ev(1s, "B", "joined", {{"member-id", std::string("B-1")}, {"generation", std::int64_t{1}}, {"leader", std::string("B-1")}});
  kept.ev(1s, "A", "joined", {{"member-id", std::string("A-1")}, {"generation", std::int64_t{1}}, {"leader", std::string("B-1")}});
  kept.owns(1s, "B", {"T-0"}, 1);
  kept.ev(9s, "A", "joined", {{"member-id", std::string("A-1")}, {"generation", std::int64_t{2}}, {"leader", std::string("A-1")}});
  kept.owns(9s, "A", {"T-0"}, 2);
  const auto k = check(kept);
  CHECK_FALSE(k.violation);
  REQUIRE(k.zombies.size() == 1);
  CHECK(k.zombies[0].cause == "not rejoined");
  // The same with A having joined generation 2 and B too: a violation.
  Script both = kept;
  both.events.insert(both.events.end() - 2, TraceEvent{time_at(9s), "B", "joined",
                                                      {{"member-id", std::string("B-1")}, {"generation", std::int64_t{2}},
                                                       {"leader", std::string("A-1")}}});
  CHECK(check(both).violation);

  // Conversion: the converted group took B to own only T-1; T-0, which B was
  // still revoking, is given to A at once (ConsumerGroup.fromClassicGroup).
  Script converted;
  converted.ev(0s, "A", "start").ev(0s, "B", "start").owns(1s, "B", {"T-0", "T-1"});
  converted.ev(5s, "B", "revoking", {{"resources", std::vector<std::string>{"T-0"}}});
  converted.ev(5s, "coordinator", "conversion-assignment", {{"member", std::string("B")}, {"resources", std::vector<std::string>{"T-1"}}});
  converted.ev(5s, "coordinator", "converted", {{"from", std::string("classic")}, {"epoch", std::int64_t{1}}});
  converted.owns(6s, "A", {"T-0"}, 2);
  const auto c = check(converted);
  CHECK_FALSE(c.violation);
  REQUIRE(c.zombies.size() == 1);
  CHECK(c.zombies[0].cause == "conversion");
}

TEST_CASE("invariants: a static member kept without rejoining learns from a completed generation or an answer that tells it") {
  // B, static, kept over generation 2 without joining it, still holds T-0,
  // given to A in generation 2 at 9 s (completed at 9 s); B never lets go.
  // From 10 s on the group rebalances again and B's heartbeats are answered
  // REBALANCE_IN_PROGRESS: a cooperative member rejoins and keeps what it
  // owns, so that tells it nothing.
  auto storm = [] {
    Script t;
    t.ev(0s, "A", "start").ev(0s, "B", "start");
    t.ev(1s, "B", "joined", {{"member-id", std::string("B-1")}, {"generation", std::int64_t{1}}, {"leader", std::string("B-1")}});
    t.ev(1s, "A", "joined", {{"member-id", std::string("A-1")}, {"generation", std::int64_t{1}}, {"leader", std::string("B-1")}});
    t.owns(1s, "B", {"T-0"}, 1);
    t.ev(9s, "coordinator", "stable", {{"generation", std::int64_t{2}}});
    t.ev(9s, "A", "joined", {{"member-id", std::string("A-1")}, {"generation", std::int64_t{2}}, {"leader", std::string("A-1")}});
    t.owns(9s, "A", {"T-0"}, 2);
    for (auto at = 10s; at < 60s; at += 5s) t.ev(at, "B", "heartbeat", {{"error", std::string("REBALANCE_IN_PROGRESS")}});
    return t;
  };
  // No generation completes after the overlap began: B cannot learn.
  const auto stormy = check(storm(), bounded(10s));
  CHECK_FALSE(stormy.violation);
  REQUIRE(stormy.zombies.size() == 1);
  CHECK(stormy.zombies[0].cause == "not rejoined");
  // Generation 3 completes at 30 s: B could have had its assignment then.
  Script completed = storm();
  completed.ev(30s, "coordinator", "stable", {{"generation", std::int64_t{3}}});
  const auto late = check(completed, bounded(10s));
  REQUIRE(late.violation);
  CHECK(late.violation->invariant == "zombie");
  CHECK(late.violation->at == time_at(40s));
  // Fenced at 20 s (UNKNOWN_MEMBER_ID tells it it is out): bound 20 + 10 s.
  Script fenced = storm();
  fenced.ev(20s, "B", "heartbeat", {{"error", std::string("UNKNOWN_MEMBER_ID")}});
  std::stable_sort(fenced.events.begin(), fenced.events.end(), [](const TraceEvent& a, const TraceEvent& b) { return a.at < b.at; });
  const auto told = check(fenced, bounded(10s));
  REQUIRE(told.violation);
  CHECK(told.violation->at == time_at(30s));
  // A removed member learns from its heartbeats whatever the group does.
  Script removed = storm();
  removed.events.insert(removed.events.begin() + 5, TraceEvent{time_at(5s), "coordinator", "member-removed",
                                                               {{"member", std::string("B")},
                                                                {"reason", std::string("session timeout expired")}}});
  const auto gone = check(removed, bounded(10s));
  REQUIRE(gone.violation);
  CHECK(gone.violation->at == time_at(19s));
}

TEST_CASE("invariants: a KIP-848 member taking what its heartbeat did not list, after a later epoch gave it away, is a zombie") {
  // A, still reconciling epoch 7 (T-0), listed what it owned without T-0;
  // the coordinator released T-0 and gave it to B at epoch 9. Either order
  // of A taking it and B being given it is Kafka's overlap.
  auto unlisted = [](std::int64_t generation) {
    return std::vector<TraceField>{{"generation", generation}, {"resources", std::vector<std::string>{"T-0"}},
                                   {"unlisted", std::int64_t{1}}};
  };
  auto zombie_cause = [](const Script& sc) {
    const auto k = check(sc, bounded(10s));
    REQUIRE_FALSE(k.violation);
    REQUIRE(k.zombies.size() == 1);
    CHECK(k.zombies[0].holder == "A");
    CHECK(k.zombies[0].to == time_at(20s));
    return k.zombies[0].cause;
  };
  Script late;  // B first, then A
  late.ev(0s, "A", "start").ev(0s, "B", "start").owns(10s, "B", {"T-0"}, 9);
  late.ev(12s, "A", "assigned", unlisted(7)).ev(20s, "A", "lost", {{"resources", std::vector<std::string>{"T-0"}}});
  CHECK(zombie_cause(late) == "stale epoch");
  Script early;  // A first, then B
  early.ev(0s, "A", "start").ev(0s, "B", "start").ev(8s, "A", "assigned", unlisted(7)).owns(10s, "B", {"T-0"}, 9);
  early.ev(20s, "A", "lost", {{"resources", std::vector<std::string>{"T-0"}}});
  CHECK(zombie_cause(early) == "stale epoch");

  // Still violations: A listed T-0 (no mark), or B was given T-0 at an epoch
  // no later than A's assignment (the coordinator gave it out twice).
  Script listed;
  listed.ev(0s, "A", "start").ev(0s, "B", "start").owns(10s, "B", {"T-0"}, 9).owns(12s, "A", {"T-0"}, 7);
  CHECK(check(listed).violation);
  Script same_epoch;
  same_epoch.ev(0s, "A", "start").ev(0s, "B", "start").owns(10s, "B", {"T-0"}, 7);
  same_epoch.ev(12s, "A", "assigned", unlisted(7));
  CHECK(check(same_epoch).violation);
  Script early_same;
  early_same.ev(0s, "A", "start").ev(0s, "B", "start").ev(8s, "A", "assigned", unlisted(7)).owns(10s, "B", {"T-0"}, 7);
  CHECK(check(early_same).violation);
  // A let go of T-0 and was given it again by right: the mark is gone.
  Script again;
  again.ev(0s, "A", "start").ev(0s, "B", "start").ev(8s, "A", "assigned", unlisted(7));
  again.ev(9s, "A", "revoked", {{"resources", std::vector<std::string>{"T-0"}}}).owns(9s, "A", {"T-0"}, 8);
  again.owns(10s, "B", {"T-0"}, 9);
  CHECK(check(again).violation);
  // The zombie is bounded like any other: one that never lets go is caught.
  Script forever;
  forever.ev(0s, "A", "start").ev(0s, "B", "start").owns(10s, "B", {"T-0"}, 9).ev(12s, "A", "assigned", unlisted(7));
  const auto never = check(forever, bounded(10s));
  REQUIRE(never.violation);
  CHECK(never.violation->invariant == "zombie");
}

TEST_CASE("liveness: a group that never settles after the faults is a finding; one that does is not") {
  const auto s = scenario::load_text(R"(
name: quiet
duration: 20m
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, max.poll.interval.ms: 20000, metadata.max.age.ms: 30000, request.timeout.ms: 10000}
topics: [{name: T, partitions: 2}]
members: [{id: A, subscribe: [T]}]
events: [{at: 30s, pause: A, for: 10s}]
)", "quiet.yaml");
  CHECK(metrics::quiet_start(s) == time_at(40s));
  scenario::RunResult run;
  run.protocol = "eager";
  run.resources = {"T-0", "T-1"};
  run.end = time_at(20min);
  auto& t = run.trace;
  t.emit(time_at(0s), "A", "start");
  t.emit(time_at(1s), "coordinator", "state", {{"to", std::string("Stable")}});
  t.emit(time_at(1s), "A", "assigned", {{"generation", std::int64_t{1}}, {"resources", std::vector<std::string>{"T-0"}}});
  t.emit(time_at(1s), "A", "ready", {{"resources", std::vector<std::string>{"T-0"}}});
  const auto never = metrics::check_liveness(s, run);
  REQUIRE(never.finding);
  CHECK(never.finding->invariant == "liveness");
  CHECK(never.shape == "unprocessed");
  t.emit(time_at(50s), "A", "assigned", {{"generation", std::int64_t{1}}, {"resources", std::vector<std::string>{"T-1"}}});
  t.emit(time_at(50s), "A", "ready", {{"resources", std::vector<std::string>{"T-1"}}});
  const auto settled = metrics::check_liveness(s, run);
  CHECK_FALSE(settled.finding);
  CHECK(settled.settled_at == time_at(50s));
}

TEST_CASE("liveness: a partition withheld from a static member that restarted into a Stable group is Kafka's stall") {
  // B (static) holds T-1 and joins generation 2; its process stops before
  // the generation forms; the leader moves T-1 away from B's stale claim, so
  // nobody gets it this round; B's new process replaces the old one in the
  // Stable group, gets its stored assignment without a rebalance and owns
  // nothing to revoke: nobody asks for the follow-up rebalance, in Kafka too.
  const auto s = scenario::load_text(R"(
name: stall
duration: 20m
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, max.poll.interval.ms: 20000, metadata.max.age.ms: 30000, request.timeout.ms: 10000}
topics: [{name: T, partitions: 2}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T], instance-id: i-B}]
events: [{at: 30s, restart: B, down: 10s}]
)", "stall.yaml");
  // How B lets T-1 go: its process stops (a clean stop revokes first)
  // after it joined generation 2; or, in generation 2, it revokes T-1 for
  // the leader and asks for the follow-up rebalance, whose JoinGroup is lost
  // before its process stops (or never asks: not Kafka); or it revoked T-1
  // in generation 1 and the follow-up formed generation 2 (so the leader had
  // T-1 to give).
  enum class LetGo { StopAfterJoin, RevokeThenStop, RevokeNoJoin, RevokedBefore };
  auto run_with = [&](bool replaced, LetGo how = LetGo::StopAfterJoin) {
    scenario::RunResult run;
    run.protocol = "cooperative";
    run.resources = {"T-0", "T-1"};
    run.end = time_at(20min);
    auto& t = run.trace;
    const std::vector<std::string> both{"A", "B"};
    const std::vector<std::string> t1{"T-1"};
    t.emit(time_at(0s), "A", "start");
    t.emit(time_at(0s), "B", "start");
    t.emit(time_at(1s), "coordinator", "generation",
           {{"generation", std::int64_t{1}}, {"leader", std::string("A")}, {"members", both}});
    t.emit(time_at(1s), "coordinator", "state", {{"to", std::string("Stable")}});
    t.emit(time_at(1s), "A", "assigned", {{"generation", std::int64_t{1}}, {"resources", std::vector<std::string>{"T-0"}}});
    t.emit(time_at(1s), "A", "ready", {{"resources", std::vector<std::string>{"T-0"}}});
    t.emit(time_at(1s), "B", "assigned", {{"generation", std::int64_t{1}}, {"resources", t1}});
    t.emit(time_at(1s), "B", "ready", {{"resources", t1}});
    if (how == LetGo::RevokedBefore) {
      t.emit(time_at(20s), "B", "revoking", {{"resources", t1}});
      t.emit(time_at(20s), "B", "revoked", {{"resources", t1}});
      t.emit(time_at(20s), "B", "join");
    }
    if (how == LetGo::StopAfterJoin) {
      t.emit(time_at(29s), "B", "join");
      t.emit(time_at(30s), "B", "leave");
      t.emit(time_at(30s), "B", "revoked", {{"resources", t1}});
      t.emit(time_at(30s), "B", "stopped");
    }
    t.emit(time_at(35s), "coordinator", "generation",
           {{"generation", std::int64_t{2}}, {"leader", std::string("A")}, {"members", both}});
    t.emit(time_at(35s), "coordinator", "state", {{"to", std::string("Stable")}});
    if (how == LetGo::RevokeThenStop || how == LetGo::RevokeNoJoin) {
      t.emit(time_at(36s), "B", "revoking", {{"resources", t1}});
      t.emit(time_at(36s), "B", "revoked", {{"resources", t1}});
      if (how == LetGo::RevokeThenStop) t.emit(time_at(36s), "B", "join");
      t.emit(time_at(38s), "B", "leave");
      t.emit(time_at(38s), "B", "stopped");
    }
    t.emit(time_at(40s), "B", "start");
    if (replaced) t.emit(time_at(40s), "coordinator", "member-replaced", {{"member", std::string("B")}});
    t.emit(time_at(40s), "B", "joined", {{"member-id", std::string("B-3")}, {"generation", std::int64_t{2}}});
    t.emit(time_at(40s), "B", "assigned", {{"generation", std::int64_t{2}}, {"resources", std::vector<std::string>{}}});
    return metrics::check_liveness(s, run);
  };
  const auto stall = run_with(true);
  CHECK_FALSE(stall.finding);
  CHECK(stall.stranded == std::vector<std::string>{"T-1"});
  // Without the replacement nothing excuses T-1.
  const auto lost = run_with(false);
  REQUIRE(lost.finding);
  CHECK(lost.shape == "unprocessed");
  CHECK(lost.stranded.empty());
  // The follow-up JoinGroup never came: the same stall.
  const auto follow_up_lost = run_with(true, LetGo::RevokeThenStop);
  CHECK_FALSE(follow_up_lost.finding);
  CHECK(follow_up_lost.stranded == std::vector<std::string>{"T-1"});
  CHECK(run_with(false, LetGo::RevokeThenStop).finding);
  // A member that revokes and never asks for the follow-up is not Kafka.
  CHECK(run_with(true, LetGo::RevokeNoJoin).finding);
  // The follow-up came (generation 2 formed after the revocation): the
  // leader had T-1 to give, nothing excuses it.
  const auto before = run_with(true, LetGo::RevokedBefore);
  CHECK(before.finding);
  CHECK(before.stranded.empty());
}

TEST_CASE("liveness: a topic only a static member's new process subscribes to, in a Stable group, is Kafka's stall") {
  // A (static) joins generation 1 with [T0]; it subscribes to T1 as well,
  // its process ends before the coordinator sees that, and the new process
  // replaces it in the Stable group: it gets its stored assignment without
  // a rebalance and skips the assignment as the returning leader, so nobody
  // assigns T1-0, in Kafka too. Not so when a member of the generation had
  // joined with T1, when A kept its member id (a known member's changed
  // subscription rebalances), or when a later generation formed.
  const auto s = scenario::load_text(R"(
name: stall
duration: 20m
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, max.poll.interval.ms: 20000, metadata.max.age.ms: 30000, request.timeout.ms: 10000}
topics: [{name: T0, partitions: 1}, {name: T1, partitions: 1}]
members: [{id: A, subscribe: [T0], instance-id: i-A}]
events: [{at: 30s, subscribe: A, topics: [T0, T1]}, {at: 31s, bounce: A, down: 10s}]
)", "stall.yaml");
  struct Variant {
    bool replaced = true;
    bool joined_with_t1 = false;
    std::int64_t loaded_generation = 1;  // the generation a failover's coordinator loads (0: no failover)
    bool changed_while_down = false;     // the scenario changes A's subscription while A is down
  };
  auto run_with = [&](Variant v, const std::string& protocol = "eager") {
    scenario::RunResult run;
    run.protocol = protocol;
    run.resources = {"T0-0", "T1-0"};
    run.end = time_at(20min);
    auto& t = run.trace;
    const std::vector<std::string> a{"A"};
    const std::vector<std::string> both_topics{"T0", "T1"};
    t.emit(time_at(0s), "A", "start");
    if (v.joined_with_t1) t.emit(time_at(0s), "A", "subscribe", {{"topics", both_topics}});
    t.emit(time_at(0s), "A", "join");
    t.emit(time_at(1s), "coordinator", "generation",
           {{"generation", std::int64_t{1}}, {"leader", std::string("A")}, {"members", a}});
    t.emit(time_at(1s), "coordinator", "state", {{"to", std::string("Stable")}});
    t.emit(time_at(1s), "A", "assigned", {{"generation", std::int64_t{1}}, {"resources", std::vector<std::string>{"T0-0"}}});
    t.emit(time_at(1s), "A", "ready", {{"resources", std::vector<std::string>{"T0-0"}}});
    if (!v.changed_while_down) {
      t.emit(time_at(30s), "scenario", "disruption", {{"action", std::string("subscribe")}, {"member", std::string("A")}});
      t.emit(time_at(30s), "A", "subscribe", {{"topics", both_topics}});
    }
    t.emit(time_at(31s), "A", "crash", {{"resources", std::vector<std::string>{"T0-0"}}});
    if (v.changed_while_down)
      t.emit(time_at(33s), "scenario", "disruption", {{"action", std::string("subscribe")}, {"member", std::string("A")}});
    if (v.loaded_generation != 0)
      t.emit(time_at(35s), "coordinator", "loaded", {{"generation", std::int64_t{v.loaded_generation}}, {"state", std::string("Stable")}, {"members", a}});
    t.emit(time_at(41s), "A", "start");
    t.emit(time_at(41s), "A", "join");
    if (v.replaced) t.emit(time_at(41s), "coordinator", "member-replaced", {{"member", std::string("A")}});
    t.emit(time_at(41s), "A", "joined", {{"member-id", std::string("A-2")}, {"generation", std::int64_t{1}}});
    t.emit(time_at(41s), "A", "assigned", {{"generation", std::int64_t{1}}, {"resources", std::vector<std::string>{"T0-0"}}});
    t.emit(time_at(41s), "A", "ready", {{"resources", std::vector<std::string>{"T0-0"}}});
    return metrics::check_liveness(s, run);
  };
  for (const std::string protocol : {"eager", "cooperative", "connect"}) {
    CAPTURE(protocol);
    const auto stall = run_with({}, protocol);
    CHECK_FALSE(stall.finding);
    CHECK(stall.stranded == std::vector<std::string>{"T1-0"});
    CHECK(run_with({.loaded_generation = 0}, protocol).stranded == std::vector<std::string>{"T1-0"});
    CHECK(run_with({.changed_while_down = true}, protocol).stranded == std::vector<std::string>{"T1-0"});
  }
  const auto kept = run_with({.replaced = false});
  REQUIRE(kept.finding);
  CHECK(kept.shape == "unprocessed");
  CHECK(kept.stranded.empty());
  // Generation 1's assignment was made with T1 in the subscription: T1-0
  // should be someone's.
  CHECK(run_with({.joined_with_t1 = true}).finding);
  // A new coordinator that loads another generation than the last formed.
  CHECK(run_with({.loaded_generation = 2}).finding);
  // KIP-848 groups take the new subscription at the rejoin.
  CHECK(run_with({}, "consumer").finding);
}

TEST_CASE("standing: a new coordinator's load undoes a removal it never read") {
  // A classic group removes a member at its session timeout but writes
  // nothing until the next generation: a coordinator that fails over before
  // loads the member back, in good standing (swarm seed 58672). Not a member
  // that joined a later generation than the one loaded (its id is not in
  // it), nor one the loaded group does not list.
  Trace t;
  auto joined = [&](const std::string& m, std::int64_t g) {
    t.emit(time_at(1s), m, "joined", {{"member-id", m + "-1"}, {"generation", g}});
  };
  joined("A", 1);
  joined("B", 3);
  joined("C", 1);
  for (const std::string m : {"A", "B", "C"})
    t.emit(time_at(2s), "coordinator", "member-removed", {{"member", m}, {"member-id", m + "-1"}});
  t.emit(time_at(3s), "coordinator", "loaded",
         {{"generation", std::int64_t{2}}, {"state", std::string("Stable")}, {"members", std::vector<std::string>{"A", "B"}}});
  metrics::Standing standing;
  std::vector<std::string> back;
  for (const auto& ev : t.events()) back = standing.apply(ev);
  CHECK(back == std::vector<std::string>{"A"});
  CHECK_FALSE(standing.removed("A"));
  CHECK(standing.removed("B"));
  CHECK(standing.removed("C"));
}

TEST_CASE("invariants: zombie bounds checked as the run goes agree with a check of the whole run at its end") {
  // 100 random traces of 2,000 events: the checker forgets impairments and
  // answers no bound can need any more and checks each zombie once the
  // instant it ended is over; the reference keeps everything to the end.
  metrics::InvariantRules rules = bounded(10s);
  rules.join_timeout = 41s;
  rules.request_timeout = 30s;
  rules.heartbeat_interval = 3s;
  rules.revoke_allowance = 2s;
  std::size_t zombies = 0, found = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const auto trace = random_zombie_trace(seed, 2000);
    const Time end = trace.back().at + 60s;
    const auto s = metrics::summarize(trace, {"T-0", "T-1", "T-2", "T-3"}, end, Duration{0}, std::nullopt, rules);
    const auto expected = zombie_findings_at_end(trace, s, rules, end);
    std::vector<metrics::Finding> got;
    for (const auto& f : s.findings)
      if (f.invariant == "zombie") got.push_back(f);
    zombies += s.zombies.size();
    found += expected.size();
    // In time order; among equal times, in the order the zombies began.
    auto expected_sorted = expected;
    std::stable_sort(expected_sorted.begin(), expected_sorted.end(),
                     [](const metrics::Finding& a, const metrics::Finding& b) { return a.at < b.at; });
    INFO("seed " << seed);
    REQUIRE(got.size() == expected_sorted.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].at == expected_sorted[i].at);
      CHECK(got[i].members == expected_sorted[i].members);
    }
  }
  // The traces exercise what they should: many zombies, some beyond their bound.
  CHECK(zombies > 3000);
  CHECK(found > 100);
  MESSAGE(zombies << " zombies, " << found << " beyond their bound");
}

// A member process's events carry its number in the trace (actor_slot), by
// which the checker finds what it keeps per member without looking the name
// up; events without one (read back, or built by hand) are looked up by
// name. Both give the same findings, member by member.
TEST_CASE("invariants: events numbered by actor are checked as events named by actor") {
  metrics::InvariantRules rules = bounded(10s);
  rules.join_timeout = 41s;
  rules.request_timeout = 30s;
  auto findings = [](const metrics::Summary& s) {
    std::vector<std::string> out;
    for (const auto& f : s.findings) out.push_back(fmt::format("{} {} {} {}", f.invariant, micros(f.at), f.what, fmt::join(f.members, ",")));
    return out;
  };
  // Random epochs too (the zombie traces' only grow), each member's own.
  auto with_epochs = [](std::uint64_t seed, std::vector<TraceEvent> t) {
    Rng rng(seed);
    for (auto& ev : t)
      if (ev.kind == "assigned") ev.fields[0].value = rng.between(1, 6);
    return t;
  };
  std::size_t epochs = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const auto named = with_epochs(seed, random_zombie_trace(seed, 1000));
    Trace numbering;
    auto numbered = named;
    for (auto& ev : numbered) ev.actor_slot = numbering.actor_slot(ev.actor);
    const Time end = named.back().at + 60s;
    const auto by_name = metrics::summarize(named, {"T-0", "T-1", "T-2", "T-3"}, end, Duration{0}, std::nullopt, rules);
    const auto by_slot = metrics::summarize(numbered, {"T-0", "T-1", "T-2", "T-3"}, end, Duration{0}, std::nullopt, rules);
    INFO("seed " << seed);
    CHECK(findings(by_slot) == findings(by_name));
    for (const auto& f : by_name.findings) epochs += f.invariant == "member-epoch" ? 1 : 0;
  }
  CHECK(epochs > 100);  // per-member epochs were checked, and told apart
  // Two members numbered apart are two members: B's older epoch is not A's.
  Script t;
  t.ev(0s, "A", "start").ev(0s, "B", "start").owns(1s, "A", {"T-0"}, 3).owns(2s, "B", {"T-1"}, 2);
  Trace numbering;
  for (auto& ev : t.events) ev.actor_slot = numbering.actor_slot(ev.actor);
  CHECK_FALSE(check(t).violation);
  t.owns(3s, "A", {"T-0"}, 2);
  t.events.back().actor_slot = t.events[t.events.size() - 2].actor_slot = numbering.actor_slot("A");
  REQUIRE(check(t).violation);
  CHECK(check(t).violation->what == "member A assigned at epoch 2 after epoch 3");
}
}
