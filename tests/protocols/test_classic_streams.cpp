// Kafka Streams over the classic protocol: the leader's spreading of a
// client's tasks over its threads (the facts StreamsPartitionAssignorTest
// asserts of assignTasksToThreads, Kafka 3.8.0), and exact timelines of a
// probing rebalance promoting a caught-up warm-up and of a standby taking
// over after a crash.
#include "protocols/streams/classic_leader.hpp"
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

using namespace rsim;
namespace st = protocols::streams;

namespace {

st::TaskId task(const char* text) { return *st::parse_task(text); }

std::vector<st::TaskId> tasks(std::initializer_list<const char*> names) {
  std::vector<st::TaskId> out;
  for (const char* n : names) out.push_back(task(n));
  return out;
}

bool contains_all(std::vector<st::TaskId> a, std::vector<st::TaskId> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return std::includes(a.begin(), a.end(), b.begin(), b.end());
}

bool same(std::vector<st::TaskId> a, std::vector<st::TaskId> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

// Every previous task reported as running (LATEST_OFFSET): by lag they tie,
// so each thread's previous tasks come in task order.
st::PreviousTasks previous(std::map<std::string, std::vector<st::TaskId>> prev) {
  return [prev = std::move(prev)](const std::string& c) {
    auto it = prev.find(c);
    if (it == prev.end()) return std::vector<st::TaskId>{};
    auto out = it->second;
    std::sort(out.begin(), out.end(), [](const st::TaskId& a, const st::TaskId& b) {
      return st::ha::KafkaTaskOrder::compare(a, b) < 0;
    });
    return out;
  };
}

const std::vector<st::TaskId> kEight = tasks({"0_0", "0_1", "0_2", "0_3", "1_0", "1_1", "1_2", "1_3"});
const std::map<std::string, std::vector<st::TaskId>> kBefore{
    {"consumer1", tasks({"0_0", "1_1", "1_3"})},
    {"consumer2", tasks({"0_3", "1_0"})},
    {"consumer3", tasks({"0_1", "0_2", "1_2"})}};

}  // namespace

TEST_SUITE("protocols") {
TEST_CASE("classic streams threads: nothing changed, every thread keeps its tasks") {
  std::map<std::string, int> load;
  const auto a = st::assign_tasks_to_threads(kEight, true, {"consumer1", "consumer2", "consumer3"}, previous(kBefore), load);
  for (const auto& [c, before] : kBefore) CHECK(same(a.at(c), before));
  CHECK(load == std::map<std::string, int>{{"consumer1", 3}, {"consumer2", 2}, {"consumer3", 3}});
}

TEST_CASE("classic streams threads: a new task goes to the thread below its share, nothing else moves") {
  auto all = kEight;
  all.push_back(task("2_0"));
  std::map<std::string, int> load;
  const auto a = st::assign_tasks_to_threads(all, true, {"consumer1", "consumer2", "consumer3"}, previous(kBefore), load);
  CHECK(same(a.at("consumer1"), kBefore.at("consumer1")));
  CHECK(same(a.at("consumer2"), tasks({"0_3", "1_0", "2_0"})));
  CHECK(same(a.at("consumer3"), kBefore.at("consumer3")));
}

TEST_CASE("classic streams threads: a thread leaves; the others keep theirs and share its tasks") {
  std::map<std::string, int> load;
  const auto a = st::assign_tasks_to_threads(kEight, true, {"consumer1", "consumer2"}, previous(kBefore), load);
  CHECK(contains_all(a.at("consumer1"), kBefore.at("consumer1")));
  CHECK(contains_all(a.at("consumer2"), kBefore.at("consumer2")));
  CHECK(a.at("consumer1").size() == 4);
  CHECK(a.at("consumer2").size() == 4);
}

TEST_CASE("classic streams threads: a thread joins; one task each from the threads above the share") {
  std::map<std::string, int> load;
  const auto a = st::assign_tasks_to_threads(kEight, true, {"consumer1", "consumer2", "consumer3", "consumer4"},
                                             previous(kBefore), load);
  CHECK(contains_all(kBefore.at("consumer1"), a.at("consumer1")));
  CHECK(contains_all(kBefore.at("consumer3"), a.at("consumer3")));
  CHECK(contains_all(a.at("consumer2"), kBefore.at("consumer2")));
  for (const char* c : {"consumer1", "consumer2", "consumer3", "consumer4"}) CHECK(a.at(c).size() == 2);
}

TEST_CASE("classic streams threads: new tasks are interleaved by sub-topology over the threads") {
  std::map<std::string, int> load;
  const auto a = st::assign_tasks_to_threads(tasks({"2_1", "0_3", "1_0", "0_0", "2_0", "1_2", "0_2", "1_1", "0_1"}), true,
                                             {"consumer1", "consumer2", "consumer3"}, previous({}), load);
  CHECK(a.at("consumer1") == tasks({"0_0", "0_3", "1_2"}));
  CHECK(a.at("consumer2") == tasks({"0_1", "1_0", "2_0"}));
  CHECK(a.at("consumer3") == tasks({"0_2", "1_1", "2_1"}));
}

TEST_CASE("classic streams threads: the load carries over, so standbys even out what actives left") {
  std::map<std::string, int> load;
  st::assign_tasks_to_threads(tasks({"0_0", "0_1", "0_2"}), true, {"a", "b"}, previous({}), load);
  CHECK(load == std::map<std::string, int>{{"a", 2}, {"b", 1}});
  const auto standbys = st::assign_tasks_to_threads(tasks({"1_0"}), true, {"a", "b"}, previous({}), load);
  CHECK(standbys.at("a").empty());
  CHECK(standbys.at("b") == tasks({"1_0"}));
}
}

namespace {

// The handover, and the probing rebalances asked for.
std::string handover(const scenario::RunResult& r) {
  return testing::tasks_timeline(r, {"assigned", "revoking", "revoked", "restoring", "ready", "crash",
                                     "scheduled-rebalance", "member-removed"});
}

const char* kProbing = R"(
name: classic-probing
duration: 3m
protocol: cooperative
config: {max.warmup.replicas: 1, probing.rebalance.interval.ms: 60000}
costs: {state: 1GB, restore.rate: 100MB/s}
topics: [{name: T, partitions: 2}]
topology: {subtopologies: [{id: "0", source: [T], state: [store]}]}
members: [{id: A}]
events: [{at: 60s, join: B}]
)";

const char* kStandby = R"(
name: classic-standby
duration: 3m
protocol: eager
config: {num.standby.replicas: 1}
costs: {state: 1GB, restore.rate: 100MB/s}
topics: [{name: T, partitions: 2}]
topology: {subtopologies: [{id: "0", source: [T], state: [store]}]}
members: [{id: A}, {id: B}]
events: [{at: 60s, crash: B}]
)";

}  // namespace

// Hand-computed: 1 ms latency, group.initial.rebalance.delay.ms 3 s (6 s
// when a second member joins within it), 1 GB at 100 MB/s restores in
// 10.24 s, heartbeats every 3 s, session timeout 45 s.
TEST_SUITE("protocols") {
TEST_CASE("classic streams: a probing rebalance promotes the caught-up warm-up; cooperative hands it over in two rounds") {
  const auto x = testing::run(kProbing);
  CHECK(handover(x.r) ==
        // A alone restores both tasks, one after the other (2 x 10.24 s).
        "3.006s A assigned [0_0,0_1]\n"
        "3.006s A restoring [0_0,0_1]\n"
        "23.486s A ready [0_0,0_1]\n"
        // B joins: B is not caught up on either task, so both stay active on
        // A and B warms up one (max.warmup.replicas 1); the leader's client
        // is asked for a probing rebalance in probing.rebalance.interval.ms.
        "60.012s A scheduled-rebalance in 60s\n"
        "60.012s B assigned [] standby [0_1]\n"
        // The probing rebalance: B's copy caught up 10.24 s after 60.012 s,
        // so 0_1 goes to B; A still owns it, so B gets it as a standby
        // meanwhile and both rejoin at once (the follow-up rebalance).
        "120.018s A revoking [0_1]\n"
        "120.018s A revoked [0_1]\n"
        "120.018s B assigned [] standby [0_1]\n"
        // B takes 0_1 active, its copy caught up: nothing to restore.
        "120.022s B assigned [0_1]\n"
        "120.022s B ready [0_1]\n");
  CHECK(x.m.rebalances == 3);
  CHECK(x.m.moves == 1);
  CHECK(x.m.downtime.total == Duration{4'000});  // 0_1: revoked at 120.018 s, ready at 120.022 s
  CHECK(x.m.restoration == Duration{0});
  CHECK_FALSE(x.m.violation);
}

TEST_CASE("classic streams: after a crash the standby takes over, restoring nothing") {
  const auto x = testing::run(kStandby);
  CHECK(handover(x.r) ==
        // Each instance runs one task and keeps a standby of the other.
        "6.006s A assigned [0_0] standby [0_1]\n"
        "6.006s A restoring [0_0]\n"
        "6.006s B assigned [0_1] standby [0_0]\n"
        "6.006s B restoring [0_1]\n"
        "16.246s A ready [0_0]\n"
        "16.246s B ready [0_1]\n"
        "60.000s B crash [0_1]\n"
        // B's last heartbeat went at 57.007 s: removed 45 s later. Eager: A
        // stops its own task too, then runs both; 0_1's copy is its standby,
        // caught up.
        "102.007s coordinator member-removed\n"
        "102.008s A revoking [0_0]\n"
        "102.008s A revoked [0_0]\n"
        "102.012s A assigned [0_0,0_1]\n"
        "102.012s A ready [0_0,0_1]\n");
  CHECK(x.m.restoration == Duration{0});
  CHECK(x.m.stop_the_world == Duration{4'000});
  CHECK(x.m.downtime.max == Duration{42'012'000});  // 0_1: 60 s to 102.012 s
  CHECK_FALSE(x.m.violation);
}

// The bundled scale-out with large state, by hand: 24 tasks over 3 instances,
// then 6: 12 tasks move. A warm-up restores 10 GB at 50 MB/s in 204.8 s,
// within the 600 s probing interval, so each probing rebalance promotes the
// warm-ups of the one before and places the next: ceil(12 / max.warmup.
// replicas) rounds, the last move at 30 min + rounds x 10 min, plus for
// each round the rebalance itself (the next probe is scheduled from the
// assignment; cooperative's follow-up waits for a heartbeat, 3 s).
TEST_CASE("classic streams: a scale-out with warm-ups converges in the probing rounds the settings imply") {
  const std::string path = std::string(RSIM_SOURCE_DIR) + "/scenarios/streams/scale-out-large-state.yaml";
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const int warmups : {2, 3}) {
    std::string t = text;
    t.replace(t.find("max.warmup.replicas: 2"), 22, fmt::format("max.warmup.replicas: {}", warmups));
    for (const char* protocol : {"eager", "cooperative"}) {
      CAPTURE(warmups);
      CAPTURE(protocol);
      scenario::Scenario s = scenario::load_text(t, "scale-out-large-state.yaml");
      scenario::RunOptions o;
      o.protocol = protocol;
      const auto r = scenario::run(s, o);
      int probes = 0;
      Time last_move{};
      for (const auto& ev : r.trace.events()) {
        const std::string* reason = ev.text("reason");
        if (ev.kind == "rejoin" && reason != nullptr && *reason == "scheduled rebalance delay expired") ++probes;
        const auto* active = ev.list("resources");
        if (ev.kind == "assigned" && ev.actor.rfind("m00", 0) == 0 && active != nullptr && !active->empty()) last_move = ev.at;
      }
      const int rounds = (12 + warmups - 1) / warmups;
      CHECK(probes == rounds);
      CHECK(last_move >= time_at(std::chrono::minutes(30 + 10 * rounds)));
      CHECK(last_move < time_at(std::chrono::minutes(30 + 10 * rounds)) + rounds * std::chrono::seconds(4));
    }
  }
}
}
