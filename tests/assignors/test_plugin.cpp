// Plug-in assignors (protocols/assignors/exec.hpp): the example range plug-in
// against the built-in range, and each kind of bad answer against its message.
#include "metrics/summary.hpp"
#include "protocols/assignors/exec.hpp"
#include "protocols/assignors/range.hpp"
#include "scenarios/assignor_lists.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "tools/report/baseline.hpp"
#include "tools/report/timeline.hpp"
#include "tests/paths.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <sstream>

using namespace rsim;
using namespace rsim::protocols;

namespace {
const std::string kRange = kSource + "/tools/examples/range_assignor.py";
const std::string kBad = kSource + "/tests/plugins/bad_assignor.py";

// a and b subscribe to t0; only a to t1; a owns t0-0 and t1-0, b owns t0-1.
GroupSnapshot small_group() {
  GroupSnapshot g;
  g.topics = {{"t0", 4}, {"t1", 2}};
  MemberSubscription a, b;
  a.member_id = "a";
  a.topics = {"t0", "t1"};
  a.owned = {{Topic("t0"), 0}, {Topic("t1"), 0}};
  b.member_id = "b";
  b.instance_id = "i-b";
  b.topics = {"t0"};
  b.owned = {{Topic("t0"), 1}};
  g.members = {a, b};
  g.generation = 7;
  return g;
}

std::string failure(const std::string& mode, bool cooperative = false, int timeout_ms = 10000) {
  const ExecAssignor plugin(ExecSettings{{"python3", kBad, mode}, std::chrono::milliseconds(timeout_ms)},
                            AssignorSide::ClientLeader, cooperative ? "cooperative" : "eager", cooperative);
  try {
    (void)plugin.assign(small_group());
  } catch (const PluginError& e) {
    return e.what();
  }
  return "no error";
}

std::string contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos ? part : text;
}

// A bundled scenario under `protocol` with `assignor`, or the range plug-in.
scenario::RunResult run_with(const scenario::Scenario& s, const std::string& protocol, bool plugin) {
  scenario::RunOptions o;
  o.protocol = protocol;
  o.assignor = plugin ? "exec" : "range";
  if (plugin) o.assignor_exec = scenario::AssignorExec{{"python3", kRange}};
  return scenario::run(s, o);
}

// Members' and upgrades' assignor lists (the classic upgrade path) apply
// only to the scenario's own assignor: a run under another one, a plug-in
// included, does not take that path, so the runs differ by design.
bool lists_assignors(const scenario::Scenario& s) {
  for (const auto& m : s.members)
    if (!m.assignors.empty()) return true;
  for (const auto& ev : s.events) {
    if (const auto* u = std::get_if<scenario::Upgrade>(&ev.action); u != nullptr && scenario::classic_upgrade(u->to)) return true;
    if (const auto* u = std::get_if<scenario::RollingUpgrade>(&ev.action); u != nullptr && scenario::classic_upgrade(u->to)) return true;
  }
  return false;
}

std::string jsonl(const scenario::RunResult& r) {
  std::ostringstream out;
  report::write_jsonl_timeline(out, r.trace.events());
  return out.str();
}
}  // namespace

TEST_SUITE("assignors") {
TEST_CASE("plugin: the example range plug-in answers as the built-in range does, static members first") {
  const GroupSnapshot g = small_group();
  const ExecAssignor plugin(ExecSettings{{"python3", kRange}}, AssignorSide::ClientLeader, "eager", false);
  CHECK(plugin.assign(g) == RangeAssignor().assign(g));
  CHECK(plugin.assign(g).at("b") == std::vector<TopicPartition>{{Topic("t0"), 0}, {Topic("t0"), 1}});  // i-b sorts first
}

TEST_CASE("plugin: the request is the snapshot with the side, the protocol and the generation") {
  const std::string line = plugin_request(small_group(), AssignorSide::ConsumerGroup, "consumer");
  CHECK(line.find("\"side\":\"consumer-group\",\"protocol\":\"consumer\",\"generation\":7") != std::string::npos);
  CHECK(line.find("{\"id\":\"b\",\"topics\":[\"t0\"],\"owned\":{\"t0\":[1]},\"generation\":-1,\"instance-id\":\"i-b\"}") !=
        std::string::npos);
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("plugin: each kind of bad answer stops the rebalance with its own message") {
  const std::string head = "assignor plugin 'python3 " + kBad;
  CHECK(failure("not-json").rfind(head, 0) == 0);
  CHECK(contains(failure("not-json"), "eager rebalance of generation 7 (request 1): the answer is not JSON: 'this is not json'") ==
        "eager rebalance of generation 7 (request 1): the answer is not JSON: 'this is not json'");
  CHECK(contains(failure("not-object"), "the answer is not a JSON object") == "the answer is not a JSON object");
  CHECK(contains(failure("refuse"), "the plugin answered an error: cannot assign this group") ==
        "the plugin answered an error: cannot assign this group");
  CHECK(contains(failure("unknown-member"), "names member 'ghost', which is not in the group") ==
        "names member 'ghost', which is not in the group");
  CHECK(contains(failure("twice"), "partition t0-0 is assigned twice (to 'a' and 'b')") ==
        "partition t0-0 is assigned twice (to 'a' and 'b')");
  CHECK(contains(failure("missing"), "partitions are not assigned to anyone: t0-0, t0-1, t0-2, t0-3, t1-0, ... (6 in all)") ==
        "partitions are not assigned to anyone: t0-0, t0-1, t0-2, t0-3, t1-0, ... (6 in all)");
  CHECK(contains(failure("unsubscribed"), "member 'b' is given partitions of topic 't1', which it does not subscribe to") ==
        "member 'b' is given partitions of topic 't1', which it does not subscribe to");
  CHECK(contains(failure("no-such-partition"), "is given partition 4 of topic 't0', which has partitions 0..3") ==
        "is given partition 4 of topic 't0', which has partitions 0..3");
  CHECK(contains(failure("crash"), "the plugin process was killed by signal 9") == "the plugin process was killed by signal 9");
  CHECK(contains(failure("exit"), "the plugin process exited with status 3 without answering") ==
        "the plugin process exited with status 3 without answering");
  CHECK(contains(failure("hang", false, 300), "no answer within 300 ms (wall clock)") == "no answer within 300 ms (wall clock)");
}

TEST_CASE("plugin: a refusal is a PluginRefusal (a vector expecting an error passes on it)") {
  const ExecAssignor plugin(ExecSettings{{"python3", kBad, "refuse"}}, AssignorSide::ClientLeader, "eager", false);
  CHECK_THROWS_AS((void)plugin.assign(small_group()), PluginRefusal);
}

TEST_CASE("plugin: under a cooperative protocol an owner revokes first; withholding its partition is fine") {
  CHECK(contains(failure("transfer", true), "partition t0-0 goes straight from 'a' to 'b'") ==
        "partition t0-0 goes straight from 'a' to 'b'");
  const GroupSnapshot g = small_group();
  // b gives up t0-1 (withheld from a this round); everything else assigned.
  const auto a = plugin_answer(R"({"assignment": {"a": {"t0": [0, 2], "t1": [0, 1]}, "b": {"t0": [3]}}})", g, true);
  CHECK(a.at("b") == std::vector<TopicPartition>{{Topic("t0"), 3}});
  CHECK_THROWS_WITH_AS(plugin_answer(R"({"assignment": {"a": {"t0": [0, 2], "t1": [0, 1]}, "b": {"t0": [3]}}})", g, false),
                       doctest::Contains("t0-1"), PluginError);
}

TEST_CASE("plugin: a command that cannot start is an error, not a hang") {
  const ExecAssignor plugin(ExecSettings{{"/nonexistent/assignor"}}, AssignorSide::ClientLeader, "eager", false);
  CHECK_THROWS_WITH_AS((void)plugin.assign(small_group()), doctest::Contains("cannot start '/nonexistent/assignor'"), PluginError);
}

TEST_CASE("plugin: the example range plug-in gets the built-in range's metrics and timeline on every bundled scenario") {
  int runs = 0;
  for (const char* dir : {"/scenarios", "/scenarios/seed"})
    for (const auto& entry : std::filesystem::directory_iterator(kSource + dir)) {
      if (entry.path().extension() != ".yaml") continue;
      const auto s = scenario::load_file(entry.path().string());
      for (const std::string protocol : {"eager", "consumer"}) {
        if (protocol == "eager" && lists_assignors(s)) continue;
        CAPTURE(entry.path().filename().string());
        CAPTURE(protocol);
        const auto built_in = run_with(s, protocol, false), plugin = run_with(s, protocol, true);
        CHECK(report::baseline_metrics(metrics::summarize(s, plugin)) == report::baseline_metrics(metrics::summarize(s, built_in)));
        std::string timeline = jsonl(plugin);
        const auto name = timeline.find("\"assignor\":\"exec\"");
        REQUIRE(name != std::string::npos);
        timeline.replace(name, 17, "\"assignor\":\"range\"");
        CHECK(timeline == jsonl(built_in));
        ++runs;
      }
    }
  CHECK(runs == 21);  // 11 scenarios, one of them upgrading its members' assignor lists
}
}
