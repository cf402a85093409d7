// Combined faults the trust issue found mishandled, each with what must
// happen (the same scenarios, under every protocol they name, are in
// tests/swarm/ for the checkers).
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

using namespace rsim;

namespace {

testing::Run swarm_file(const std::string& name, const std::string& protocol) {
  auto s = scenario::load_file(std::string(RSIM_SOURCE_DIR) + "/tests/swarm/" + name);
  scenario::RunOptions o;
  o.protocol = protocol;
  testing::Run out{s, scenario::run(s, o), {}};
  out.m = metrics::summarize(out.s, out.r);
  return out;
}

int count(const testing::Run& x, const std::string& actor, const std::string& kind) {
  return static_cast<int>(std::count_if(x.r.trace.events().begin(), x.r.trace.events().end(),
                                        [&](const TraceEvent& ev) { return ev.actor == actor && ev.kind == kind; }));
}

std::vector<std::string> texts(const testing::Run& x, const std::string& actor, const std::string& kind,
                               const std::string& field) {
  std::vector<std::string> out;
  for (const auto& ev : x.r.trace.events())
    if (ev.actor == actor && ev.kind == kind)
      if (const auto* t = ev.text(field)) out.push_back(*t);
  return out;
}

}  // namespace

TEST_SUITE("protocols") {
TEST_CASE("a crash inside a member's bounce window cancels its return") {
  for (const std::string p : {"eager", "cooperative", "consumer"}) {
    CAPTURE(p);
    const auto x = swarm_file("crash-inside-bounce.yaml", p);
    CHECK(count(x, "A", "start") == 1);  // started once, at 0 s, never again
    CHECK(x.m.final_assignment.count("A") == 0);
    CHECK_FALSE(x.m.violation);
  }
}

TEST_CASE("a new process with a running member's instance id fences the old one, once") {
  // Classic: D takes A's place and assignment at once (KIP-345); A's next
  // heartbeat is FENCED_INSTANCE_ID, fatal: A stops. No ping-pong.
  for (const std::string p : {"eager", "cooperative"}) {
    CAPTURE(p);
    const auto x = swarm_file("join-reuses-instance-id.yaml", p);
    CHECK(texts(x, "A", "fenced", "reason") == std::vector<std::string>{"FENCED_INSTANCE_ID"});
    CHECK(count(x, "coordinator", "member-replaced") == 1);
    CHECK(x.m.final_assignment.count("A") == 0);
    CHECK(x.m.final_assignment.at("D").size() + x.m.final_assignment.at("B").size() == 4);
    CHECK_FALSE(x.m.violation);
  }
  // KIP-848: both speak the consumer protocol and A has not left: D's join
  // is UNRELEASED_INSTANCE_ID, fatal for D; A keeps its partitions.
  const auto k = swarm_file("join-reuses-instance-id.yaml", "consumer");
  CHECK(texts(k, "D", "fatal", "error") == std::vector<std::string>{"UNRELEASED_INSTANCE_ID"});
  CHECK(k.m.final_assignment.count("D") == 0);
  CHECK(k.m.final_assignment.at("A").size() + k.m.final_assignment.at("B").size() == 4);
}

TEST_CASE("upgrading every member replaces the empty classic group with a new consumer group") {
  for (const std::string p : {"eager", "cooperative"}) {
    CAPTURE(p);
    const auto x = swarm_file("upgrade-every-member.yaml", p);
    bool replaced = false;
    for (const auto& ev : x.r.trace.events())
      if (ev.kind == "converted" && ev.integer("new-group") == 1 && *ev.text("from") == "classic") replaced = true;
    CHECK(replaced);
    std::size_t owned = 0;
    for (const auto& [m, rs] : x.m.final_assignment) owned += rs.size();
    CHECK(owned == 4);
    // Every member ends speaking the consumer protocol (a KIP-848 join names no leader).
    for (const std::string m : {"A", "B", "C"}) {
      const TraceEvent* last = nullptr;
      for (const auto& ev : x.r.trace.events())
        if (ev.actor == m && ev.kind == "joined") last = &ev;
      REQUIRE(last != nullptr);
      CHECK(last->find("leader") == nullptr);
    }
    CHECK_FALSE(x.m.violation);
  }
}

TEST_CASE("a consumer-protocol member heartbeating a group turned classic again is told GROUP_ID_NOT_FOUND and stops") {
  // A (upgraded) is cut off long enough to be fenced; the group, classic
  // members only, turns classic. A's next heartbeat, with its old epoch, is
  // answered GROUP_ID_NOT_FOUND: fatal for the AsyncKafkaConsumer.
  const auto x = swarm_file("downgrade-then-heartbeat.yaml", "cooperative");
  std::vector<std::string> froms;
  for (const auto& ev : x.r.trace.events())
    if (ev.kind == "converted") froms.push_back(*ev.text("from"));
  CHECK(froms == std::vector<std::string>{"classic", "consumer"});
  CHECK(texts(x, "A", "fatal", "error") == std::vector<std::string>{"GROUP_ID_NOT_FOUND"});
  CHECK(x.m.final_assignment.count("A") == 0);
  CHECK_FALSE(x.m.violation);
}

TEST_CASE("a FindCoordinator lost on the way is retried after request.timeout.ms") {
  for (const std::string p : {"eager", "consumer"}) {
    CAPTURE(p);
    const auto x = swarm_file("lost-find-coordinator.yaml", p);
    int lost_lookups = 0;
    for (const auto& ev : x.r.trace.events())
      if (ev.kind == "message-lost" && ev.text("message")->starts_with("FindCoordinator")) ++lost_lookups;
    CHECK(lost_lookups > 0);
    for (const std::string m : {"A", "B", "C"}) CHECK(count(x, m, "coordinator-found") == 1);
    CHECK_FALSE(x.m.violation);
  }
}

TEST_CASE("a failover between a generation's forming and its SyncGroup forms it again, as Kafka does") {
  const auto x = swarm_file("failover-before-sync.yaml", "eager");
  CHECK(x.m.generations_reissued == 1);
  std::vector<std::int64_t> formed;
  for (const auto& ev : x.r.trace.events())
    if (ev.actor == "coordinator" && (ev.kind == "generation" || ev.kind == "loaded")) formed.push_back(*ev.integer("generation"));
  // 2 forms at 34.5 s (latency 500 ms), the failover at 35 s loads 1, 2 forms
  // again without D (its JoinGroup was lost with the old coordinator), then 3.
  CHECK(formed == std::vector<std::int64_t>{1, 2, 1, 2, 3});
  CHECK_FALSE(x.m.violation);
}

// KIP-345: a static member's clean shutdown sends no LeaveGroup, so a restart
// within the session timeout costs no rebalance; a LeaveGroup would remove it
// and rebalance (and break the checker's static-leave rule).
TEST_CASE("static member: a clean restart within the session timeout sends no LeaveGroup and causes no rebalance") {
  const auto x = testing::run(R"(
name: static-restart
duration: 60s
config: {session.timeout.ms: 30000, heartbeat.interval.ms: 3000}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T], instance-id: a}, {id: B, subscribe: [T], instance-id: b}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events: [{at: 10s, restart: B, down: 5s}]
)");
  CHECK(count(x, "coordinator", "member-removed") == 0);
  CHECK(count(x, "coordinator", "member-replaced") == 1);
  CHECK(x.m.rebalances == 0);
  CHECK(x.m.final_generation == 1);
  CHECK(x.m.final_assignment.at("B") == std::vector<std::string>{"T-2", "T-3"});
  CHECK_FALSE(x.m.violation);
}
}
