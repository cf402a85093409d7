// End-to-end: the rebalance-sim binary as a user runs it.
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "tools/report/timeline.hpp"

#include <nlohmann/json.hpp>

#include "tests/bundled.hpp"
#include "tests/paths.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

using namespace rsim;

namespace {

struct Result {
  int code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Result cli(const std::string& args) {
  static int n = 0;
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("rsim-cli-{}-{}", ::getpid(), n++);
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "out").string(), err = (dir / "err").string();
  const std::string cmd = fmt::format("cd '{}' && '{}' {} >'{}' 2>'{}'", kSource, kBinary, args, out, err);
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove_all(dir);
  return r;
}

std::string jsonl(const scenario::Scenario& s, std::uint64_t seed) {
  scenario::RunOptions o;
  o.seed = seed;
  const auto r = scenario::run(s, o);
  std::ostringstream out;
  report::write_jsonl_timeline(out, r.trace.events());
  return out.str();
}
}  // namespace

TEST_SUITE("cli") {
TEST_CASE("run: same scenario and seed give byte-identical JSON Lines; another seed with random latency differs") {
  const auto s = scenario::load_text(R"(
name: random-latency
duration: 90s
network: {latency: {uniform: [0.5ms, 4ms]}}
topics: [{name: T, partitions: 6}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}, {id: C, subscribe: [T], start: 2s}]
events: [{at: 30s, crash: C}]
)", "random.yaml");
  const std::string a = jsonl(s, 5), b = jsonl(s, 5), c = jsonl(s, 6);
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a.size() > 1000);
  // And through the binary, whole output included.
  const auto r1 = cli("run scenarios/quickstart.yaml --timeline jsonl --seed 3");
  const auto r2 = cli("run scenarios/quickstart.yaml --timeline jsonl --seed 3");
  CHECK(r1.code == 0);
  CHECK(r1.out == r2.out);
}

TEST_CASE("JSON Lines carry the stable field names") {
  const auto r = cli("run scenarios/quickstart.yaml --timeline jsonl");
  REQUIRE(r.code == 0);
  const std::string first = r.out.substr(0, r.out.find('\n'));
  CHECK(first == R"({"time_us":0,"actor":"scenario","event":"run","scenario":"quickstart","protocol":"eager","assignor":"range"})");
  CHECK(r.out.find(R"("actor":"coordinator","event":"generation","generation":1,"leader":"A","members":["A","B","C"]})") != std::string::npos);
}

TEST_CASE("run --format json prints the contract's summary object") {
  const auto r = cli("run scenarios/quickstart.yaml --format json");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\"scenario\": \"quickstart\"") != std::string::npos);
  CHECK(r.out.find("\"rebalances\": 2") != std::string::npos);
  CHECK(r.out.find("\"final-generation\": 3") != std::string::npos);
  CHECK(r.out.find("\"invariants\": \"ok\"") != std::string::npos);
  CHECK(r.out.find("\"final-assignment\": {") != std::string::npos);
  CHECK(r.out.find("\"ok\": true") != std::string::npos);
}

TEST_CASE("exit codes: 0 ok, 1 a failed expectation, 2 bad input or usage") {
  CHECK(cli("run scenarios/quickstart.yaml").code == 0);
  CHECK(cli("validate scenarios/quickstart.yaml").code == 0);
  CHECK(cli("list").code == 0);
  CHECK(cli("--help").code == 0);
  CHECK(cli("run --help").code == 0);

  const auto bad = cli("validate tests/bad/unknown-top-key.yaml");
  CHECK(bad.code == 2);
  CHECK(bad.err == "tests/bad/unknown-top-key.yaml:3:1: unknown key 'durration' in the scenario (did you mean 'duration'?)\n");

  // validate reports every error of a file, in file order, then a count.
  const auto many = cli("validate tests/bad/many-errors.yaml");
  CHECK(many.code == 2);
  std::vector<std::string> marks;
  std::istringstream lines(many.err);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(".yaml:");
    if (colon != std::string::npos) marks.push_back(line.substr(colon + 6, line.find(": ", colon + 6) - colon - 6));
  }
  CHECK(marks == std::vector<std::string>{"6:3", "9:41", "12:18", "15:5", "16:32", " 5 errors"});
  CHECK(many.err.rfind("tests/bad/many-errors.yaml:6:3: unknown key 'sesion.timeout.ms' in config", 0) == 0);
  CHECK(many.err.find("tests/bad/many-errors.yaml: 5 errors\n") != std::string::npos);

  const auto failing = cli("run tests/scenarios/failing-expectation.yaml");
  CHECK(failing.code == 1);
  CHECK(failing.err.find("expectation failed: rebalances want 5, got 1") != std::string::npos);

  const auto uncomputed = cli("run tests/scenarios/uncomputed-metric.yaml");
  CHECK(uncomputed.code == 2);
  CHECK(uncomputed.err.find("uncomputed-metric.yaml:7:3: metric 'lag.peak' needs the scenario's load:") != std::string::npos);

  CHECK(cli("run scenarios/quickstart.yaml --protocol bogus").code == 2);
  CHECK(cli("run scenarios/quickstart.yaml --timeline pdf").code == 2);
  CHECK(cli("run scenarios/quickstart.yaml --assignor uniform").code == 2);
  CHECK(cli("run scenarios/quickstart.yaml --format json --timeline text").code == 2);
  CHECK(cli("run no-such-file.yaml").code == 2);
  CHECK(cli("frobnicate").code == 2);
  CHECK(cli("").code == 2);
  CHECK(cli("swarm --random --scale 0 --seeds 1").code == 2);
  CHECK(cli("swarm --random --scale 51 --seeds 1").code == 2);
  const auto scaled_file = cli("swarm scenarios/quickstart.yaml --scale 2");
  CHECK(scaled_file.code == 2);
  CHECK(scaled_file.err.find("--scale is for --random") != std::string::npos);
  const auto bytes = cli("run tests/bad/invalid-utf8.yaml --format json");  // aborted in the JSON writer once
  CHECK(bytes.code == 2);
  CHECK(bytes.err == "tests/bad/invalid-utf8.yaml:3:20: not valid UTF-8: byte 0xFF\n");
  const auto unsupported = cli("run scenarios/quickstart.yaml --protocol streams");
  CHECK(unsupported.code == 2);
  CHECK(unsupported.err == "scenarios/quickstart.yaml:5:11: protocol streams needs a topology: (sub-topologies with their source topics)\n");
}

TEST_CASE("the command line forgives: --version, did-you-mean for commands and options, what a value should be") {
  const auto version = cli("--version");
  CHECK(version.code == 0);
  CHECK(version.out.rfind("rebalance-sim ", 0) == 0);
  const auto runn = cli("runn scenarios/quickstart.yaml");
  CHECK(runn.code == 2);
  CHECK(runn.err.rfind("rebalance-sim: unknown command 'runn' (did you mean 'run'?); one of: validate,", 0) == 0);
  const auto timline = cli("run scenarios/quickstart.yaml --timline text");
  CHECK(timline.code == 2);
  CHECK(timline.err.rfind("rebalance-sim: run: unknown option '--timline' (did you mean '--timeline'?)", 0) == 0);
  const auto protocol = cli("compare scenarios/quickstart.yaml --protocol eager");
  CHECK(protocol.code == 2);
  CHECK(protocol.err.find("compare: unknown option '--protocol' (did you mean '--protocols'?)") != std::string::npos);
  const auto seed = cli("run scenarios/quickstart.yaml --seed abc");
  CHECK(seed.code == 2);
  CHECK(seed.err.rfind("rebalance-sim: --seed: wants a non-negative integer, got 'abc'", 0) == 0);
  // One line, naming the option, the value and where the options are listed.
  const auto eagr = cli("run scenarios/quickstart.yaml --protocol eagr");
  CHECK(eagr.code == 2);
  CHECK(eagr.err == "rebalance-sim: --protocol: unknown protocol 'eagr' (did you mean 'eager'?); one of: eager, cooperative, "
                    "deferred, incremental, connect, consumer, streams; `rebalance-sim run --help` lists its options\n");
  const auto pdf = cli("check scenarios/quickstart.yaml --format pdf");
  CHECK(pdf.code == 2);
  CHECK(pdf.err == "rebalance-sim: --format: unknown format 'pdf'; one of: text, junit; `rebalance-sim check --help` lists its options\n");
  // A file that cannot be written names the option that asked for it.
  const auto html = cli("run scenarios/quickstart.yaml --html /nonexistent-dir/report.html");
  CHECK(html.code == 2);
  CHECK(html.err == "rebalance-sim: --html: cannot write /nonexistent-dir/report.html\n");
  const auto trace = cli("run scenarios/quickstart.yaml --trace /nonexistent-dir/trace.json");
  CHECK(trace.err == "rebalance-sim: --trace: cannot write /nonexistent-dir/trace.json\n");
}

TEST_CASE("run --timeline jsonl writes only JSON Lines to stdout (the summary goes to stderr)") {
  const auto r = cli("run scenarios/quickstart.yaml --timeline jsonl");
  CHECK(r.code == 0);
  std::istringstream in(r.out);
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) CHECK(nlohmann::json::accept(line));
  CHECK(lines > 10);
  CHECK(r.err.find("rebalances") != std::string::npos);
}

TEST_CASE("list --config prints every config key from the one table; docs/config-reference.md is its Markdown") {
  const auto text = cli("list --config");
  CHECK(text.code == 0);
  CHECK(text.out.find("group.streams.initial.rebalance.delay.ms") != std::string::npos);
  CHECK(text.out.find("scheduled.rebalance.max.delay.ms") != std::string::npos);
  const auto md = cli("list --config --format markdown");
  const std::string doc = slurp(kSource + "/docs/config-reference.md");
  const auto table = doc.find("| key | default |");
  REQUIRE(table != std::string::npos);
  CHECK(doc.substr(table) == md.out);  // regenerate: rebalance-sim list --config --format markdown
}

TEST_CASE("run --records writes the group's records as JSON lines; a classic group's none, said so") {
  const auto path = std::filesystem::temp_directory_path() / fmt::format("rsim-records-{}.jsonl", ::getpid());
  const auto r = cli(fmt::format("run scenarios/streams/scale-out.yaml --records '{}'", path.string()));
  CHECK(r.code == 0);
  const std::string text = slurp(path.string());
  CHECK(text.rfind("{\"time_us\":1000,\"batch\":0,\"offset\":0,\"record\":\"StreamsGroupMemberMetadata\",\"type\":19,", 0) == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') > 20);
  const auto classic = cli(fmt::format("run scenarios/quickstart.yaml --protocol eager --records '{}'", path.string()));
  CHECK(classic.code == 0);
  CHECK(classic.err.find("--records: the eager group wrote no records") != std::string::npos);
  std::filesystem::remove(path);
  const auto unwritable = cli("run scenarios/quickstart.yaml --records /nonexistent-dir/r.jsonl");
  CHECK(unwritable.code == 2);
  CHECK(unwritable.err.find("--records: cannot write /nonexistent-dir/r.jsonl") != std::string::npos);
}

TEST_CASE("topology prints a Streams scenario's configured topology; it runs under streams only") {
  const auto r = cli("topology tests/scenarios/streams-topology.yaml");
  CHECK(r.code == 0);
  CHECK(r.out ==
        "status CONFIGURED\n"
        "dependency order 0, 1, 2\n"
        "subtopology 2: 4 tasks 2_0 .. 2_3, stateful\n"
        "  source totals-by-region repartition 4 (enforced)\n"
        "  changelog region-totals-changelog 4\n"
        "subtopology 1: 8 tasks 1_0 .. 1_7, stateful\n"
        "  source orders-by-customer repartition 8 (derived)\n"
        "  source customers 8\n"
        "  repartition-sink totals-by-region 4 (enforced)\n"
        "  copartition [orders-by-customer, customers]\n"
        "  changelog customer-table-changelog 8\n"
        "  changelog customer-totals-changelog 8\n"
        "subtopology 0: 8 tasks 0_0 .. 0_7, stateless\n"
        "  source orders 8\n"
        "  repartition-sink orders-by-customer 8 (derived)\n"
        "tasks 20\n");
  CHECK(cli("validate tests/scenarios/streams-topology.yaml").code == 0);
  const auto run = cli("run tests/scenarios/streams-topology.yaml");
  CHECK(run.code == 0);
  CHECK(run.out.find("invariants        ok") != std::string::npos);
  // Over the classic protocol it is a classic Streams application
  // (eager, cooperative); other consumer-group protocols are refused.
  const auto eager = cli("run tests/scenarios/streams-topology.yaml --protocol eager");
  CHECK(eager.code == 0);
  CHECK(eager.out.find("invariants        ok") != std::string::npos);
  const auto deferred = cli("run tests/scenarios/streams-topology.yaml --protocol deferred");
  CHECK(deferred.code == 2);
  CHECK(deferred.err.find("runs under streams (KIP-1071) or, over the classic protocol, eager (Streams before 2.4) or cooperative (2.4 and later), not deferred") != std::string::npos);
  const auto range = cli("run tests/scenarios/streams-topology.yaml --protocol cooperative --assignor cooperative-sticky");
  CHECK(range.code == 2);
  CHECK(range.err.find("runs Streams' high-availability task assignor, not cooperative-sticky") != std::string::npos);
  // compare puts the classic baseline beside KIP-1071.
  const auto both = cli("compare scenarios/streams/crash-10gb.yaml --format csv");
  CHECK(both.code == 0);
  CHECK(both.out.find("eager/high-availability,") != std::string::npos);
  CHECK(both.out.find("cooperative/high-availability,") != std::string::npos);
  CHECK(both.out.find("streams/sticky,") != std::string::npos);
  const auto assign_ha = cli("assign --assignor high-availability tests/snapshots/two-topics.json");
  CHECK(assign_ha.code == 2);
  CHECK(assign_ha.err.find("run by a Streams application's leader over clients and tasks") != std::string::npos);
  const auto no_topology = cli("run scenarios/quickstart.yaml --protocol eager --assignor high-availability");
  CHECK(no_topology.code == 2);
  CHECK(no_topology.err.find("assignor high-availability is a Kafka Streams application's: this scenario has no topology") != std::string::npos);
  const auto cycle = cli("validate tests/bad/subtopology-cycle.yaml");
  CHECK(cycle.code == 2);
  CHECK(cycle.err.rfind("tests/bad/subtopology-cycle.yaml:7:", 0) == 0);
  const auto none = cli("topology scenarios/quickstart.yaml");
  CHECK(none.code == 2);
  CHECK(none.err == "scenarios/quickstart.yaml: the scenario has no topology: (a Streams application's sub-topologies)\n");
}

TEST_CASE("assign prints the assignment of a group snapshot as JSON") {
  const auto r = cli("assign tests/snapshots/two-topics.json");
  CHECK(r.code == 0);
  // range: static c1 sorts first; t0 splits 3/3, t1 goes to c0 alone.
  CHECK(r.out == "{\n  \"assignment\": {\n    \"c0\": {\n      \"t0\": [3, 4, 5],\n      \"t1\": [0, 1, 2]\n    },\n"
                 "    \"c1\": {\n      \"t0\": [0, 1, 2]\n    }\n  }\n}\n");
  CHECK(nlohmann::json::parse(r.out).at("assignment").at("c1").at("t0") == nlohmann::json::array({0, 1, 2}));  // still JSON
  const auto rr = cli("assign --assignor roundrobin tests/snapshots/two-topics.json");
  CHECK(rr.code == 0);
  CHECK(rr.out.find("\"c1\": {\n      \"t0\": [0, 2, 4]") != std::string::npos);
  CHECK(cli("assign --assignor sticky tests/snapshots/two-topics.json").code == 0);
  CHECK(cli("assign --assignor cooperative-sticky tests/snapshots/two-topics.json").code == 0);
  // Broker side: range gives the same as the client's here (static c1 first);
  // uniform (heterogeneous subscriptions) keeps c0's t0-0 and t0-1, gives it
  // t1 (its only subscriber) and c1 the rest of t0: 5 / 4.
  CHECK(cli("assign --protocol consumer --assignor range tests/snapshots/two-topics.json").out == r.out);
  const auto uniform = cli("assign --protocol consumer --assignor uniform tests/snapshots/two-topics.json");
  CHECK(uniform.code == 0);
  CHECK(uniform.out.find("\"c1\": {\n      \"t0\": [2, 3, 4, 5]") != std::string::npos);
  CHECK(cli("assign --protocol streams --assignor sticky tests/snapshots/two-topics.json").code == 2);
  CHECK(cli("assign --assignor nope tests/snapshots/two-topics.json").code == 2);
  const auto bad = cli("assign tests/bad/unknown-top-key.yaml");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("unknown key 'name' in a group snapshot") != std::string::npos);
  // JSON output must be UTF-8: bad bytes are refused before, not by the JSON writer.
  const auto bytes = cli("assign tests/snapshots/invalid-utf8.yaml");
  CHECK(bytes.code == 2);
  CHECK(bytes.err == "tests/snapshots/invalid-utf8.yaml:5:12: not valid UTF-8: byte 0xFF\n");
}

// The snapshot contract (scenario-format.md, "Group snapshots"): an
// assignor refusing a well-formed group answers {"error": ...} on standard
// output with exit code 1; a file that is not one is bad input, exit 2.
TEST_CASE("assign answers an assignor's refusal as {\"error\": ...} and exit 1") {
  for (const char* assignor : {"uniform", "range"}) {
    const auto r = cli(std::string("assign --protocol consumer --assignor ") + assignor + " tests/snapshots/unknown-topic.json");
    CHECK(r.code == 1);
    CHECK(r.err.empty());
    CHECK(nlohmann::json::parse(r.out) ==
          nlohmann::json{{"error", "Members are subscribed to topic gone which doesn't exist in the topic metadata."}});
  }
  // Client-side range takes what exists (as Kafka's consumer leader does).
  CHECK(cli("assign --assignor range tests/snapshots/unknown-topic.json").code == 0);
  const auto refused = cli("assign tests/snapshots/two-topics.json --assignor-exec 'python3 tests/plugins/bad_assignor.py refuse'");
  CHECK(refused.code == 1);
  const auto why = nlohmann::json::parse(refused.out).at("error").get<std::string>();
  CHECK(why.find("the plugin answered an error: cannot assign this group") != std::string::npos);
}

// Worked by hand from Kafka 4.2's passes: a1 keeps 0_0 and 1_0 and is full
// (quota 2), so its previous standby 0_1 goes to a2 on the same process; b1
// keeps 0_1 and takes back its standby 0_0; the new c1 gets the unowned 1_1
// and the standby of 0_2 (pc is the least loaded process without 0_2).
TEST_CASE("assign --protocol streams runs the sticky task assignor on a Streams group snapshot") {
  const auto r = cli("assign --protocol streams tests/snapshots/streams-standby.json");
  CHECK(r.code == 0);
  auto member = [](const char* id, const char* active, const char* standby) {
    return fmt::format("    \"{}\": {{\n      \"active\": {},\n      \"standby\": {}\n    }}", id, active, standby);
  };
  CHECK(r.out == "{\n  \"assignment\": {\n" +
                     member("a1", "[\n        \"0_0\",\n        \"1_0\"\n      ]", "[]") + ",\n" +
                     member("a2", "[\n        \"0_2\"\n      ]", "[\n        \"0_1\"\n      ]") + ",\n" +
                     member("b1", "[\n        \"0_1\"\n      ]", "[\n        \"0_0\"\n      ]") + ",\n" +
                     member("c1", "[\n        \"1_1\"\n      ]", "[\n        \"0_2\"\n      ]") + "\n  }\n}\n");
  CHECK(cli("assign --protocol streams --assignor sticky tests/snapshots/streams-standby.json").out == r.out);
  const auto unknown = cli("assign --protocol streams --assignor nope tests/snapshots/streams-standby.json");
  CHECK(unknown.code == 2);
  CHECK(unknown.err == "rebalance-sim: assign: unknown streams assignor 'nope'; one of: sticky, exec\n");
}

TEST_CASE("assign --protocol streams refuses a bad snapshot with file, line, column and exit 2") {
  const auto task = cli("assign --protocol streams tests/snapshots/bad-streams-unknown-task.json");
  CHECK(task.code == 2);
  CHECK(task.out.empty());
  CHECK(task.err == "tests/snapshots/bad-streams-unknown-task.json:4:53: task 0_7: sub-topology '0' has 2 tasks\n");
  const auto consumer = cli("assign --protocol streams tests/snapshots/two-topics.json");
  CHECK(consumer.code == 2);
  CHECK(consumer.err == "tests/snapshots/two-topics.json:2:2: unknown key 'topics' in a streams group snapshot\n");
}

TEST_CASE("vectors reports per case and fails on a wrong assignor") {
  const auto ok = cli("vectors tests/vectors/RangeAssignorTest.client.yaml tests/vectors/RoundRobinAssignorTest.yaml");
  CHECK(ok.code == 0);
  CHECK(ok.out == "vectors: 24 passed, 0 failed, 0 skipped\n");
  const auto server = cli("vectors tests/vectors/RangeAssignorTest.server.yaml");
  CHECK(server.code == 0);
  CHECK(server.out == "vectors: 9 passed, 0 failed, 0 skipped\n");
  const auto streams = cli("vectors tests/vectors/StickyTaskAssignorTest.streams.yaml");
  CHECK(streams.code == 0);
  CHECK(streams.out == "vectors: 10 passed, 0 failed, 0 skipped\n");
  const auto verbose = cli("vectors --verbose tests/vectors/StickyTaskAssignorTest.streams.yaml");
  CHECK(verbose.out.find("PASS tests/vectors/StickyTaskAssignorTest.streams.yaml idempotent-on-own-output (streams sticky): "
                         "checked property and the invariants") != std::string::npos);
  CHECK(cli("vectors tests/bad/unknown-top-key.yaml").code == 2);
}

TEST_CASE("compare runs every variant on one seed: eager stops the world on a rolling bounce, cooperative does not") {
  const auto r = cli("compare scenarios/rolling-bounce.yaml --format csv");
  REQUIRE(r.code == 0);
  std::istringstream in(r.out);
  std::string header, line;
  std::getline(in, header);
  std::map<std::string, std::string> rows;  // variant -> line
  std::vector<std::string> order;
  while (std::getline(in, line)) {
    order.push_back(line.substr(0, line.find(',')));
    rows[order.back()] = line;
  }
  CHECK(header ==
        "variant,protocol,assignor,rebalances,stop-the-world,downtime.total,downtime.max,downtime.p99,time-to-stable,"
        "lag.peak,restoration,moves,revocations,protocol-bytes,final-generation,invariants");
  // Every protocol this version runs, each with its default assignor.
  CHECK(order.size() == 6);
  CHECK(rows.count("consumer/uniform") == 1);
  CHECK(rows.count("incremental/cooperative-sticky") == 1);
  CHECK(rows.count("connect/connect") == 1);
  REQUIRE(rows.count("eager/range") == 1);
  REQUIRE(rows.count("cooperative/cooperative-sticky") == 1);
  REQUIRE(rows.count("deferred/cooperative-sticky") == 1);
  const auto field = [](const std::string& row, int n) {
    std::istringstream f(row);
    std::string v;
    for (int i = 0; i <= n; ++i) std::getline(f, v, ',');
    return std::stod(v);
  };
  const std::string& eager = rows["eager/range"];
  const std::string& cooperative = rows["cooperative/cooperative-sticky"];
  CHECK(field(eager, 4) > 10.0);                             // eager: stop-the-world, seconds
  CHECK(field(cooperative, 4) == 0.0);                       // cooperative: none
  CHECK(field(cooperative, 5) < field(eager, 5));            // and less downtime
  for (std::size_t i = 1; i < order.size(); ++i)             // ranked by downtime.total
    CHECK(field(rows[order[i - 1]], 5) <= field(rows[order[i]], 5));
  const auto json = cli("compare scenarios/rolling-bounce.yaml --format json --protocols eager --assignors range,sticky");
  CHECK(json.code == 0);
  CHECK(json.out.find("\"variant\": \"eager/sticky\"") != std::string::npos);
  CHECK(json.out.find("\"stop-the-world\": ") != std::string::npos);
  CHECK(json.out.find("\"shipped-by-kafka\": true") != std::string::npos);
  // Research designs Kafka never shipped are named under the table.
  const auto table = cli("compare scenarios/rolling-bounce.yaml --protocols eager,deferred,incremental");
  CHECK(table.out.find("\ndeferred, incremental: research designs (seed 1) Kafka never shipped; every other variant is Kafka's own\n") != std::string::npos);
  CHECK(cli("compare scenarios/rolling-bounce.yaml --protocols eager,consumer").out.find("research") == std::string::npos);
  CHECK(cli("compare scenarios/rolling-bounce.yaml --protocols streams").code == 2);
  CHECK(cli("compare scenarios/rolling-bounce.yaml --assignors nope").code == 2);
  CHECK(cli("compare scenarios/rolling-bounce.yaml --protocols cooperative --assignors range").code == 2);
}

TEST_CASE("check: an unchanged baseline passes; a worse assignor fails naming the metric") {
  const auto base = (std::filesystem::temp_directory_path() / fmt::format("rsim-baseline-{}.json", ::getpid())).string();
  const auto write = cli(fmt::format("check scenarios/rolling-bounce.yaml scenarios/quickstart.yaml --baseline '{}' --update-baseline", base));
  CHECK(write.code == 0);
  CHECK(write.out.find("wrote 2 scenario(s)") != std::string::npos);
  const auto same = cli(fmt::format("check scenarios/rolling-bounce.yaml scenarios/quickstart.yaml --baseline '{}'", base));
  CHECK(same.code == 0);
  CHECK(same.out.find("REGRESSED") == std::string::npos);
  // roundrobin spreads partitions without regard to who had them: more moves.
  const auto worse = cli(fmt::format("check scenarios/rolling-bounce.yaml --baseline '{}' --assignor roundrobin", base));
  CHECK(worse.code == 1);
  CHECK(worse.out.find("REGRESSED  moves              old       24.000  new       47.000  change      +95.83%") != std::string::npos);
  // A tolerance lets a small rise through, not a large one. The sticky
  // assignor's user data (each member's last assignment) costs 13% more
  // protocol bytes than range's.
  const auto tolerant = cli(fmt::format("check scenarios/rolling-bounce.yaml --baseline '{}' --assignor sticky "
                                        "--tolerance downtime.total=1,downtime.max=1,downtime.p99=1,stop-the-world=1,"
                                        "protocol-bytes=15", base));
  CHECK(tolerant.code == 0);
  const auto strict = cli(fmt::format("check scenarios/rolling-bounce.yaml --baseline '{}' --assignor sticky "
                                      "--tolerance downtime.total=1,downtime.max=1,downtime.p99=1,stop-the-world=1", base));
  CHECK(strict.code == 1);
  CHECK(strict.out.find("REGRESSED  protocol-bytes     old    25368.000  new    28758.000  change      +13.36%") != std::string::npos);
  CHECK(cli(fmt::format("check scenarios/rolling-bounce.yaml --baseline '{}' --tolerance downtime=5", base)).code == 2);
  CHECK(cli("check scenarios/rolling-bounce.yaml --baseline /nonexistent/b.json").code == 2);
  CHECK(cli("check tests/scenarios/failing-expectation.yaml").code == 1);
  std::filesystem::remove(base);
}

TEST_CASE("check: baselines keyed by scenario name, merged on update, with the version; junit; bad input goes on") {
  const auto base = (std::filesystem::temp_directory_path() / fmt::format("rsim-baseline-m-{}.json", ::getpid())).string();
  CHECK(cli(fmt::format("check scenarios/quickstart.yaml --baseline '{}' --update-baseline", base)).code == 0);
  // The same scenario by another path is the same entry; an update of
  // another scenario keeps it.
  CHECK(cli(fmt::format("check ./scenarios/../scenarios/quickstart.yaml --baseline '{}'", base)).code == 0);
  CHECK(cli(fmt::format("check scenarios/rolling-bounce.yaml --baseline '{}' --update-baseline", base)).code == 0);
  const auto written = nlohmann::json::parse(slurp(base));
  CHECK(written["simulator"].get<std::string>().rfind("rebalance-sim ", 0) == 0);
  CHECK(written["scenarios"].contains("quickstart"));
  CHECK(written["scenarios"].contains("rolling-bounce"));
  // A bad scenario is reported and the others still run; exit 2 at the end.
  const auto mixed = cli(fmt::format("check tests/bad/unknown-config-key.yaml scenarios/quickstart.yaml --baseline '{}'", base));
  CHECK(mixed.code == 2);
  CHECK(mixed.err.find("unknown-config-key.yaml:5:3:") != std::string::npos);
  CHECK(mixed.out.find("scenarios/quickstart.yaml (eager/range, seed 1)") != std::string::npos);
  CHECK(mixed.out.find("check: 2 scenario(s): 1 ok, 0 failed, 0 regressed, 1 bad input") != std::string::npos);
  // JUnit XML: a failure per regressed scenario.
  const auto junit = cli(fmt::format("check scenarios/rolling-bounce.yaml --baseline '{}' --assignor roundrobin --format junit", base));
  CHECK(junit.code == 1);
  CHECK(junit.out.rfind("<?xml", 0) == 0);
  CHECK(junit.out.find("<testsuite name=\"rebalance-sim check\" tests=\"1\" failures=\"1\" errors=\"0\">") != std::string::npos);
  CHECK(junit.out.find("<failure message=\"a metric regressed\">") != std::string::npos);
  // A rise from 0 is said as the amount, not as +100%.
  cli(fmt::format("check scenarios/quickstart.yaml --protocol cooperative --baseline '{}' --update-baseline", base));
  const auto from_zero = cli(fmt::format("check scenarios/quickstart.yaml --protocol eager --baseline '{}'", base));
  CHECK(from_zero.out.find("REGRESSED  stop-the-world     old        0.000  new ") != std::string::npos);
  CHECK(from_zero.out.find(" (from 0)") != std::string::npos);
  std::filesystem::remove(base);
}

// The fields trace viewers need, and slices that nest on every track.
TEST_CASE("run --trace writes a Chrome trace-event / Perfetto file") {
  const auto file = (std::filesystem::temp_directory_path() / fmt::format("rsim-trace-{}.json", ::getpid())).string();
  REQUIRE(cli(fmt::format("run scenarios/quickstart.yaml --trace '{}'", file)).code == 0);
  const auto trace = nlohmann::json::parse(slurp(file));
  std::filesystem::remove(file);
  REQUIRE(trace.contains("traceEvents"));
  std::map<std::pair<int, int>, std::vector<std::pair<std::int64_t, std::int64_t>>> slices;  // track -> [ts, end)
  std::set<std::string> processes, ownership, phases;
  int counters = 0;
  for (const auto& e : trace["traceEvents"]) {
    REQUIRE(e.contains("name"));
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("pid"));
    const std::string ph = e["ph"];
    if (ph == "M") {
      if (e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
      continue;
    }
    REQUIRE(e.contains("ts"));
    CHECK(e["ts"].get<std::int64_t>() >= 0);
    if (ph == "C") {
      ++counters;
      continue;
    }
    REQUIRE(e.contains("tid"));
    if (ph == "X") {
      REQUIRE(e.contains("dur"));
      CHECK(e["dur"].get<std::int64_t>() >= 0);
      const std::int64_t ts = e["ts"];
      slices[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(ts, ts + e["dur"].get<std::int64_t>());
      if (e["cat"] == "ownership") ownership.insert(e["name"].get<std::string>());
      if (e["cat"] == "phase") phases.insert(e["name"].get<std::string>());
    } else {
      CHECK((ph == "i" || ph == "s" || ph == "f"));  // instants and handover arrows
    }
  }
  CHECK(processes == std::set<std::string>{"coordinator", "member A", "member B", "member C", "member D"});
  CHECK(ownership.size() == 6);  // every partition was owned by someone
  CHECK(phases.count("joining") == 1);
  CHECK(phases.count("syncing") == 1);
  CHECK(phases.count("revoking") == 1);
  CHECK(phases.count("restoring") == 1);  // quickstart has an assign cost
  CHECK(phases.count("down (crashed)") == 1);
  CHECK(counters > 2);
  for (auto& [track, list] : slices) {  // on one track, slices never partly overlap
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i) CHECK(list[i].first >= list[i - 1].second);
  }
}

namespace {
nlohmann::json trace_of(const std::string& args) {
  const auto file = (std::filesystem::temp_directory_path() / fmt::format("rsim-trace-{}.json", ::getpid())).string();
  REQUIRE(cli(fmt::format("run {} --trace '{}'", args, file)).code == 0);
  auto trace = nlohmann::json::parse(slurp(file));
  std::filesystem::remove(file);
  return trace["traceEvents"];
}
}  // namespace

// quickstart: A, B, C share orders-0..5; D joins at 20 s; B crashes at 50 s.
TEST_CASE("run --trace: slice arguments, handover arrows, the scenario's events") {
  const auto events = trace_of("scenarios/quickstart.yaml");
  std::map<int, nlohmann::json> starts, finishes;  // flow id -> its two ends
  std::set<std::string> instants;
  int ownership = 0;
  for (const auto& e : events) {
    const std::string ph = e["ph"];
    if (ph == "X" && e["cat"] == "ownership") {
      ++ownership;
      CHECK(e["args"]["resource"] == e["name"]);
      CHECK(e["args"].contains("member"));
      CHECK(e["args"]["member-id"].get<std::string>().rfind(e["args"]["member"].get<std::string>() + "-", 0) == 0);
      CHECK(e["args"]["generation"].get<int>() >= 1);
    }
    if (ph == "s") starts[e["id"].get<int>()] = e;
    if (ph == "f") finishes[e["id"].get<int>()] = e;
    if (ph == "i" && e["s"] == "g") instants.insert(e["name"].get<std::string>());
  }
  CHECK(ownership > 6);
  CHECK(instants == std::set<std::string>{"join D", "crash B"});
  // Every arrow leaves one owner and reaches another, forward in time.
  REQUIRE(!starts.empty());
  CHECK(starts.size() == finishes.size());
  for (const auto& [id, s] : starts) {
    REQUIRE(finishes.count(id) == 1);
    const auto& f = finishes[id];
    CHECK(s["name"] == f["name"]);
    CHECK(s["ts"].get<std::int64_t>() <= f["ts"].get<std::int64_t>());
    CHECK(s["pid"] != f["pid"]);
    CHECK(f["bp"] == "e");
  }
  // B's partitions, released at its crash (50 s), reach their new owners.
  int from_crash = 0;
  for (const auto& [id, s] : starts) from_crash += s["ts"].get<std::int64_t>() == 50'000'000 - 1 ? 1 : 0;
  CHECK(from_crash == 2);
}

TEST_CASE("run --trace: a consumer group's rounds are epochs, not generations") {
  const auto events = trace_of("scenarios/quickstart.yaml --protocol consumer");
  int epochs = 0, generations = 0;
  for (const auto& e : events) {
    const std::string name = e["name"];
    if (e["ph"] == "i" && name.rfind("epoch ", 0) == 0) ++epochs;
    if (e["ph"] == "i" && name.rfind("generation ", 0) == 0) ++generations;
    if (e["ph"] == "X" && e["cat"] == "ownership") {
      CHECK(e["args"].contains("epoch"));
      CHECK_FALSE(e["args"].contains("generation"));
    }
  }
  CHECK(epochs > 0);
  CHECK(generations == 0);
}

TEST_CASE("run --out writes the timeline and the summary files") {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("rsim-out-{}", ::getpid());
  const auto r = cli(fmt::format("run scenarios/quickstart.yaml --out '{}'", dir.string()));
  CHECK(r.code == 0);
  for (const char* f : {"timeline.txt", "timeline.jsonl", "summary.json", "summary.txt"})
    CHECK(std::filesystem::file_size(dir / f) > 100);
  std::filesystem::remove_all(dir);
}

TEST_CASE("the rolling bounce runs and its text timeline shows every generation") {
  const auto r = cli("run scenarios/rolling-bounce.yaml --timeline text");
  CHECK(r.code == 0);
  const auto at = r.out.find("final-generation  ");
  REQUIRE(at != std::string::npos);
  const int last = std::stoi(r.out.substr(at + 18));
  CHECK(last >= 6);  // every bounce of a dynamic member costs at least one generation
  for (int g = 1; g <= last; ++g) CHECK(r.out.find(fmt::format("generation       generation={} ", g)) != std::string::npos);
}

TEST_CASE("validate and run accept every bundled scenario") {
  for (const auto& e : std::filesystem::recursive_directory_iterator(kSource + "/scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    const std::string rel = std::filesystem::relative(e.path(), kSource).string();
    if (testing::kTooLargeToPin.count(rel) != 0) continue;
    CAPTURE(rel);
    CHECK(cli("validate " + rel).code == 0);
    CHECK(cli("run " + rel).code == 0);
  }
}

TEST_CASE("plugin assignors: scenario key, --assignor-exec on run, compare, check, assign and vectors; bad ones exit 2") {
  const std::string range = "--assignor-exec 'python3 tools/examples/range_assignor.py'";
  const auto own = cli("run tests/plugins/range-plugin.yaml");
  CHECK(own.code == 0);
  CHECK(own.out.find("assignor exec") != std::string::npos);
  const auto built_in = cli("run tests/plugins/range-plugin.yaml --assignor range");
  CHECK(own.out.substr(own.out.find('\n')) == built_in.out.substr(built_in.out.find('\n')));  // all but the name
  CHECK(cli("run scenarios/quickstart.yaml --protocol eager " + range).code == 0);
  const auto both = cli("compare tests/plugins/range-plugin.yaml --protocols eager --assignors range " + range);
  CHECK(both.code == 0);
  CHECK(both.out.find("eager/exec") != std::string::npos);
  CHECK(both.out.find("eager/range") != std::string::npos);
  CHECK(cli("check tests/plugins/range-plugin.yaml " + range).code == 0);
  CHECK(cli("assign tests/snapshots/two-topics.json " + range).out == cli("assign tests/snapshots/two-topics.json --assignor range").out);
  // Kafka's range vectors against the example: all but the two rack-aware cases (the example ignores racks).
  const auto vectors = cli("vectors --verbose tests/vectors/RangeAssignorTest.client.yaml tests/vectors/RangeAssignorTest.server.yaml " + range);
  CHECK(vectors.code == 1);
  CHECK(vectors.out.find("PASS tests/vectors/RangeAssignorTest.server.yaml nonexistent-topic (exec)") != std::string::npos);
  CHECK(vectors.out.find("FAIL tests/vectors/RangeAssignorTest.client.yaml rack-uniform-subscription-rf1 (exec)") != std::string::npos);
  CHECK(vectors.out.find("vectors: 22 passed, 2 failed, 0 skipped") != std::string::npos);

  const auto crash = cli("run tests/plugins/range-plugin.yaml --assignor-exec 'python3 tests/plugins/bad_assignor.py exit 1'");
  CHECK(crash.code == 2);
  CHECK(crash.err.find("rebalance-sim: at 72.008s (simulated): ") == 0);  // c1 back at 40s, its session ended
  CHECK(crash.err.find("eager rebalance of generation 2 (request 2): the plugin process exited with status 3 without answering") !=
        std::string::npos);
  const auto transfer = cli("run scenarios/quickstart.yaml --protocol cooperative " + range);
  CHECK(transfer.code == 2);
  CHECK(transfer.err.find("goes straight from") != std::string::npos);
  CHECK(cli("run tests/plugins/range-plugin.yaml --assignor range --assignor-exec x").code == 2);
  // Over seeds: each run, in its worker process, starts its own plug-in; range's figures.
  const auto seeds = cli("compare tests/plugins/range-plugin.yaml --protocols eager --assignors range --seeds 2 --jobs 2 " + range);
  CHECK(seeds.code == 0);
  CHECK(seeds.out.find("eager/exec") != std::string::npos);
  CHECK(seeds.out.find("eager/range") != std::string::npos);
  const auto bad_seeds = cli("compare tests/plugins/range-plugin.yaml --protocols eager --seeds 2 --assignor-exec 'python3 tests/plugins/bad_assignor.py refuse'");
  CHECK(bad_seeds.code == 2);
  CHECK(bad_seeds.err.find("the plugin answered an error: cannot assign this group") != std::string::npos);
  const auto swept = cli("sweep tests/plugins/range-plugin.yaml --protocols eager --set config.session.timeout.ms=10000,20000 " + range);
  CHECK(swept.code == 0);
  CHECK(swept.out.find("eager/exec") != std::string::npos);
  // The Streams task assignor side, and a classic Streams leader (not a plug-in side) left out.
  const std::string tasks = "--assignor-exec 'python3 tools/examples/sticky_tasks.py'";
  const auto streams = cli("compare scenarios/streams/scale-out.yaml " + tasks);
  CHECK(streams.code == 0);
  CHECK(streams.out.find("streams/exec") != std::string::npos);
  CHECK(streams.out.find("eager/exec") == std::string::npos);
  const auto assigned = cli("assign --protocol streams tests/snapshots/streams-standby.json " + tasks);
  CHECK(assigned.code == 0);
  CHECK(assigned.out.find(R"("c1": {
      "active": [
        "1_1"
      ],)") != std::string::npos);
  const auto empty = cli("validate tests/bad/assignor-exec-empty.yaml");
  CHECK(empty.code == 2);
  CHECK(empty.err == "tests/bad/assignor-exec-empty.yaml:4:18: exec needs a command, e.g. [python3, my_assignor.py]\n");
  const auto timeout = cli("validate tests/bad/assignor-exec-bad-timeout.yaml");
  CHECK(timeout.err == "tests/bad/assignor-exec-bad-timeout.yaml:4:72: timeout (wall clock per request) must be between 1ms and 1h\n");
}
}
