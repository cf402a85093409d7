// compare --seeds, sweep, --shard and merge end to end: the statistics
// tables, one JSON line per run, output independent of --jobs and of
// sharding, and bad input refused with exit code 2 naming the option.
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "tests/sweep/cli.hpp"
#include "tools/report/timeline.hpp"

#include <nlohmann/json.hpp>

#include <vector>

using namespace rsim::sweep_test;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Two timeouts x two variants x three seeds of the quickstart: 12 short runs.
const std::string kSweep =
    "sweep scenarios/quickstart.yaml --set config.session.timeout.ms=6000,10000 --protocols eager,consumer --seeds 3";

}  // namespace

TEST_SUITE("sweep") {
  TEST_CASE("compare --seeds prints a JMH table per variant and metric and a ranking, the same at any --jobs") {
    const auto one = sim("compare scenarios/quickstart.yaml --protocols eager,cooperative,consumer --seeds 4 --jobs 1");
    REQUIRE(one.code == 0);
    CHECK(one.out.find("scenario quickstart (scenarios/quickstart.yaml), seeds 1..4: 4 run(s) per variant") == 0);
    CHECK(one.out.find("99.9% confidence interval of the mean (Student's t") != std::string::npos);
    CHECK(one.out.find("Variant") != std::string::npos);
    for (const char* column : {"Metric", "Cnt", "Mean", "Error", "Min", "Max", "Units"}) CHECK(one.out.find(column) != std::string::npos);
    CHECK(one.out.find("eager/range                     downtime.total") != std::string::npos);
    CHECK(one.out.find("ranked by mean downtime.total (s)") != std::string::npos);
    CHECK(one.out.find(" 1. ") != std::string::npos);
    CHECK(one.out.find(" 3. ") != std::string::npos);
    CHECK(one.err.empty());  // no progress bar when stderr is not a terminal
    const auto two = sim("compare scenarios/quickstart.yaml --protocols eager,cooperative,consumer --seeds 1..4 --jobs 2");
    REQUIRE(two.code == 0);
    CHECK(two.out == one.out);
  }

  TEST_CASE("compare without --seeds prints what it always did") {
    const auto r = sim("compare scenarios/quickstart.yaml --protocols eager");
    REQUIRE(r.code == 0);
    CHECK(r.out.find("scenario quickstart (seed 1), ranked by downtime.total; durations in seconds\nvariant") == 0);
    CHECK(sim("compare scenarios/quickstart.yaml --jobs 2").code == 2);
    CHECK(sim("compare scenarios/quickstart.yaml --seeds 3 --format csv").code == 2);
    CHECK(sim("compare scenarios/quickstart.yaml --seeds 0").code == 2);
  }

  TEST_CASE("sweep writes one JSON line per run in run order, the same at --jobs 1 and 2") {
    TempDir dir;
    const auto one = sim(fmt::format("{} --jobs 1 --out {}", kSweep, dir / "one.jsonl"));
    const auto two = sim(fmt::format("{} --jobs 2 --out {}", kSweep, dir / "two.jsonl"));
    REQUIRE(one.code == 0);
    REQUIRE(two.code == 0);
    CHECK(one.out == two.out);
    const auto text = slurp(dir / "one.jsonl");
    CHECK(text == slurp(dir / "two.jsonl"));
    const auto rows = lines(text);
    REQUIRE(rows.size() == 1 + 2 * 2 * 3);
    const auto header = nlohmann::json::parse(rows[0]);
    CHECK(header["sweep"]["runs"] == 12);
    CHECK(header["sweep"]["set"][0]["key"] == "config.session.timeout.ms");
    for (std::size_t k = 1; k < rows.size(); ++k) {
      const auto run = nlohmann::json::parse(rows[k]);
      CHECK(run["run"] == k - 1);
      CHECK(run["seed"] == 1 + (k - 1) % 3);
      CHECK(run["variant"] == ((k - 1) / 3 % 2 == 0 ? "eager/range" : "consumer/uniform"));
      CHECK(run["point"]["config.session.timeout.ms"] == (k <= 6 ? 6000 : 10000));
      CHECK(run["metrics"].contains("downtime.total"));
      CHECK(run["metrics"].contains("time-to-stable"));
      CHECK(run["invariants"] == "ok");
    }
    // A table per point.
    CHECK(one.out.find("point 1 of 2: config.session.timeout.ms=6000") != std::string::npos);
    CHECK(one.out.find("point 2 of 2: config.session.timeout.ms=10000") != std::string::npos);
    // The eager crash is detected at the session timeout: a longer one costs more.
    const auto eager_downtime = [&](std::size_t k) { return nlohmann::json::parse(rows[k])["metrics"]["downtime.total"].get<double>(); };
    CHECK(eager_downtime(7) > eager_downtime(1));
  }

  TEST_CASE("a bad --set, --shard or --metrics exits 2 with a message naming it") {
    auto r = sim("sweep scenarios/quickstart.yaml --set config.sesion.timeout.ms=6000");
    CHECK(r.code == 2);
    CHECK(r.err.find("--set config.sesion.timeout.ms=6000: scenarios/quickstart.yaml:") != std::string::npos);
    CHECK(r.err.find("did you mean 'session.timeout.ms'") != std::string::npos);
    r = sim("sweep scenarios/quickstart.yaml --set config.session.timeout.ms=6000,soon");
    CHECK(r.code == 2);
    CHECK(r.err.find("--set config.session.timeout.ms=soon: scenarios/quickstart.yaml:") != std::string::npos);
    r = sim("sweep scenarios/quickstart.yaml --set members.count=10");
    CHECK(r.code == 2);
    CHECK(r.err.find("--set members.count=10: 'members' is a list") != std::string::npos);
    r = sim("sweep scenarios/quickstart.yaml --set duration");
    CHECK(r.code == 2);
    CHECK(r.err.find("--set: expected KEY=v1,v2") != std::string::npos);
    r = sim("sweep scenarios/quickstart.yaml --seeds 4 --shard 5/4 --out /dev/null");
    CHECK(r.code == 2);
    CHECK(r.err.find("--shard: expected I/N") != std::string::npos);
    r = sim("sweep scenarios/quickstart.yaml --metrics downtime.totl");
    CHECK(r.code == 2);
    CHECK(r.err.find("--metrics: 'downtime.totl'") != std::string::npos);
    CHECK(sim("sweep scenarios/quickstart.yaml --protocols egaer").code == 2);
  }

  TEST_CASE("shards merged are exactly the unsharded sweep; wrong shard sets are refused") {
    TempDir dir;
    const auto whole = sim(fmt::format("{} --jobs 2 --out {} --html {}", kSweep, dir / "whole.jsonl", dir / "whole.html"));
    REQUIRE(whole.code == 0);
    std::string shards;
    for (int i = 1; i <= 3; ++i) {
      const auto shard = fmt::format("shard-{}.jsonl", i);
      const auto r = sim(fmt::format("{} --jobs 1 --shard {}/3 --out {}", kSweep, i, dir / shard));
      REQUIRE(r.code == 0);
      CHECK(lines(slurp(dir / shard)).size() == 1 + 4);
      shards += " " + (dir / shard);
    }
    const auto merged = sim(fmt::format("merge{} --out {} --html {}", shards, dir / "merged.jsonl", dir / "merged.html"));
    REQUIRE(merged.code == 0);
    CHECK(merged.out == whole.out);
    CHECK(slurp(dir / "merged.jsonl") == slurp(dir / "whole.jsonl"));
    CHECK(slurp(dir / "merged.html") == slurp(dir / "whole.html"));

    auto r = sim(fmt::format("merge {} {}", dir / "shard-1.jsonl", dir / "shard-3.jsonl"));
    CHECK(r.code == 2);
    CHECK(r.err.find("4 of 12 runs missing") != std::string::npos);
    r = sim(fmt::format("merge {} {}", dir / "whole.jsonl", dir / "shard-2.jsonl"));
    CHECK(r.code == 2);
    CHECK(r.err.find("is in two files") != std::string::npos);
    REQUIRE(sim(fmt::format("sweep scenarios/quickstart.yaml --seeds 3 --shard 1/1 --out {}", dir / "other.jsonl")).code == 0);
    r = sim(fmt::format("merge {} {}", dir / "shard-1.jsonl", dir / "other.jsonl"));
    CHECK(r.code == 2);
    CHECK(r.err.find("from another sweep") != std::string::npos);
  }

  TEST_CASE("--html writes a self-contained Vega plot with the data, for sweep and compare --seeds") {
    TempDir dir;
    const auto r = sim(fmt::format("{} --html {}", kSweep, dir / "sweep.html"));
    REQUIRE(r.code == 0);
    const auto html = slurp(dir / "sweep.html");
    CHECK(html.find("<!DOCTYPE html>") == 0);
    CHECK(html.find("src=\"http") == std::string::npos);
    CHECK(html.find("src='http") == std::string::npos);
    CHECK(html.find("href=\"http") == std::string::npos);
    CHECK(html.find("sourceMappingURL") == std::string::npos);
    CHECK(html.find("<script src") == std::string::npos);
    CHECK(html.find("rsimVegaModules['vega-view'] = module.exports") != std::string::npos);
    CHECK(html.find("\"series\":\"consumer/uniform\",\"x\":10000") != std::string::npos);
    CHECK(html.find("\"title\":\"config.session.timeout.ms\"") != std::string::npos);
    const auto c = sim(fmt::format("compare scenarios/quickstart.yaml --protocols eager,consumer --seeds 3 --html {}", dir / "compare.html"));
    REQUIRE(c.code == 0);
    const auto compare = slurp(dir / "compare.html");
    CHECK(compare.find("\"series\":\"eager/range\",\"x\":\"eager/range\"") != std::string::npos);
    CHECK(compare.find("src=\"http") == std::string::npos);
  }
}

TEST_SUITE("sweep") {
  TEST_CASE("a progress bar with the rate and the time left, on stderr when it is a terminal") {
    // script(1) gives the command a terminal; stdout goes to /dev/null, so
    // what the terminal shows is stderr.
    if (shell("command -v script").code != 0) {
      MESSAGE("skipped: script(1) is not installed (Debian's bsdutils)");
      return;
    }
    const auto on_terminal = [](const std::string& args) {
      return shell(fmt::format("script -qec \"'{}' {} >/dev/null\" /dev/null", kBinary, args));
    };
    const auto sweep = on_terminal(kSweep + " --jobs 2");
    REQUIRE(sweep.code == 0);
    CHECK(sweep.out.find("sweep [##############################] 12/12 runs") != std::string::npos);
    CHECK(sweep.out.find("runs/s  in 0:0") != std::string::npos);
    const auto run = on_terminal("run scenarios/quickstart.yaml");
    REQUIRE(run.code == 0);
    CHECK(run.out.find("120/120 simulated s") != std::string::npos);
    const auto compare = on_terminal("compare scenarios/quickstart.yaml --protocols eager,consumer");
    REQUIRE(compare.code == 0);
    CHECK(compare.out.find("2/2 runs") != std::string::npos);
    // Not a terminal: nothing.
    CHECK(sim(kSweep).err.empty());
    CHECK(sim("run scenarios/quickstart.yaml").err.empty());
  }
}

TEST_SUITE("sweep") {
  TEST_CASE("a run told of its progress is the same run") {
    const auto s = rsim::scenario::load_file(kSource + "/scenarios/rolling-bounce.yaml");
    const auto timeline = [&](bool progress) {
      rsim::scenario::RunOptions o;
      o.protocol = "cooperative";
      int calls = 0;
      if (progress) o.progress = [&](rsim::Time now, rsim::Time horizon) { calls += now <= horizon ? 1 : 1000; };
      const auto run = rsim::scenario::run(s, o);
      CHECK(calls == (progress ? 100 : 0));
      std::ostringstream out;
      rsim::report::write_jsonl_timeline(out, run.trace.events());
      return out.str();
    };
    const auto plain = timeline(false);
    CHECK(plain.size() > 10000);
    CHECK(timeline(true) == plain);
  }
}
