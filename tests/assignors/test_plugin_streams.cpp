// Plug-ins beyond the client leader: the Streams task assignor side
// (protocols/streams/exec_task_assignor.hpp) and a plug-in in members'
// assignor lists (scenarios/assignor_lists.hpp).
#include "metrics/summary.hpp"
#include "protocols/streams/exec_task_assignor.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/snapshot.hpp"
#include "tools/report/baseline.hpp"
#include "tools/report/timeline.hpp"
#include "tests/paths.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

using namespace rsim;
using namespace rsim::protocols;
using namespace rsim::protocols::streams;

namespace {
const std::string kStickyTasks = kSource + "/tools/examples/sticky_tasks.py";
const std::string kRange = kSource + "/tools/examples/range_assignor.py";

TaskSet tasks(std::initializer_list<const char*> names) {
  TaskSet out;
  for (const char* n : names) out.insert(*parse_task(n));
  return out;
}

// Processes pa (a1, a2) and pb (b1); sub-topology 0 stateful (2 tasks), 1 stateless (1 task).
StreamsGroupSpec group() {
  StreamsGroupSpec g;
  g.num_standby_replicas = 1;
  g.members["a1"].process_id = "pa";
  g.members["a1"].current.active = tasks({"0_0"});
  g.members["a2"].process_id = "pa";
  g.members["b1"].process_id = "pb";
  g.members["b1"].instance_id = "i-b1";
  g.members["b1"].current.standby = tasks({"0_0"});
  return g;
}

TopologyDescriber topology() {
  TopologyDescriber t;
  t.subtopologies["0"] = {2, true};
  t.subtopologies["1"] = {1, false};
  return t;
}

std::string refusal(const std::string& answer) {
  try {
    (void)task_plugin_answer(answer, group(), topology());
  } catch (const PluginError& e) {
    return e.what();
  }
  return "accepted";
}

scenario::RunResult run_streams(const scenario::Scenario& s, const std::vector<std::string>& command) {
  scenario::RunOptions o;
  o.protocol = "streams";
  o.assignor = "exec";
  o.assignor_exec = scenario::AssignorExec{command};
  return scenario::run(s, o);
}

std::string jsonl(const scenario::RunResult& r) {
  std::ostringstream out;
  report::write_jsonl_timeline(out, r.trace.events());
  return out.str();
}

// A classic group whose members list the plug-in beside range; `plugin` or
// the built-in range stands in the lists.
std::string lists_scenario(const std::string& listed, const std::string& plugin = kRange) {
  return "name: lists\nduration: 2m\nprotocol: eager\n"
         "assignor: {exec: [python3, " + plugin + "]}\n"
         "topics: [{name: orders, partitions: 6}]\n"
         "members:\n"
         "  - {id: c0, subscribe: [orders], assignors: [" + listed + ", roundrobin]}\n"
         "  - {id: c1, subscribe: [orders], assignors: [" + listed + "]}\n"
         "  - {id: c2, subscribe: [orders], assignors: [sticky, " + listed + "]}\n"
         "events:\n  - {at: 30s, bounce: c1, down: 10s}\n";
}
}  // namespace

TEST_SUITE("assignors") {
TEST_CASE("streams plugin: the request is the Streams snapshot assign reads, with the side") {
  CHECK(task_plugin_request(group(), topology()) ==
        R"({"side":"streams-group","protocol":"streams","num_standby_replicas":1,)"
        R"("subtopologies":{"0":{"tasks":2,"stateful":true},"1":{"tasks":1,"stateful":false}},)"
        R"("members":[{"id":"a1","process":"pa","active":["0_0"],"standby":[]},)"
        R"({"id":"a2","process":"pa","active":[],"standby":[]},)"
        R"({"id":"b1","process":"pb","instance_id":"i-b1","active":[],"standby":["0_0"]}]})");
}

TEST_CASE("streams plugin: a good answer is taken as given; a member left out gets nothing") {
  const auto a = task_plugin_answer(
      R"({"assignment": {"a1": {"active": ["0_0", "1_0"]}, "b1": {"active": ["0_1"], "standby": ["0_0"]}}})", group(), topology());
  CHECK(a.at("a1").active == tasks({"0_0", "1_0"}));
  CHECK(a.at("a2").empty());
  CHECK(a.at("b1").standby == tasks({"0_0"}));
}

TEST_CASE("streams plugin: each kind of bad answer has its own message") {
  CHECK(refusal("nope") == "the answer is not JSON: 'nope'");
  CHECK(refusal("[1]") == "the answer is not a JSON object: [1]");
  CHECK(refusal(R"({"error": "no"})") == "the plugin answered an error: no");
  CHECK(refusal(R"({"assign": {}})").find("the answer has no \"assignment\" object") == 0);
  CHECK(refusal(R"({"assignment": {"zz": {}}})") == "the answer names member 'zz', which is not in the group");
  CHECK(refusal(R"({"assignment": {"a1": {"active": ["x"]}}})") ==
        "member 'a1': active task \"x\" is not a task name (SUBTOPOLOGY_PARTITION, e.g. \"0_1\")");
  CHECK(refusal(R"({"assignment": {"a1": {"active": "0_0"}}})") == "member 'a1': \"active\" is not a list of tasks: \"0_0\"");
  CHECK(refusal(R"({"assignment": {"a1": {"leader": []}}})") == "member 'a1': unknown role \"leader\" (expected active and standby)");
  CHECK(refusal(R"({"assignment": {"a1": {"warmup": ["0_0"]}}})").find("member 'a1' is given warm-up tasks") == 0);
  // Every task active once: missing, twice, unknown.
  CHECK(refusal(R"({"assignment": {"a1": {"active": ["0_0", "1_0"]}}})") == "0_1 is active on 0 members");
  CHECK(refusal(R"({"assignment": {"a1": {"active": ["0_0", "0_1", "1_0"]}, "b1": {"active": ["0_1"]}}})") ==
        "0_1 is active on 2 members");
  CHECK(refusal(R"({"assignment": {"a1": {"active": ["0_0", "0_1", "1_0", "2_0"]}}})") ==
        "2_0 is assigned but is no task of the topology");
  // Copies: never two on one process, only of stateful tasks.
  CHECK(refusal(R"({"assignment": {"a1": {"active": ["0_0", "0_1", "1_0"]}, "a2": {"standby": ["0_0"]}}})") ==
        "process pa holds 0_0 twice");
  CHECK(refusal(R"({"assignment": {"a1": {"active": ["0_0", "0_1", "1_0"]}, "b1": {"standby": ["1_0"]}}})") ==
        "1_0 is stateless: it has no state to keep a standby or warm-up copy of");
}

TEST_CASE("streams plugin: the example on the assign snapshot keeps what it can and places a standby per stateful task") {
  const auto snapshot = scenario::load_streams_snapshot_file(kSource + "/tests/snapshots/streams-standby.json");
  const ExecTaskAssignor plugin(std::make_shared<PluginSession>(ExecSettings{{"python3", kStickyTasks}}));
  const auto a = plugin.assign(snapshot.group, snapshot.topology);
  // 5 tasks over 4 members: capacity 2; a1, a2, b1 keep theirs, c1 takes 1_1;
  // 0_2's standby goes to the least loaded member of another process (c1).
  CHECK(a.at("a1").active == tasks({"0_0", "1_0"}));
  CHECK(a.at("a2").active == tasks({"0_2"}));
  CHECK(a.at("b1").active == tasks({"0_1"}));
  CHECK(a.at("c1").active == tasks({"1_1"}));
  CHECK(a.at("a1").standby == tasks({"0_1"}));
  CHECK(a.at("b1").standby == tasks({"0_0"}));
  CHECK(a.at("c1").standby == tasks({"0_2"}));
}

TEST_CASE("streams plugin: every bundled Streams scenario runs with the example task assignor, invariants ok") {
  int runs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/scenarios/streams")) {
    if (entry.path().extension() != ".yaml" || entry.path().stem() == "large-group") continue;  // 90,000 tasks: the sticky's job
    CAPTURE(entry.path().filename().string());
    const auto s = scenario::load_file(entry.path().string());
    const auto r = run_streams(s, {"python3", kStickyTasks});
    const auto summary = metrics::summarize(s, r);
    CHECK_FALSE(summary.violation.has_value());
    CHECK(summary.rebalances > 0);
    CHECK(jsonl(r).find("\"assignor\":\"exec\"") != std::string::npos);
    ++runs;
  }
  CHECK(runs == 5);
}

TEST_CASE("streams plugin: a bad answer stops the run, saying when and what") {
  const auto s = scenario::load_file(kSource + "/scenarios/streams/scale-out.yaml");
  const std::string empty = "import sys\nfor line in sys.stdin:\n    print('{\"assignment\": {}}', flush=True)\n";
  try {
    (void)run_streams(s, {"python3", "-c", empty});
    FAIL("the run went on");
  } catch (const PluginError& e) {
    const std::string what = e.what();
    CHECK(what.rfind("at ", 0) == 0);
    CHECK(what.find("(simulated): assignor plugin 'python3 -c") != std::string::npos);
    CHECK(what.find("streams task assignment for 3 member(s) (request 1): 0_0 is active on 0 members") != std::string::npos);
  }
}

TEST_CASE("plugin in assignor lists: exec stands in members' lists as its name; range_assignor.py there is range") {
  const auto with_plugin = scenario::load_text(lists_scenario("exec"), "lists.yaml");
  // The same group with the built-in range where the lists name exec: the
  // vote picks the one assignor every member lists, so the runs are alike.
  const auto with_range = scenario::load_text(lists_scenario("range"), "lists.yaml");
  scenario::RunOptions o;
  const auto a = scenario::run(with_plugin, o), b = scenario::run(with_range, o);
  CHECK(report::baseline_metrics(metrics::summarize(with_plugin, a)) == report::baseline_metrics(metrics::summarize(with_range, b)));
  // The lists' plug-in is the one asked: one that refuses stops the run.
  const auto refusing = scenario::load_text(lists_scenario("exec", kSource + "/tests/plugins/bad_assignor.py, refuse"), "lists.yaml");
  CHECK_THROWS_WITH_AS((void)scenario::run(refusing, o), doctest::Contains("the plugin answered an error: cannot assign this group"),
                       PluginRefusal);
}

TEST_CASE("plugin in assignor lists: supported-protocols decides the client's rebalance protocol") {
  auto scenario_text = [](const std::string& supported, const std::string& to) {
    return "name: coop\nduration: 2m\nprotocol: eager\n"
           "assignor: {exec: [python3, " + kRange + "]" + supported + "}\n"
           "topics: [{name: orders, partitions: 4}]\n"
           "members:\n  - {id: c0, subscribe: [orders]}\n"
           "events:\n  - {at: 30s, upgrade: [c0], to: " + to + ", assignors: [exec], down: 1s}\n";
  };
  auto refusal = [](const std::string& text) {
    try {
      (void)scenario::load_text(text, "coop.yaml");
    } catch (const scenario::InputError& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  const std::string both = ", supported-protocols: [eager, cooperative]";
  CHECK(refusal(scenario_text(both, "cooperative")) == "loaded");
  // Kafka's default supportedProtocols() is [EAGER]: [exec] alone is an eager client.
  CHECK(refusal(scenario_text("", "cooperative")).find("needs cooperative-sticky (or a plug-in whose supported-protocols list cooperative)") !=
        std::string::npos);
  CHECK(refusal(scenario_text(both, "eager")).find("assignors [exec] make a cooperative client") != std::string::npos);
}
}
