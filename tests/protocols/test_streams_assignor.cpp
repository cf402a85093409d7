// The KIP-1071 sticky task assignor: small groups worked out by hand from
// Kafka 4.2's passes, then random groups checked against the invariants; and
// the Streams group snapshot that `assign --protocol streams` reads.
#include "protocols/streams/assignor.hpp"
#include "protocols/streams/invariants.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/snapshot.hpp"
#include "sim/random.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

using namespace rsim::protocols::streams;

namespace {

TaskSet tasks(std::initializer_list<const char*> names) {
  TaskSet out;
  for (const char* n : names) out.insert(*parse_task(n));
  return out;
}

AssignmentMemberSpec member(const std::string& process, TasksTuple current = {}) {
  AssignmentMemberSpec m;
  m.process_id = process;
  m.current = std::move(current);
  return m;
}

// Process pa with members a1 and a2, process pb with b1.
StreamsGroupSpec two_processes(int standbys) {
  StreamsGroupSpec g;
  g.num_standby_replicas = standbys;
  g.members["a1"] = member("pa");
  g.members["a2"] = member("pa");
  g.members["b1"] = member("pb");
  return g;
}

TopologyDescriber topology(int tasks, bool stateful) { return TopologyDescriber{{{"0", SubtopologyTasks{tasks, stateful}}}}; }

StreamsGroupAssignment assign_checked(const StreamsGroupSpec& g, const TopologyDescriber& t) {
  auto a = sticky_task_assign(g, t);
  const auto violations = assignment_violations(g, t, a);
  CHECK_MESSAGE(violations.empty(), (violations.empty() ? std::string() : violations.front()));
  return a;
}

}  // namespace

TEST_SUITE("protocols") {
TEST_CASE("streams sticky: previous owners keep their actives up to the quota, the rest go to the least loaded process") {
  StreamsGroupSpec g;
  g.members["m1"] = member("p1", {tasks({"0_0", "0_3"}), {}, {}});
  g.members["m2"] = member("p2", {tasks({"0_1"}), {}, {}});
  const auto a = assign_checked(g, topology(4, false));
  // quota ceil(4/2) = 2: m1 keeps both, m2 keeps 0_1 and takes the new 0_2.
  CHECK(a.at("m1").active == tasks({"0_0", "0_3"}));
  CHECK(a.at("m2").active == tasks({"0_1", "0_2"}));
}

TEST_CASE("streams sticky: over quota, the previous owner keeps the lowest partitions and the rest move") {
  StreamsGroupSpec g;
  g.members["m1"] = member("p1", {tasks({"0_0", "0_1", "0_2"}), {}, {}});
  g.members["m2"] = member("p2");
  g.members["m3"] = member("p3");
  const auto a = assign_checked(g, topology(3, false));
  CHECK(a.at("m1").active == tasks({"0_0"}));  // quota 1, partitions walked in order
  CHECK(a.at("m2").active == tasks({"0_1"}));  // ties between empty processes: by process id
  CHECK(a.at("m3").active == tasks({"0_2"}));
}

TEST_CASE("streams sticky: load is balanced over processes by tasks per member, then over a process's members") {
  const StreamsGroupSpec g = two_processes(0);
  const auto a = assign_checked(g, topology(6, false));
  // Two-member process pa ends with 4 tasks, pb with 2; within pa 2 each.
  CHECK(a.at("a1").active == tasks({"0_0", "0_3"}));
  CHECK(a.at("a2").active == tasks({"0_2", "0_5"}));
  CHECK(a.at("b1").active == tasks({"0_1", "0_4"}));
}

TEST_CASE("streams sticky: a standby never shares a process with its active, even when that process is least loaded") {
  const StreamsGroupSpec g = two_processes(1);
  const auto a = assign_checked(g, TopologyDescriber{{{"s", SubtopologyTasks{2, true}}}});
  CHECK(a.at("a1").active == tasks({"s_0"}));
  CHECK(a.at("b1").active == tasks({"s_1"}));
  CHECK(a.at("a2").standby == tasks({"s_1"}));  // pa is least loaded per member, and lacks s_1
  CHECK(a.at("b1").standby == tasks({"s_0"}));  // only pb lacks s_0
  CHECK(a.at("a1").standby.empty());
}

TEST_CASE("streams sticky: a previous standby takes the active before an empty member does") {
  StreamsGroupSpec g;
  g.members["m1"] = member("p1");
  g.members["m2"] = member("p2", {{}, tasks({"0_0"}), {}});
  const auto a = assign_checked(g, topology(2, true));
  CHECK(a.at("m2").active == tasks({"0_0"}));  // fresh, p1 would have won the tie
  CHECK(a.at("m1").active == tasks({"0_1"}));
}

TEST_CASE("streams sticky: the standby replica goes back to its previous holder, or to a warm-up holder") {
  for (const bool warmup : {false, true}) {
    CAPTURE(warmup);
    StreamsGroupSpec g;
    g.num_standby_replicas = 1;
    g.members["m1"] = member("p1", {tasks({"0_0"}), {}, {}});
    g.members["m2"] = member("p2");
    g.members["m3"] = member("p3", warmup ? TasksTuple{{}, {}, tasks({"0_0"})} : TasksTuple{{}, tasks({"0_0"}), {}});
    const auto a = assign_checked(g, topology(1, true));
    CHECK(a.at("m1").active == tasks({"0_0"}));
    CHECK(a.at("m3").standby == tasks({"0_0"}));  // m2 is as lightly loaded and first by id
    CHECK(a.at("m2").standby.empty());
  }
}

TEST_CASE("streams sticky: no standby without another process; refusals") {
  StreamsGroupSpec g;
  g.num_standby_replicas = 2;
  g.members["a1"] = member("pa");
  g.members["a2"] = member("pa");
  const auto a = assign_checked(g, topology(2, true));
  CHECK(a.at("a1").standby.empty());
  CHECK(a.at("a2").standby.empty());
  CHECK(a.at("a1").active.size() + a.at("a2").active.size() == 2);

  CHECK_THROWS_AS(sticky_task_assign(StreamsGroupSpec{}, topology(1, false)), TaskAssignorError);
  CHECK(sticky_task_assign(StreamsGroupSpec{}, topology(0, false)).empty());
  g.num_standby_replicas = -1;
  CHECK_THROWS_AS(sticky_task_assign(g, topology(1, true)), TaskAssignorError);

  // A hand-built topology's negative task count: no tasks, and a quota
  // below 0 reserves nothing (it once asked for 2^64 - 1 ints).
  StreamsGroupAssignment none;
  CHECK_NOTHROW(none = sticky_task_assign(two_processes(1), topology(-5, true)));
  CHECK(none.size() == 3);
  CHECK(none.at("a1").active.empty());
  CHECK(none.at("b1").standby.empty());
}

TEST_CASE("streams invariants: the checker catches a copy on the active's process and a missing task") {
  const StreamsGroupSpec g = two_processes(1);
  const auto t = topology(2, true);
  StreamsGroupAssignment bad{{"a1", {tasks({"0_0"}), {}, {}}}, {"a2", {{}, tasks({"0_0"}), {}}}, {"b1", {tasks({"0_1"}), {}, {}}}};
  const auto v = assignment_violations(g, t, bad);
  CHECK(std::find(v.begin(), v.end(), "process pa holds 0_0 twice") != v.end());
  CHECK(std::find(v.begin(), v.end(), "0_1 has 0 standbys, want 1") != v.end());
  bad.erase("b1");
  CHECK(std::find(v.begin(), v.end(), "0_1 is active on 0 members") == v.end());
  const auto v2 = assignment_violations(g, t, bad);
  CHECK(std::find(v2.begin(), v2.end(), "0_1 is active on 0 members") != v2.end());
  CHECK(std::find(v2.begin(), v2.end(), "member b1 has no entry") != v2.end());
}

namespace {

// A random group: 1-5 processes of 1-3 members, 1-3 sub-topologies of 0-7
// tasks, 0-2 standbys, and (half the time) a random, possibly inconsistent,
// previous assignment, as a coordinator could hold after members left.
struct RandomGroup {
  StreamsGroupSpec group;
  TopologyDescriber topology;
  bool fresh = true;
};

RandomGroup random_group(std::uint64_t seed) {
  rsim::Rng rng(seed);
  RandomGroup r;
  const int subs = static_cast<int>(rng.between(1, 3));
  for (int s = 0; s < subs; ++s)
    r.topology.subtopologies["s" + std::to_string(s)] = SubtopologyTasks{static_cast<int>(rng.between(0, 7)), rng.chance(0.5)};
  r.group.num_standby_replicas = static_cast<int>(rng.between(0, 2));
  const int processes = static_cast<int>(rng.between(1, 5));
  r.fresh = rng.chance(0.5);
  std::vector<TaskId> all;
  for (const auto& [id, sub] : r.topology.subtopologies)
    for (int p = 0; p < sub.tasks; ++p) all.push_back(TaskId{id, p});
  for (int p = 0; p < processes; ++p) {
    const int members = static_cast<int>(rng.between(1, 3));
    for (int m = 0; m < members; ++m) {
      AssignmentMemberSpec spec = member("p" + std::to_string(p));
      for (const auto& t : all) {
        if (r.fresh) break;
        const auto role = rng.below(8);
        if (role == 0) spec.current.active.insert(t);
        if (role == 1) spec.current.standby.insert(t);
        if (role == 2) spec.current.warmup.insert(t);
      }
      r.group.members["m" + std::to_string(p) + "_" + std::to_string(m)] = spec;
    }
  }
  return r;
}

std::pair<std::size_t, std::size_t> active_spread(const StreamsGroupAssignment& a) {
  std::size_t lo = SIZE_MAX, hi = 0;
  for (const auto& [id, t] : a) {
    lo = std::min(lo, t.active.size());
    hi = std::max(hi, t.active.size());
  }
  return {lo, hi};
}

}  // namespace

TEST_CASE("streams sticky: random groups keep the invariants, are deterministic, and reproduce their own output") {
  int fresh = 0, sticky = 0, second_replica_moved = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    CAPTURE(seed);
    const RandomGroup r = random_group(seed);
    const auto a = sticky_task_assign(r.group, r.topology);
    const auto violations = assignment_violations(r.group, r.topology, a);
    CHECK_MESSAGE(violations.empty(), (violations.empty() ? std::string() : violations.front()));
    CHECK(sticky_task_assign(r.group, r.topology) == a);
    if (r.fresh) {
      ++fresh;
      // Nothing to keep: actives are dealt to the least loaded process's
      // least loaded member, so member counts differ by at most one.
      const auto [lo, hi] = active_spread(a);
      CHECK(hi <= lo + 1);
    } else {
      ++sticky;
    }
    // Fed its own output from a fresh start as the current assignment, it
    // changes nothing (StickyTaskAssignorTest.shouldReturnItsOwnOutput...),
    // with up to one standby. Not in general: from an uneven previous
    // assignment the quota shrinks in a different order on the re-run; and
    // with two standbys 4.2 can move the second replica, as its pick among
    // previous standby holders gives up when the first holder's process took
    // the first replica (fixed later by KAFKA-20899).
    StreamsGroupSpec again = r.group;
    for (auto& [id, spec] : again.members) spec.current = a.at(id);
    const bool same = sticky_task_assign(again, r.topology) == a;
    if (r.fresh && r.group.num_standby_replicas <= 1) CHECK(same);
    if (r.fresh && r.group.num_standby_replicas == 2 && !same) ++second_replica_moved;
  }
  CHECK(fresh > 100);
  CHECK(sticky > 100);
  CHECK(second_replica_moved > 0);  // the 4.2 behaviour is kept, not fixed
}
}


namespace {
std::string refusal(const std::string& text) {
  try {
    (void)rsim::scenario::load_streams_snapshot_text(text, "s.json");
  } catch (const rsim::scenario::InputError& e) {
    return e.what();
  }
  return "loaded";
}
}  // namespace

TEST_SUITE("scenarios") {
TEST_CASE("streams snapshot: read as written, refused with a position when it is not a Streams group") {
  const auto s = rsim::scenario::load_streams_snapshot_text(
      R"({"num_standby_replicas": 1, "subtopologies": {"a": {"tasks": 2, "stateful": true}},
          "members": [{"id": "m2", "process": "p", "rack": "r", "standby": ["a_1"], "task_offsets": {"a_1": 7}},
                      {"id": "m1", "process": "q", "active": ["a_0"], "client_tags": {"zone": "z"}}]})",
      "s.json");
  CHECK(s.member_order == std::vector<std::string>{"m2", "m1"});
  CHECK(s.group.num_standby_replicas == 1);
  CHECK(s.topology.subtopologies.at("a").stateful);
  CHECK(s.group.members.at("m2").current.standby == tasks({"a_1"}));
  CHECK(s.group.members.at("m2").task_offsets.at(TaskId{"a", 1}) == 7);
  CHECK(s.group.members.at("m2").rack_id == "r");
  CHECK(s.group.members.at("m1").client_tags.at("zone") == "z");

  const std::string subs = R"({"subtopologies": {"a": {"tasks": 2}}, )";
  CHECK(refusal(subs + R"("num_standby_replicas": 3, "members": []})") ==
        "s.json:1:64: num_standby_replicas must be at most 2 (group.streams.max.standby.replicas)");
  CHECK(refusal(subs + R"("members": [{"id": "m"}]})") == "s.json:1:52: a member needs 'process' (its KafkaStreams instance)");
  CHECK(refusal(subs + R"("members": [{"id": "m", "process": "p", "active": ["a-1"]}]})") ==
        "s.json:1:91: 'a-1' is not a task: write SUBTOPOLOGY_PARTITION, like 0_3");
  CHECK(refusal(subs + R"("members": [{"id": "m", "process": "p", "active": ["b_0"]}]})") ==
        "s.json:1:91: task b_0: no sub-topology 'b'");
  CHECK(refusal(subs + R"("members": [{"id": "m", "process": "p"}, {"id": "m", "process": "q"}]})") ==
        "s.json:1:88: member id 'm' is used twice");
  CHECK(refusal(subs + R"("members": [{"id": "m", "process": "p", "active": ["a_0"], "standby": ["a_0"]}]})") ==
        "s.json:1:52: task a_0 is both active and standby/warm-up on one member");
  CHECK(refusal(R"({"subtopologies": {"a": {"tasks": 2, "stateful": "yes"}}, "members": []})") ==
        "s.json:1:50: stateful must be true or false");
}
}
