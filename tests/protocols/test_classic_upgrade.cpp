// The classic upgrade path Kafka documents (KIP-429, "Upgrading to
// cooperative"), on a group of two: a first rolling bounce to
// [cooperative-sticky, range], a second to [cooperative-sticky].
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>

using namespace rsim;

namespace {

const char* kTwoBounces = R"(
name: two-bounces
duration: 150s
protocol: eager
assignor: range
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}
network: {latency: 1ms}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events:
  - {at: 10s, rolling-upgrade: all, to: cooperative, assignors: [cooperative-sticky, range], down: 1s, interval: 20s}
  - {at: 70s, rolling-upgrade: all, to: cooperative, assignors: [cooperative-sticky], down: 1s, interval: 20s}
)";

std::string upgrade_lines(const scenario::RunResult& r) {
  std::string out;
  for (const auto& ev : r.trace.events()) {
    static const std::set<std::string> kinds{"generation", "protocol-changed", "joined", "revoking", "assigned", "leave", "start"};
    if (kinds.count(ev.kind) == 0) continue;
    if (ev.kind == "joined" && ev.text("assignor") == nullptr) continue;
    const auto* rs = ev.list("resources");
    if (ev.kind == "assigned" && rs != nullptr && rs->empty()) continue;
    std::string line = fmt::format("{} {} {}", format_time(ev.at), ev.actor, ev.kind);
    if (auto g = ev.integer("generation"); g && ev.kind != "joined") line += fmt::format(" g{}", *g);
    if (const auto* a = ev.text("assignor")) line += " " + *a + "/" + *ev.text("rebalance-protocol");
    if (const auto* from = ev.text("from"); from && ev.kind == "protocol-changed") line += " " + *from + "->" + *ev.text("to");
    if (rs != nullptr) line += fmt::format(" [{}]", fmt::join(*rs, ","));
    out += line + "\n";
  }
  return out;
}

// The assignor each member's `joined` event names, in order, in a group of
// these members (an eager group on range, one rebalance).
std::vector<std::string> selected_assignors(const std::string& members) {
  const std::string text = "name: vote\nduration: 30s\nprotocol: eager\nassignor: range\nnetwork: {latency: 1ms}\n"
                           "topics: [{name: T, partitions: 4}]\nmembers:\n" + members;
  const auto r = scenario::run(scenario::load_text(text, "vote.yaml"));
  std::vector<std::string> out;
  for (const auto& ev : r.trace.events())
    if (ev.kind == "joined") out.push_back(*ev.text("assignor"));
  return out;
}

}  // namespace

TEST_SUITE("protocols") {
// Hand-checked against Kafka's rules (ConsumerCoordinator, ClassicGroup):
// - 10 s, first bounce, A restarts as [cooperative-sticky, range]: its
//   client is eager (range supports nothing else). B still lists only range,
//   so the candidates are {range}: generation 2 runs range and B, eager,
//   revokes everything before it rejoins (12.002 s).
// - 30 s, B restarts with the same list: A (eager) revokes everything;
//   the group of A alone now votes cooperative-sticky (protocol-changed),
//   and when B is back (generation 4) both clients are still eager: A again
//   revokes all four partitions, nothing is withheld (nobody owns anything).
// - 70 s, second bounce, A restarts as [cooperative-sticky]: a cooperative
//   client. B is still eager and revokes everything for generation 5.
// - 90 s, B restarts as [cooperative-sticky]: A, cooperative, revokes
//   nothing when B leaves (generation 6 gives it all), and when B is back
//   (generation 7) revokes only what moves, T-2 and T-3, which the
//   follow-up generation 8 hands to B.
TEST_CASE("eager to cooperative in two rolling bounces (KIP-429)") {
  const auto s = scenario::load_text(kTwoBounces, "two-bounces.yaml");
  const auto r = scenario::run(s);
  const std::vector<std::string> want{
      "0.000s coordinator generation g1",
      "0.000s A start",
      "0.000s A assigned g1 [T-0,T-1]",
      "0.000s B start",
      "0.000s B assigned g1 [T-2,T-3]",
      "10.000s A leave",
      "10.000s A revoking [T-0,T-1]",
      "11.000s A start",
      "12.002s B revoking [T-2,T-3]",
      "12.003s coordinator generation g2",
      "12.004s A joined range/eager",
      "12.006s B assigned g2 [T-2,T-3]",
      "12.006s A assigned g2 [T-0,T-1]",
      "30.000s B leave",
      "30.000s B revoking [T-2,T-3]",
      "30.008s A revoking [T-0,T-1]",
      "30.009s coordinator protocol-changed range->cooperative-sticky",
      "30.009s coordinator generation g3",
      "30.010s A joined cooperative-sticky/eager",
      "30.012s A assigned g3 [T-0,T-1,T-2,T-3]",
      "31.000s B start",
      "33.014s A revoking [T-0,T-1,T-2,T-3]",
      "33.015s coordinator generation g4",
      "33.016s A joined cooperative-sticky/eager",
      "33.016s B joined cooperative-sticky/eager",
      "33.018s A assigned g4 [T-0,T-2]",
      "33.018s B assigned g4 [T-1,T-3]",
      "70.000s A leave",
      "70.000s A revoking [T-0,T-2]",
      "71.000s A start",
      "72.020s B revoking [T-1,T-3]",
      "72.021s coordinator generation g5",
      "72.022s B joined cooperative-sticky/eager",
      "72.022s A joined cooperative-sticky/cooperative",
      "72.024s B assigned g5 [T-1,T-3]",
      "72.024s A assigned g5 [T-0,T-2]",
      "90.000s B leave",
      "90.000s B revoking [T-1,T-3]",
      "90.027s coordinator generation g6",
      "90.028s A joined cooperative-sticky/cooperative",
      "90.030s A assigned g6 [T-1,T-3]",
      "91.000s B start",
      "93.033s coordinator generation g7",
      "93.034s A joined cooperative-sticky/cooperative",
      "93.034s B joined cooperative-sticky/cooperative",
      "93.036s A revoking [T-2,T-3]",
      "96.039s coordinator generation g8",
      "96.040s A joined cooperative-sticky/cooperative",
      "96.040s B joined cooperative-sticky/cooperative",
      "96.042s B assigned g8 [T-2,T-3]"};
  CHECK(upgrade_lines(r) == testing::joined(want));
  const auto m = metrics::summarize(s, r);
  CHECK_FALSE(m.violation);
  CHECK(m.final_generation == 8);
  CHECK(m.final_assignment == std::map<std::string, std::vector<std::string>>{{"A", {"T-0", "T-1"}}, {"B", {"T-2", "T-3"}}});
}

// The same group under another variant: the lists are the scenario's own
// variant's, so with --protocol cooperative every member runs
// cooperative-sticky and an upgrade is a clean restart.
TEST_CASE("a classic upgrade under another variant is a restart") {
  const auto s = scenario::load_text(kTwoBounces, "two-bounces.yaml");
  scenario::RunOptions o;
  o.protocol = "cooperative";
  const auto r = scenario::run(s, o);
  for (const auto& ev : r.trace.events()) {
    CHECK(ev.text("rebalance-protocol") == nullptr);
    CHECK(ev.kind != "protocol-changed");
  }
  CHECK_FALSE(metrics::summarize(s, r).violation);
}

// ClassicGroup.selectProtocol: each member votes for its first assignor
// every member lists; the most votes win.
TEST_CASE("the group runs the assignor its members vote for") {
  const char* kVote = R"(  - {id: A, subscribe: [T], assignors: [roundrobin, range]}
  - {id: B, subscribe: [T], assignors: [range, roundrobin]}
  - {id: C, subscribe: [T], assignors: [roundrobin, cooperative-sticky, range]}
)";
  // Two votes of three; the clients are eager (range supports nothing else).
  CHECK(selected_assignors(kVote) == std::vector<std::string>{"roundrobin", "roundrobin", "roundrobin"});
}

// A tie goes to the first name in the vote HashMap's iteration order:
// "range" hashes to bucket 9 of 16, "cooperative-sticky" to 15.
TEST_CASE("a tied vote goes to the first assignor in Java's HashMap order") {
  const char* kTie = R"(  - {id: A, subscribe: [T], assignors: [cooperative-sticky, range]}
  - {id: B, subscribe: [T], assignors: [range, cooperative-sticky]}
)";
  CHECK(selected_assignors(kTie) == std::vector<std::string>{"range", "range"});
}

// config partition.assignment.strategy: the list of every member and
// joining member without its own.
TEST_CASE("config partition.assignment.strategy is every member's list") {
  const auto s = scenario::load_text(R"(
name: cfg
duration: 3m
protocol: eager
config: {partition.assignment.strategy: [cooperative-sticky, range]}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T], assignors: [range]}]
events: [{at: 1m, join: C, subscribe: [T]}]
)", "cfg.yaml");
  CHECK(s.members[0].assignors == std::vector<std::string>{"cooperative-sticky", "range"});
  CHECK(s.members[1].assignors == std::vector<std::string>{"range"});
  CHECK(std::get<scenario::Join>(s.events[0].action).member.assignors == s.members[0].assignors);
  CHECK(s.config.count("partition.assignment.strategy") == 0);  // not a scalar config value
  CHECK_FALSE(metrics::summarize(s, scenario::run(s)).violation);
}

// What the loader refuses, the coordinator refuses too (a scenario built in
// code skips the loader): a member whose assignors no member of the group
// lists gets INCONSISTENT_GROUP_PROTOCOL, fatal to the consumer.
TEST_CASE("a JoinGroup with no assignor in common is refused INCONSISTENT_GROUP_PROTOCOL") {
  auto s = scenario::load_text(R"(
name: inconsistent
duration: 1m
protocol: eager
network: {latency: 1ms}
topics: [{name: T, partitions: 2}]
members: [{id: A, subscribe: [T], assignors: [range]}, {id: B, subscribe: [T], start: 20s, assignors: [range]}]
)", "inconsistent.yaml");
  s.members[1].assignors = {"cooperative-sticky"};
  const auto r = scenario::run(s);
  int fatal = 0;
  for (const auto& ev : r.trace.events())
    if (ev.kind == "fatal") {
      ++fatal;
      CHECK(ev.actor == "B");
      CHECK(*ev.text("reason") == "INCONSISTENT_GROUP_PROTOCOL");
    }
  CHECK(fatal == 1);
  const auto m = metrics::summarize(s, r);
  CHECK(m.final_assignment == std::map<std::string, std::vector<std::string>>{{"A", {"T-0", "T-1"}}});
}

// GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin: a
// static member back in a Stable group rebalances it only if its assignors
// change the group's selected one. A comes back listing [cooperative-sticky,
// range] while B lists range only: still range, no rebalance. B's return
// makes the vote cooperative-sticky: a rebalance.
TEST_CASE("a static member's return rebalances a Stable group only if the selected assignor changes") {
  const auto s = scenario::load_text(R"(
name: static
duration: 2m
protocol: eager
network: {latency: 1ms}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T], instance-id: a}, {id: B, subscribe: [T], instance-id: b}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events:
  - {at: 10s, rolling-upgrade: all, to: cooperative, assignors: [cooperative-sticky, range], down: 1s, interval: 20s}
)", "static.yaml");
  const auto r = scenario::run(s);
  std::vector<std::string> got;
  for (const auto& ev : r.trace.events())
    if (ev.actor == "coordinator" && (ev.kind == "state" || ev.kind == "protocol-changed"))
      got.push_back(fmt::format("{} {} {}", format_time(ev.at), ev.kind, ev.kind == "state" ? *ev.text("reason") : *ev.text("to")));
  CHECK(got == std::vector<std::string>{
                   "31.001s state static member B-2 changes the group's selected protocol",
                   "32.007s protocol-changed cooperative-sticky",
                   "32.007s state generation 2 formed",
                   "32.009s state leader A-1 sent the assignment",
               });
  CHECK_FALSE(metrics::summarize(s, r).violation);
}
}
