// rebalance-sim: the command line. Exit codes: 0 ok, 1 an expectation or
// invariant failed, 2 bad input or usage.
#include "metrics/expect.hpp"
#include "metrics/summary.hpp"
#include "protocols/assignors/exec.hpp"
#include "protocols/streams/exec_task_assignor.hpp"
#include "protocols/assignors/server.hpp"
#include "protocols/catalog.hpp"
#include "scenarios/supported.hpp"
#include "scenarios/config_keys.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/snapshot.hpp"
#include "scenarios/streams_topology.hpp"
#include "scenarios/validate_all.hpp"
#include "scenarios/values.hpp"
#include "tools/cli/forgiving.hpp"
#include "tools/swarm/campaign.hpp"
#include "tools/swarm/generator.hpp"
#include "tools/sweep/plan.hpp"
#include "tools/sweep/plot.hpp"
#include "tools/sweep/progress.hpp"
#include "tools/vectors/runner.hpp"
#include "tools/report/baseline.hpp"
#include "tools/report/compare_output.hpp"
#include "scenarios/resources.hpp"
#include "tools/report/html.hpp"
#include "tools/report/vega.hpp"
#include "tools/report/perfetto.hpp"
#include "tools/report/summary_output.hpp"
#include "tools/report/timeline.hpp"
#include "tools/report/topology_output.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>
#include <fstream>
#include <sstream>
#include <iostream>
#include <nlohmann/json.hpp>

#ifndef RSIM_SCENARIO_DIR
#define RSIM_SCENARIO_DIR "scenarios"
#endif

namespace {

using namespace rsim;

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kBadInput = 2;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `--assignor-exec CMD`: the command, split at spaces (no shell).
scenario::AssignorExec exec_command(const std::string& text) {
  scenario::AssignorExec x;
  x.command = protocols::split_command(text);
  if (x.command.empty()) throw UsageError("--assignor-exec: give the plug-in's command, e.g. \"python3 my_assignor.py\"");
  return x;
}

// Applies --assignor / --assignor-exec to `o`: the plug-in is assignor "exec".
void choose_assignor(scenario::RunOptions& o, const std::string& assignor, const std::string& exec) {
  if (exec.empty()) {
    if (!assignor.empty()) o.assignor = assignor;
    return;
  }
  if (!assignor.empty() && assignor != "exec")
    throw UsageError(fmt::format("--assignor {} and --assignor-exec name two assignors; give one", assignor));
  o.assignor = "exec";
  o.assignor_exec = exec_command(exec);
}

struct RunArgs {
  std::string file;
  std::string protocol;
  std::string assignor;
  std::string assignor_exec;
  std::int64_t seed = -1;
  std::string timeline = "none";
  std::string format = "table";
  std::string out_dir;
  std::string trace_file;
  std::string html_file;
  std::vector<std::string> html_focus;
  std::string records_file;
  bool heartbeats = false;
};

// Every error of each file (scenario::all_errors), one line each.
int cmd_validate(const std::vector<std::string>& files) {
  int rc = kOk;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::cerr << scenario::InputError(f, scenario::Mark{}, "cannot open the file").what() << '\n';
      rc = kBadInput;
      continue;
    }
    std::ostringstream text;
    text << in.rdbuf();
    const auto errors = scenario::all_errors(text.str(), f);
    if (errors.empty()) {
      const auto s = scenario::load_text(text.str(), f);
      std::cout << fmt::format("{}: ok ({}: {} members, {} events, protocol {})\n", f, s.name, s.members.size(),
                               s.events.size(), s.protocol);
      continue;
    }
    for (const auto& e : errors) std::cerr << e.what() << '\n';
    if (errors.size() > 1) std::cerr << fmt::format("{}: {} errors\n", f, errors.size());
    rc = kBadInput;
  }
  return rc;
}

// The topology as the coordinator would configure it with the topics at 0s.
int cmd_topology(const std::string& file) {
  const auto s = scenario::load_file(file);
  if (s.subtopologies.empty()) throw scenario::InputError(file, scenario::Mark{}, "the scenario has no topology: (a Streams application's sub-topologies)");
  const auto topology = scenario::streams_topology(s);
  const auto metadata = scenario::initial_topic_metadata(s);
  report::write_topology(std::cout, topology, protocols::streams::configure(topology, metadata), metadata);
  return kOk;
}

int cmd_list(bool config, const std::string& format) {
  if (config) {
    std::cout << scenario::config_reference(format == "markdown");
    return kOk;
  }
  std::cout << "protocols (* = simulated by this version)\n";
  for (const auto& p : protocols::all_protocols())
    if (!p.test_only)
      std::cout << fmt::format("  {} {:<12} default assignor {:<19} {}\n", p.runnable ? '*' : ' ', p.name, p.default_assignor, p.summary);
  std::cout << "assignors (* = implemented by this version)\n";
  for (const auto& a : protocols::all_assignors())
    std::cout << fmt::format("  {} {:<19} {:<9} {}\n", a.runnable ? '*' : ' ', a.name, protocols::family_name(a.family), a.summary);
  std::cout << "bundled scenarios (" << RSIM_SCENARIO_DIR << ")\n";
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(RSIM_SCENARIO_DIR, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml")
      found.push_back(std::filesystem::relative(entry.path(), RSIM_SCENARIO_DIR).string());
  std::sort(found.begin(), found.end());
  std::size_t width = 32;  // the names in a column, however long the longest
  for (const auto& f : found) width = std::max(width, f.size());
  for (const auto& f : found) {
    std::string description;
    try {
      description = scenario::load_file(std::string(RSIM_SCENARIO_DIR) + "/" + f).description;
    } catch (const scenario::InputError& e) {
      description = fmt::format("(invalid: {})", e.message());
    }
    std::cout << fmt::format("    {:<{}} {}\n", f, width, description);
  }
  return kOk;
}

// `option` names the option that asked for the file (--out, --html, ...).
void write_file(const std::filesystem::path& path, const std::string& text, std::string_view option = "--out") {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UsageError(fmt::format("{}: cannot write {}", option, path.string()));
  out << text;
}

// The topic, connector or sub-topology of a resource, for the report's
// per-topic heat map.
std::function<std::string(const std::string&)> resource_groups(const scenario::Scenario& s) {
  return [index = std::make_shared<scenario::ResourceIndex>(s)](const std::string& r) { return scenario::owner_of(*index, r); };
}

using metrics::load_rates;

void write_html_file(const std::string& file, const scenario::Scenario& s, std::uint64_t seed, Time end,
                     const std::vector<report::HtmlVariant>& variants, const std::vector<std::string>& focus) {
  for (const auto& m : focus)  // any member of the run, scaled-out ones too
    if (std::none_of(variants.front().events->begin(), variants.front().events->end(), [&](const auto& ev) { return ev.actor == m; }))
      throw UsageError(fmt::format("--html-focus: the run has no member '{}'", m));
  std::ostringstream html;
  try {
    report::write_html(html, s.name, seed, end, variants, focus);
  } catch (const report::VegaMissing& e) {
    throw UsageError(fmt::format("--html: {}", e.what()));
  }
  write_file(file, html.str(), "--html");
}

int cmd_run(const RunArgs& a) {
  const auto s = scenario::load_file(a.file);
  scenario::RunOptions o;
  if (!a.protocol.empty()) o.protocol = a.protocol;
  if (!a.assignor.empty()) {
    const auto* p = protocols::find_protocol(scenario::effective_protocol(s, o));
    if (protocols::find_assignor(p->family, a.assignor) == nullptr)
      throw UsageError(fmt::format("--assignor: unknown {} assignor '{}'{}; one of: {}", protocols::family_name(p->family),
                                   a.assignor, scenario::did_you_mean(a.assignor, protocols::assignor_names(p->family)),
                                   fmt::join(protocols::assignor_names(p->family), ", ")));
  }
  choose_assignor(o, a.assignor, a.assignor_exec);
  if (a.seed >= 0) o.seed = static_cast<std::uint64_t>(a.seed);
  // Only the timelines and reports show routine heartbeats, and read the
  // trace: without them the summary is folded as the run goes and no trace
  // is kept.
  o.routine_events = a.timeline != "none" || !a.out_dir.empty() || !a.trace_file.empty() || !a.html_file.empty();
  o.keep_trace = o.routine_events;
  if (a.format == "json" && a.timeline != "none" && a.out_dir.empty())
    throw UsageError("--format json prints only the summary on stdout; add --out DIR to keep the timeline");

  std::ofstream records;
  if (!a.records_file.empty()) {
    records.open(a.records_file, std::ios::binary);
    if (!records) throw UsageError(fmt::format("--records: cannot write {}", a.records_file));
    o.records = &records;
  }
  const auto summarized = [&] {
    sweep::Progress progress("run", ::isatty(STDERR_FILENO) != 0, "simulated s");
    o.progress = [&](Time now, Time horizon) {
      progress.update(static_cast<std::size_t>(micros(now) / 1'000'000), static_cast<std::size_t>(micros(horizon) / 1'000'000));
    };
    return metrics::run_summarized(s, o);
  }();
  const auto& run = summarized.run;
  const auto& summary = summarized.summary;
  const auto expect = metrics::evaluate(s, summary);
  if (records.is_open() && records.tellp() == 0)
    std::cerr << fmt::format("--records: the {} group wrote no records (only consumer and streams groups' records "
                             "are modelled)\n", run.protocol);

  report::TimelineOptions topts{a.heartbeats};
  std::ostringstream text, jsonl, table, json;
  // The timelines only where they go (rendering them is most of a large
  // group's run otherwise, issue 16).
  const bool to_files = !a.out_dir.empty(), to_stdout = a.format != "json";
  if (to_files || (to_stdout && a.timeline == "text")) report::write_text_timeline(text, run.trace.events(), topts);
  if (to_files || (to_stdout && a.timeline == "jsonl")) report::write_jsonl_timeline(jsonl, run.trace.events());
  report::write_summary_table(table, s, run, summary, expect);
  report::write_summary_json(json, s, run, summary, expect);

  if (!a.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.out_dir, ec);
    if (ec) throw UsageError(fmt::format("--out: cannot create {}: {}", a.out_dir, ec.message()));
    const std::filesystem::path dir(a.out_dir);
    write_file(dir / "timeline.txt", text.str());
    write_file(dir / "timeline.jsonl", jsonl.str());
    write_file(dir / "summary.json", json.str());
    write_file(dir / "summary.txt", table.str());
  }
  if (!a.html_file.empty())
    write_html_file(a.html_file, s, run.seed, run.end,
                    {report::HtmlVariant{run.protocol + "/" + run.assignor, &run.trace.events(), run.resources, summary, load_rates(s),
                                         resource_groups(s)}},
                    a.html_focus);
  if (!a.trace_file.empty()) {
    std::ostringstream trace;
    report::write_perfetto(trace, run.trace.events(), run.resources, run.end, load_rates(s));
    write_file(a.trace_file, trace.str(), "--trace");
  }
  if (a.format == "json") {
    std::cout << json.str();
  } else {
    if (a.timeline == "text") std::cout << text.str() << '\n' << table.str();
    // Only JSON Lines on stdout, so that `| jq` reads it; the summary to stderr.
    if (a.timeline == "jsonl") std::cout << jsonl.str(), std::cerr << table.str();
    if (a.timeline == "none") std::cout << table.str();
  }
  const bool failed = summary.violation || std::any_of(expect.begin(), expect.end(), [](const auto& e) { return !e.ok; });
  if (failed) {
    for (const auto& e : expect)
      if (!e.ok) std::cerr << fmt::format("{}: expectation failed: {} want {}, got {}\n", a.file, e.name, e.want, e.got);
    if (summary.violation) std::cerr << fmt::format("{}: invariant violated: {}\n", a.file, metrics::describe(*summary.violation));
  }
  return failed ? kFailed : kOk;
}

struct CompareArgs {
  std::string file;
  std::string html_file;
  std::vector<std::string> html_focus;
  std::vector<std::string> protocols;
  std::vector<std::string> assignors;
  std::string assignor_exec;
  std::int64_t seed = -1;
  std::string format = "table";
  std::string seeds;  // --seeds N or A..B: statistics over seeds
  unsigned jobs = 0;
  std::vector<std::string> metrics;
};

int cmd_compare_seeds(const CompareArgs& a);

// Every requested variant on the same scenario and seed. Without
// --protocols: every protocol this version runs; each with the requested
// assignors it supports (Kafka's rule: the cooperative protocol needs
// cooperative-sticky), or its default.
int cmd_compare(const CompareArgs& a) {
  if (!a.seeds.empty()) return cmd_compare_seeds(a);
  if (a.jobs > 0 || !a.metrics.empty()) throw UsageError("--jobs and --metrics go with --seeds (one seed runs each variant once)");
  const auto s = scenario::load_file(a.file);
  // The plug-in is assignor "exec": alone, or beside the built-ins --assignors names.
  const auto variants = sweep::resolve_variants(s, a.protocols, a.assignors, !a.assignor_exec.empty());
  std::vector<report::VariantRow> rows;
  std::vector<scenario::RunResult> runs;
  std::uint64_t seed = a.seed >= 0 ? static_cast<std::uint64_t>(a.seed) : s.seed;
  {
    sweep::Progress progress("compare", ::isatty(STDERR_FILENO) != 0);
    for (const auto& v : variants) {
      scenario::RunOptions o;
      o.protocol = v.protocol;
      o.assignor = v.assignor;
      if (v.assignor == "exec" && !a.assignor_exec.empty()) o.assignor_exec = exec_command(a.assignor_exec);
      o.seed = seed;
      runs.push_back(scenario::run(s, o));
      rows.push_back({v.protocol, v.assignor, metrics::summarize(s, runs.back())});
      progress.update(runs.size(), variants.size());
    }
  }
  if (!a.html_file.empty()) {
    std::vector<report::HtmlVariant> html_variants;
    for (std::size_t i = 0; i < runs.size(); ++i)
      html_variants.push_back({rows[i].variant(), &runs[i].trace.events(), runs[i].resources, rows[i].summary, load_rates(s),
                               resource_groups(s)});
    std::stable_sort(html_variants.begin(), html_variants.end(), [](const auto& x, const auto& y) {
      return x.summary.downtime.total < y.summary.downtime.total;
    });
    write_html_file(a.html_file, s, seed, runs.front().end, html_variants, a.html_focus);
  }
  report::rank(rows);
  if (a.format == "csv") report::write_compare_csv(std::cout, rows);
  else if (a.format == "json") report::write_compare_json(std::cout, s.name, seed, rows);
  else if (a.format == "markdown") report::write_compare_markdown(std::cout, rows);
  else report::write_compare_table(std::cout, s.name, seed, rows);
  const bool violated = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.summary.violation.has_value(); });
  return violated ? kFailed : kOk;
}

struct CheckArgs {
  std::vector<std::string> files;
  std::string baseline;
  bool update = false;
  std::vector<std::string> tolerances;
  std::string protocol;
  std::string assignor;
  std::string assignor_exec;
  std::int64_t seed = -1;
  std::string format = "text";
};

std::map<std::string, double> parse_tolerances(const std::vector<std::string>& tolerances) {
  std::map<std::string, double> tolerance;
  for (const auto& t : tolerances) {
    const auto eq = t.find('=');
    const std::string name = t.substr(0, eq);
    const auto pct = eq == std::string::npos ? std::nullopt : scenario::parse_number(t.substr(eq + 1));
    if (!pct || *pct < 0)
      throw UsageError(fmt::format("--tolerance: expected METRIC=PERCENT (e.g. downtime.total=5), got '{}'", t));
    const auto names = report::baseline_metrics(metrics::Summary{});
    if (names.count(name) == 0) {
      std::vector<std::string_view> known;
      for (const auto& [n, v] : names) known.push_back(n);
      throw UsageError(fmt::format("--tolerance: '{}' is not a metric a baseline keeps{}", name, scenario::did_you_mean(name, known)));
    }
    tolerance[name] = *pct;
  }
  return tolerance;
}

// One scenario's verdict: its lines of the report, and what failed.
struct CheckedScenario {
  std::string file, name;
  std::vector<std::string> lines;  // "FAIL ...", "ok ...", "REGRESSED ..."
  bool bad_input = false, failed = false, regressed = false;
  std::string error;  // bad input: the message
};

// A change in words: percent, or from 0 the absolute rise (a percentage of
// nothing says nothing).
std::string change_text(const report::MetricChange& c) {
  if (c.old_value == 0) return c.new_value == 0 ? "+0.00%" : fmt::format("{:+.3f} (from 0)", c.new_value);
  return fmt::format("{:+.2f}%", (c.new_value - c.old_value) / std::abs(c.old_value) * 100.0);
}

CheckedScenario check_one(const std::string& f, const CheckArgs& a, const report::Baseline& baseline,
                          const std::map<std::string, double>& tolerance, report::Baseline& updated) {
  CheckedScenario out{f, f, {}, false, false, false, {}};
  std::optional<scenario::Scenario> s;
  std::optional<scenario::RunResult> run;
  try {
    s = scenario::load_file(f);
    scenario::RunOptions o;
    if (!a.protocol.empty()) o.protocol = a.protocol;
    choose_assignor(o, a.assignor, a.assignor_exec);
    if (a.seed >= 0) o.seed = static_cast<std::uint64_t>(a.seed);
    run = scenario::run(*s, o);
  } catch (const scenario::InputError& e) {  // go on with the others; the check fails at the end
    out.bad_input = true;
    out.error = e.what();
    return out;
  }
  out.name = s->name;
  const auto m = metrics::summarize(*s, *run);
  out.lines.push_back(fmt::format("{} ({}/{}, seed {})", f, run->protocol, run->assignor, run->seed));
  for (const auto& e : metrics::evaluate(*s, m)) {
    out.lines.push_back(fmt::format("  {:<10} expect {:<18} want {}  got {}", e.ok ? "ok" : "FAIL", e.name, e.want, e.got));
    out.failed |= !e.ok;
  }
  if (m.violation) {
    out.lines.push_back(fmt::format("  {:<10} invariant violated: {}", "FAIL", metrics::describe(*m.violation)));
    out.failed = true;
  }
  const auto now = report::baseline_metrics(m);
  // Keyed by the scenario's name, whatever path it was given by; a baseline
  // written by an older version is keyed by path.
  updated.erase(f);
  updated[s->name] = report::BaselineEntry{run->protocol, run->assignor, run->seed, now};
  if (a.baseline.empty() || a.update) return out;
  auto it = baseline.find(s->name);
  if (it == baseline.end()) it = baseline.find(f);
  if (it == baseline.end()) {
    out.lines.push_back(fmt::format("  {:<10} not in the baseline {} (add it with --update-baseline)", "FAIL", a.baseline));
    out.failed = true;
    return out;
  }
  for (const auto& c : report::compare_to_baseline(it->second, now, tolerance)) {
    const char* verdict = c.regression ? "REGRESSED" : c.new_value < c.old_value ? "improved" : "ok";
    out.lines.push_back(fmt::format("  {:<10} {:<18} old {:>12.3f}  new {:>12.3f}  change {:>12}{}", verdict, c.metric,
                                    c.old_value, c.new_value, change_text(c),
                                    c.tolerance_pct > 0 ? fmt::format("  (tolerance {}%)", c.tolerance_pct) : std::string()));
    out.regressed |= c.regression;
  }
  return out;
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// JUnit XML, as CI systems read it: a test case per scenario, a failure for
// a failed expectation, invariant or regression, an error for bad input.
void write_junit(std::ostream& out, const std::vector<CheckedScenario>& checked) {
  std::size_t failures = 0, errors = 0;
  for (const auto& c : checked) {
    failures += (c.failed || c.regressed) ? 1 : 0;
    errors += c.bad_input ? 1 : 0;
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuite name=\"rebalance-sim check\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n", checked.size(),
                     failures, errors);
  for (const auto& c : checked) {
    out << fmt::format("  <testcase classname=\"{}\" name=\"{}\"", xml_escaped(c.file), xml_escaped(c.name));
    std::string details;
    for (const auto& l : c.lines) details += l + "\n";
    if (c.bad_input)
      out << fmt::format(">\n    <error message=\"{}\"/>\n  </testcase>\n", xml_escaped(c.error));
    else if (c.failed || c.regressed)
      out << fmt::format(">\n    <failure message=\"{}\">{}</failure>\n  </testcase>\n",
                         c.regressed ? "a metric regressed" : "an expectation or invariant failed", xml_escaped(details));
    else
      out << "/>\n";
  }
  out << "</testsuite>\n";
}

// Each scenario's expect: block, and its metrics against a baseline: how an
// assignor or protocol change is gated in CI. A bad scenario is reported
// and the others still run; the exit code says the worst.
int cmd_check(const CheckArgs& a) {
  const auto tolerance = parse_tolerances(a.tolerances);
  if (a.update && a.baseline.empty()) throw UsageError("--update-baseline needs --baseline FILE");
  report::Baseline baseline;
  // An update merges: scenarios not run this time keep their entries.
  if (!a.baseline.empty() && (!a.update || std::filesystem::exists(a.baseline))) baseline = report::read_baseline(a.baseline);
  report::Baseline updated = a.update ? baseline : report::Baseline{};
  std::vector<CheckedScenario> checked;
  std::map<std::string, std::string> file_of;  // scenario name -> the file that had it
  for (const auto& f : a.files) {
    checked.push_back(check_one(f, a, baseline, tolerance, updated));
    CheckedScenario& c = checked.back();
    if (c.bad_input) continue;
    if (auto [it, fresh] = file_of.emplace(c.name, f); !fresh) {
      c.bad_input = true;
      c.error = fmt::format("{}: scenario name '{}' is also {}'s: a baseline keys scenarios by name", f, c.name, it->second);
    }
  }
  std::size_t ok = 0, bad = 0, failed = 0, regressed = 0;
  for (const auto& c : checked) {
    bad += c.bad_input ? 1 : 0;
    failed += c.failed ? 1 : 0;
    regressed += c.regressed ? 1 : 0;
    ok += !c.bad_input && !c.failed && !c.regressed ? 1 : 0;
  }
  if (a.format == "junit") {
    write_junit(std::cout, checked);
  } else {
    for (const auto& c : checked)
      for (const auto& l : c.lines) std::cout << l << '\n';
  }
  for (const auto& c : checked)
    if (c.bad_input) std::cerr << c.error << '\n';
  if (a.update && bad == 0) {
    report::write_baseline(a.baseline, updated, "rebalance-sim " RSIM_VERSION);
    std::cout << fmt::format("wrote {} scenario(s) to {}\n", updated.size(), a.baseline);
  } else if (a.update) {
    std::cerr << fmt::format("{} not written: {} scenario(s) could not run\n", a.baseline, bad);
  }
  if (a.format != "junit")
    std::cout << fmt::format("check: {} scenario(s): {} ok, {} failed, {} regressed, {} bad input\n", checked.size(), ok,
                             failed, regressed, bad);
  if (bad > 0) return kBadInput;
  return failed + regressed > 0 ? kFailed : kOk;
}

void print_assignment(const protocols::GroupSnapshot& group, const protocols::GroupAssignment& result);

// An assignor refusing a well-formed snapshot (Kafka's
// PartitionAssignorException or TaskAssignorException, or a plug-in's
// `{"error": ..}`): the snapshot contract's answer, `{"error": "..."}` on
// standard output and exit code 1 (scenario-format.md, "Group snapshots").
// A snapshot that is not well formed is bad input: FILE:LINE:COLUMN, exit 2.
int print_refusal(const std::string& why) {
  nlohmann::ordered_json out;
  out["error"] = why;
  std::cout << out.dump() << '\n';
  return kFailed;
}

// Prints a Streams assignment as `assign --protocol streams` does: members
// in the snapshot's order, tasks as Kafka Streams prints them (0_3).
void print_task_assignment(const scenario::StreamsSnapshot& snapshot, const protocols::streams::StreamsGroupAssignment& result) {
  auto names = [](const protocols::streams::TaskSet& tasks) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& t : tasks) list.push_back(protocols::streams::to_string(t));
    return list;
  };
  nlohmann::ordered_json members = nlohmann::ordered_json::object();
  for (const auto& id : snapshot.member_order) {
    const auto& tasks = result.at(id);
    members[id] = {{"active", names(tasks.active)}, {"standby", names(tasks.standby)}};
  }
  nlohmann::ordered_json out;
  out["assignment"] = members;
  std::cout << out.dump(2) << '\n';
}

// The KIP-1071 task assignor on a Streams group snapshot: the built-in
// sticky, or with `exec` set the plug-in (its answer checked first).
int cmd_assign_streams(const std::string& file, std::string assignor, const std::string& exec) {
  const auto snapshot = scenario::load_streams_snapshot_file(file);
  if (!exec.empty()) assignor = "exec";
  if (assignor.empty()) assignor = snapshot.assignor.value_or("sticky");
  const auto* info = protocols::find_assignor(protocols::Family::Streams, assignor);
  if (info == nullptr || !info->runnable)
    throw UsageError(fmt::format("assign: unknown streams assignor '{}'{}; one of: {}", assignor,
                                 scenario::did_you_mean(assignor, protocols::assignor_names(protocols::Family::Streams)),
                                 fmt::join(protocols::assignor_names(protocols::Family::Streams), ", ")));
  if (assignor == "exec" && exec.empty()) throw UsageError("assign: assignor exec needs the plug-in's command: --assignor-exec CMD");
  std::unique_ptr<protocols::streams::TaskAssignor> task_assignor;
  if (exec.empty()) task_assignor = std::make_unique<protocols::streams::StickyTaskAssignor>();
  else task_assignor = std::make_unique<protocols::streams::ExecTaskAssignor>(
           std::make_shared<protocols::PluginSession>(protocols::ExecSettings{exec_command(exec).command}));
  protocols::streams::StreamsGroupAssignment result;
  try {
    result = task_assignor->assign(snapshot.group, snapshot.topology);
  } catch (const protocols::streams::TaskAssignorError& e) {  // TaskAssignorException: the group is not assignable
    return print_refusal(e.what());
  } catch (const protocols::PluginRefusal& e) {
    return print_refusal(e.what());
  }
  print_task_assignment(snapshot, result);
  return kOk;
}

int cmd_assign(const std::string& file, std::string assignor, const std::string& protocol) {
  if (protocol == "cooperative") throw UsageError("assign --protocol cooperative goes with --assignor-exec (built-in assignors: --protocol classic)");
  if (protocol == "streams") return cmd_assign_streams(file, std::move(assignor), "");
  const auto snapshot = scenario::load_snapshot_file(file);
  if (assignor.empty() && snapshot.assignor) assignor = *snapshot.assignor;
  if (assignor.empty()) throw UsageError("assign: name the assignor with --assignor or \"assignor\" in the snapshot");
  const auto family = protocol == "consumer" ? protocols::Family::Consumer : protocols::Family::Classic;
  const auto* info = protocols::find_assignor(family, assignor);
  if (info == nullptr)
    throw UsageError(fmt::format("assign: unknown {} assignor '{}'{}; one of: {}", protocols::family_name(family), assignor,
                                 scenario::did_you_mean(assignor, protocols::assignor_names(family)),
                                 fmt::join(protocols::assignor_names(family), ", ")));
  if (!info->runnable)
    throw UsageError(fmt::format("assign: the {} assignor '{}' is not implemented by this version yet",
                                 protocols::family_name(family), assignor));
  if (assignor == "high-availability")
    throw UsageError("assign: high-availability is Kafka Streams' task assignor, run by a Streams application's leader over clients and tasks, not on a partition snapshot (its cases: `vectors tests/vectors/HighAvailabilityTaskAssignorTest.streams-classic.yaml`)");
  const auto implementation = family == protocols::Family::Consumer ? protocols::make_consumer_assignor(assignor)
                                                                    : protocols::make_classic_assignor(assignor);
  protocols::GroupAssignment result;
  try {
    result = implementation->assign(snapshot.group);
  } catch (const protocols::AssignorError& e) {  // PartitionAssignorException: the snapshot is not assignable
    return print_refusal(e.what());
  }
  print_assignment(snapshot.group, result);
  return kOk;
}

// `assign --assignor-exec CMD`: the plug-in on one snapshot, its answer
// checked as a run checks it: every partition once, or with --protocol
// cooperative, withholding what moves from its owner.
int cmd_assign_exec(const std::string& file, const std::string& assignor, const std::string& protocol,
                    const std::string& command) {
  if (!assignor.empty() && assignor != "exec")
    throw UsageError(fmt::format("--assignor {} and --assignor-exec name two assignors; give one", assignor));
  if (protocol == "streams") return cmd_assign_streams(file, assignor, command);
  const auto snapshot = scenario::load_snapshot_file(file);
  const bool consumer = protocol == "consumer";
  protocols::ExecSettings settings{exec_command(command).command};
  const protocols::ExecAssignor plugin(std::move(settings),
                                       consumer ? protocols::AssignorSide::ConsumerGroup : protocols::AssignorSide::ClientLeader,
                                       protocol == "classic" ? "eager" : protocol, protocol == "cooperative");
  protocols::GroupAssignment result;
  try {
    result = plugin.assign(snapshot.group);
  } catch (const protocols::PluginRefusal& e) {
    return print_refusal(e.what());
  }
  print_assignment(snapshot.group, result);
  return kOk;
}

// One line per topic, its partitions inline: readable at a glance and still JSON.
void print_assignment(const protocols::GroupSnapshot& group, const protocols::GroupAssignment& result) {
  std::cout << "{\n  \"assignment\": {";
  const char* member_sep = "\n";
  for (const auto& m : group.members) {
    std::map<std::string, std::vector<int>> topics;
    if (auto it = result.find(m.member_id); it != result.end())
      for (const auto& tp : it->second) topics[std::string(tp.topic.name())].push_back(tp.partition);
    std::cout << member_sep << "    " << nlohmann::json(m.member_id).dump() << ": {";
    const char* topic_sep = "\n";
    for (const auto& [topic, partitions] : topics) {
      std::cout << topic_sep << "      " << nlohmann::json(topic).dump() << ": [" << fmt::format("{}", fmt::join(partitions, ", ")) << "]";
      topic_sep = ",\n";
    }
    std::cout << (topics.empty() ? "}" : "\n    }");
    member_sep = ",\n";
  }
  std::cout << "\n  }\n}\n";
}

int cmd_vectors(const std::vector<std::string>& files, bool verbose, const std::string& exec) {
  int pass = 0, fail = 0, skip = 0;
  std::optional<vectors::Plugins> plugins;
  if (!exec.empty()) plugins.emplace(protocols::ExecSettings{exec_command(exec).command});
  for (const auto& f : files) {
    const auto result = vectors::run_file(f, plugins ? &*plugins : nullptr);
    for (const auto& c : result.cases) {
      if (c.status == vectors::Status::Pass && !verbose) {
        ++pass;
        continue;
      }
      std::cout << fmt::format("{} {} {} ({}){}{}\n", vectors::status_name(c.status), f, c.name, c.assignor,
                               c.detail.empty() ? "" : ": ", c.detail);
      (c.status == vectors::Status::Pass ? pass : c.status == vectors::Status::Fail ? fail : skip)++;
    }
  }
  std::cout << fmt::format("vectors: {} passed, {} failed, {} skipped\n", pass, fail, skip);
  return fail > 0 ? kFailed : kOk;
}

struct SwarmArgs {
  std::string file;
  bool random = false;
  std::vector<std::string> protocols;
  std::string seeds;
  unsigned jobs = 0;
  std::string out_dir = "swarm-findings";
  bool no_shrink = false;
  int shrink_budget = 400;
  int wall_limit_s = 120;
  int scale = 1;
};

// "N" (N seeds from the first) or "A..B" (inclusive).
std::pair<std::uint64_t, std::uint64_t> parse_seeds(const std::string& text, std::uint64_t first) {
  if (text.empty()) return {first, 1};
  const auto dots = text.find("..");
  auto number = [&](const std::string& t) {
    const auto v = scenario::parse_integer(t);
    if (!v || *v < 0) throw UsageError(fmt::format("--seeds: expected N or A..B with non-negative integers, got '{}'", text));
    return static_cast<std::uint64_t>(*v);
  };
  if (dots == std::string::npos) {
    const auto n = number(text);
    if (n == 0) throw UsageError("--seeds: at least one seed");
    return {first, n};
  }
  const auto a = number(text.substr(0, dots)), b = number(text.substr(dots + 2));
  if (b < a) throw UsageError(fmt::format("--seeds: {} is below {}", b, a));
  return {a, b - a + 1};
}

int cmd_swarm(const SwarmArgs& a) {
  if (a.random == !a.file.empty()) throw UsageError("swarm: give a scenario FILE or --random (not both)");
  swarm::CampaignOptions o;
  if (!a.file.empty()) o.file = a.file;
  o.protocols = a.protocols;
  for (const auto& p : o.protocols) {
    const auto* info = protocols::find_protocol(p);
    if (info == nullptr)
      throw UsageError(fmt::format("--protocols: unknown protocol '{}'{}", p, scenario::did_you_mean(p, protocols::protocol_names())));
    if (!info->runnable) throw UsageError(fmt::format("--protocols: '{}' is not simulated by this version", p));
  }
  std::uint64_t first = 1;
  if (o.file) {
    const auto s = scenario::load_file(*o.file);
    first = s.seed;
    if (o.protocols.empty()) o.protocols.push_back(s.protocol);
  } else if (o.protocols.empty()) {
    for (const auto& p : protocols::all_protocols())
      if (p.runnable && !p.test_only) o.protocols.emplace_back(p.name);
  }
  std::tie(o.first_seed, o.seeds) = parse_seeds(a.seeds.empty() && !o.file ? "100" : a.seeds, first);
  o.isolation.jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  o.isolation.wall_limit = std::chrono::seconds(a.wall_limit_s);
  if (o.file && a.scale != 1) throw UsageError("swarm: --scale is for --random scenarios (a FILE's group is the file's)");
  o.scale = a.scale;
  o.shrink = !a.no_shrink;
  o.shrink_budget = a.shrink_budget;
  o.out_dir = a.out_dir;
  o.progress = ::isatty(STDERR_FILENO) != 0;
  const auto result = swarm::run_campaign(o);
  swarm::write_report(std::cout, o, result);
  return result.failures.empty() ? kOk : kFailed;
}


unsigned jobs_or_every_core(unsigned jobs) { return jobs > 0 ? jobs : std::max(1u, std::thread::hardware_concurrency()); }

std::string read_text(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::size_t> every_run(const sweep::Plan& plan) {
  std::vector<std::size_t> all(plan.runs());
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
  return all;
}

std::string sweep_title(const sweep::Plan& plan) {
  return fmt::format("sweep {} ({}): {} point(s) x {} variant(s) x {} seed(s) from {} = {} runs", plan.scenario_name, plan.file,
                     plan.points(), plan.variants.size(), plan.seeds, plan.first_seed, plan.runs());
}

// A sweep's file: the header line, then one line per run in run order.
void write_sweep_file(std::ostream& out, const sweep::Plan& plan, const std::vector<sweep::Record>& records) {
  out << sweep::header_line(plan) << '\n';
  for (const auto& r : records) out << sweep::run_line(plan, r.run, r) << '\n';
}

void write_sweep_file(const std::string& path, const sweep::Plan& plan, const std::vector<sweep::Record>& records) {
  std::ostringstream text;
  write_sweep_file(text, plan, records);
  write_file(path, text.str());
}

// The tables on stdout (and the plot) of a whole plan's records: the same
// for a sweep, for `merge` of its shards and, without --set, for `compare --seeds`.
int report_statistics(const sweep::Plan& plan, const std::vector<sweep::Record>& records, const std::string& title,
                      const std::vector<std::string>& shown, const std::string& html_file) {
  const auto cells = sweep::estimate_cells(plan, records);
  if (!html_file.empty()) {
    std::ostringstream html;
    sweep::write_plot_html(html, plan, cells, shown, title, "--html");
    write_file(html_file, html.str(), "--html");
  }
  sweep::write_tables(std::cout, plan, cells, shown, title);
  const bool violated = std::any_of(records.begin(), records.end(), [](const auto& r) { return r.violated(); });
  return violated ? kFailed : kOk;
}

std::vector<sweep::Record> run_with_progress(const sweep::Plan& plan, const std::vector<scenario::Scenario>& scenarios,
                                             const std::vector<std::size_t>& indices, unsigned jobs, const char* what) {
  sweep::Progress progress(what, ::isatty(STDERR_FILENO) != 0);
  return sweep::run_plan(plan, scenarios, indices, jobs_or_every_core(jobs),
                         [&](std::size_t done, std::size_t total) { progress.update(done, total); });
}

// `compare --seeds`: every variant over many seeds, JMH-style.
int cmd_compare_seeds(const CompareArgs& a) {
  if (a.seed >= 0) throw UsageError("--seed and --seeds: give one (--seeds A..B names the seeds)");
  if (a.format != "table")
    throw UsageError("--format: with --seeds compare prints its statistics table (sweep --out FILE keeps every run as JSON)");
  const auto s = scenario::load_file(a.file);
  sweep::Plan plan;
  plan.file = a.file;
  plan.scenario_name = s.name;
  plan.variants = sweep::resolve_variants(s, a.protocols, a.assignors, !a.assignor_exec.empty());
  if (!a.assignor_exec.empty()) plan.assignor_exec = exec_command(a.assignor_exec);
  std::tie(plan.first_seed, plan.seeds) = parse_seeds(a.seeds, s.seed);
  const auto shown = sweep::shown_metrics(a.metrics);
  const auto records = run_with_progress(plan, {s}, every_run(plan), a.jobs, "compare");
  const auto title = fmt::format("scenario {} ({}), seeds {}..{}: {} run(s) per variant", s.name, a.file, plan.first_seed,
                                 plan.first_seed + plan.seeds - 1, plan.seeds);
  return report_statistics(plan, records, title, shown, a.html_file);
}

struct SweepArgs {
  std::string file;
  std::vector<std::string> sets;
  std::vector<std::string> protocols;
  std::vector<std::string> assignors;
  std::string assignor_exec;
  std::string seeds;
  unsigned jobs = 0;
  std::string out;
  std::string shard;
  std::string html_file;
  std::vector<std::string> metrics;
};

int cmd_sweep(const SweepArgs& a) {
  const auto base = scenario::load_file(a.file);
  sweep::Plan plan;
  plan.file = a.file;
  plan.scenario_name = base.name;
  for (const auto& text : a.sets) {
    plan.sets.push_back(sweep::parse_set(text));
    for (std::size_t i = 0; i + 1 < plan.sets.size(); ++i)
      if (plan.sets[i].key == plan.sets.back().key) throw UsageError(fmt::format("--set {}: the key is set twice", plan.sets.back().key));
  }
  plan.variants = sweep::resolve_variants(base, a.protocols, a.assignors, !a.assignor_exec.empty());
  if (!a.assignor_exec.empty()) plan.assignor_exec = exec_command(a.assignor_exec);
  std::tie(plan.first_seed, plan.seeds) = parse_seeds(a.seeds, base.seed);
  const auto shown = sweep::shown_metrics(a.metrics);
  if (!a.shard.empty() && a.out.empty()) throw UsageError("--shard needs --out FILE (the shard's runs, for `merge`)");
  if (!a.shard.empty() && !a.html_file.empty()) throw UsageError("--html goes with the whole sweep: `merge --html` the shards");
  const auto indices = a.shard.empty() ? every_run(plan) : sweep::shard_runs(plan, a.shard);
  const auto scenarios = sweep::point_scenarios(plan, read_text(a.file));
  const auto records = run_with_progress(plan, scenarios, indices, a.jobs, "sweep");
  if (a.out == "-") {  // the lines alone on stdout: how the launchers collect a shard
    write_sweep_file(std::cout, plan, records);
    return kOk;
  }
  if (!a.out.empty()) write_sweep_file(a.out, plan, records);
  // A shard's invariants are judged when its runs are merged.
  if (!a.shard.empty()) {
    std::cout << fmt::format("shard {}: {} of {} runs written to {}\n", a.shard, records.size(), plan.runs(), a.out);
    return kOk;
  }
  return report_statistics(plan, records, sweep_title(plan), shown, a.html_file);
}

struct MergeArgs {
  std::vector<std::string> files;
  std::string out;
  std::string html_file;
  std::vector<std::string> metrics;
};

// Joins shard files into the unsharded sweep's file and tables.
int cmd_merge(const MergeArgs& a) {
  std::optional<sweep::Plan> plan;
  std::string header;
  std::vector<std::optional<sweep::Record>> records;
  for (const auto& f : a.files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) throw UsageError(fmt::format("merge: cannot read {}", f));
    std::string line;
    if (!std::getline(in, line)) throw UsageError(fmt::format("merge: {} is empty (not a sweep's --out file)", f));
    if (!plan) {
      plan = sweep::parse_header(line, fmt::format("{}:1", f));
      header = line;
      records.resize(plan->runs());
    } else if (line != header) {
      throw UsageError(fmt::format("merge: {} is from another sweep than {} (its header line differs)", f, a.files.front()));
    }
    for (int n = 2; std::getline(in, line); ++n) {
      const auto where = fmt::format("{}:{}", f, n);
      auto r = sweep::parse_run_line(*plan, line, where);
      if (records[r.run]) throw UsageError(fmt::format("merge: {}: run {} is in two files (shards overlap)", where, r.run));
      records[r.run] = std::move(r);
    }
  }
  std::vector<sweep::Record> all;
  std::vector<std::size_t> missing;
  for (std::size_t k = 0; k < records.size(); ++k) {
    if (records[k]) all.push_back(*records[k]);
    else missing.push_back(k);
  }
  if (!missing.empty())
    throw UsageError(fmt::format("merge: {} of {} runs missing (a shard not given or not finished), the first: run {}",
                                 missing.size(), records.size(), missing.front()));
  if (!a.out.empty()) write_sweep_file(a.out, *plan, all);
  return report_statistics(*plan, all, sweep_title(*plan), sweep::shown_metrics(a.metrics), a.html_file);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rebalance-sim: a deterministic simulator of Kafka group rebalance protocols"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rebalance-sim " RSIM_VERSION);
  app.footer("Exit codes: 0 ok, 1 an expectation or invariant failed, 2 bad input or usage.\n"
             "Run 'rebalance-sim SUBCOMMAND --help' for a subcommand's options and examples.");

  std::vector<std::string> validate_files;
  auto* validate = app.add_subcommand("validate", "Check scenario files against the scenario contract");
  validate->add_option("FILE", validate_files, "scenario files")->required();
  validate->footer("Examples:\n  rebalance-sim validate scenarios/quickstart.yaml\n  rebalance-sim validate scenarios/*.yaml");

  std::string topology_file;
  auto* topology = app.add_subcommand("topology", "Print a Streams scenario's sub-topologies, partition counts, changelogs and tasks");
  topology->add_option("FILE", topology_file, "scenario file with topology:")->required();
  topology->footer("Example:\n  rebalance-sim topology tests/scenarios/streams-topology.yaml");

  auto* list = app.add_subcommand("list", "List protocols, assignors and bundled scenarios, or the config keys");
  bool list_config = false;
  std::string list_format = "text";
  list->add_flag("--config", list_config, "every config key: default, unit, the protocols that use it, its meaning");
  list->add_option("--format", list_format, "with --config: text or markdown (docs/config-reference.md)")
      ->check(cli::one_of("format", {"text", "markdown"}))
      ->capture_default_str();
  list->footer("Examples:\n  rebalance-sim list\n  rebalance-sim list --config");

  const auto protocol_views = protocols::protocol_names();
  const std::vector<std::string> protocol_list(protocol_views.begin(), protocol_views.end());
  RunArgs run_args;
  auto* run = app.add_subcommand("run", "Run one variant of a scenario and print its summary");
  run->add_option("FILE", run_args.file, "scenario file")->required();
  run->add_option("--protocol", run_args.protocol, "override the scenario's protocol")
      ->check(cli::one_of("protocol", protocol_list));
  run->add_option("--assignor", run_args.assignor, "override the scenario's assignor");
  run->add_option("--assignor-exec", run_args.assignor_exec, "a plug-in assignor: CMD runs once per run and answers one JSON line per rebalance (README, \"Bring your own assignor\")");
  run->add_option("--seed", run_args.seed, "override the scenario's seed")->check(cli::non_negative_integer());
  run->add_option("--timeline", run_args.timeline, "print the timeline: text, jsonl or none")
      ->check(cli::one_of("timeline format", {"text", "jsonl", "none"}))
      ->capture_default_str();
  run->add_option("--format", run_args.format, "summary format: table or json")
      ->check(cli::one_of("format", {"table", "json"}))
      ->capture_default_str();
  run->add_option("--out", run_args.out_dir, "also write timeline.txt, timeline.jsonl, summary.json and summary.txt here");
  run->add_flag("--heartbeats", run_args.heartbeats, "include routine heartbeats in the text timeline");
  run->add_option("--trace", run_args.trace_file, "write a Perfetto / Chrome trace-event JSON file (ui.perfetto.dev)");
  run->add_option("--html", run_args.html_file, "write a self-contained HTML report");
  run->add_option("--html-focus", run_args.html_focus, "members whose resources the report draws one by one where it aggregates")
      ->delimiter(',')
      ->allow_extra_args(false);  // one comma-separated value: a FILE after it stays the FILE
  run->add_option("--records", run_args.records_file,
                  "write the group's records (consumer, streams) as Kafka writes them, one JSON line each");
  run->footer("Examples:\n"
              "  rebalance-sim run scenarios/quickstart.yaml --timeline text\n"
              "  rebalance-sim run scenarios/quickstart.yaml --seed 7 --timeline jsonl\n"
              "  rebalance-sim run scenarios/quickstart.yaml --format json --out results/\n"
              "  rebalance-sim run scenarios/rolling-bounce.yaml --trace rolling-bounce.trace.json\n"
              "  rebalance-sim run scenarios/streams/scale-out.yaml --records records.jsonl");

  CompareArgs compare_args;
  auto* compare = app.add_subcommand("compare", "Run several protocol/assignor variants on one scenario and seed, side by side");
  compare->add_option("FILE", compare_args.file, "scenario file")->required();
  compare->add_option("--protocols", compare_args.protocols, "protocols to run (default: every one this version runs)")
      ->delimiter(',');
  compare->add_option("--assignors", compare_args.assignors, "assignors to try with each protocol (default: the protocol's)")
      ->delimiter(',');
  compare->add_option("--assignor-exec", compare_args.assignor_exec, "a plug-in assignor, run as assignor exec (beside those --assignors names)");
  compare->add_option("--seed", compare_args.seed, "override the scenario's seed")->check(cli::non_negative_integer());
  compare->add_option("--html", compare_args.html_file, "also write a self-contained HTML report, the variants stacked");
  compare->add_option("--html-focus", compare_args.html_focus, "members whose resources the report draws one by one where it aggregates")
      ->delimiter(',')
      ->allow_extra_args(false);  // one comma-separated value: a FILE after it stays the FILE
  compare->add_option("--format", compare_args.format, "table, csv, json or markdown")
      ->check(cli::one_of("format", {"table", "csv", "json", "markdown"}))
      ->capture_default_str();
  compare->add_option("--seeds", compare_args.seeds, "N seeds from the scenario's, or A..B: each variant's mean, error (99.9% CI), min and max");
  compare->add_option("--jobs", compare_args.jobs, "with --seeds: runs at once, each in a worker process (default: every core)")
      ->check(CLI::PositiveNumber);
  compare->add_option("--metrics", compare_args.metrics, "with --seeds: the metrics shown, the first ranks (default: compare's columns)")
      ->delimiter(',');
  compare->footer("Rows are ranked by downtime.total. Exit 1 if a variant breaks an invariant.\n"
                  "With --seeds: a JMH-style table per variant and metric (Cnt, Mean, Error = half-width of the\n"
                  "99.9% confidence interval, Student's t; Min, Max, Units) and a ranking that says which variants\n"
                  "these seeds cannot tell apart (overlapping intervals).\nExamples:\n"
                  "  rebalance-sim compare scenarios/rolling-bounce.yaml\n"
                  "  rebalance-sim compare scenarios/quickstart.yaml --seeds 30 --html quickstart-seeds.html\n"
                  "  rebalance-sim compare scenarios/rolling-bounce.yaml --protocols eager --assignors range,roundrobin,sticky\n"
                  "  rebalance-sim compare scenarios/rolling-bounce.yaml --format csv");

  CheckArgs check_args;
  auto* check = app.add_subcommand("check", "Evaluate expect: blocks and compare metrics with a baseline (CI gate)");
  check->add_option("FILE", check_args.files, "scenario files")->required();
  check->add_option("--baseline", check_args.baseline, "baseline JSON of metrics to compare with");
  check->add_flag("--update-baseline", check_args.update, "write the current metrics to --baseline instead of comparing");
  check->add_option("--tolerance", check_args.tolerances, "allowed rise of a metric in percent, e.g. downtime.total=5")
      ->delimiter(',');
  check->add_option("--protocol", check_args.protocol, "run every scenario with this protocol")->check(cli::one_of("protocol", protocol_list));
  check->add_option("--assignor", check_args.assignor, "run every scenario with this assignor");
  check->add_option("--assignor-exec", check_args.assignor_exec, "a plug-in assignor: CMD runs once per run and answers one JSON line per rebalance (README, \"Bring your own assignor\")");
  check->add_option("--seed", check_args.seed, "override every scenario's seed")->check(cli::non_negative_integer());
  check->add_option("--format", check_args.format, "text, or junit (JUnit XML for CI systems)")
      ->check(cli::one_of("format", {"text", "junit"}))
      ->capture_default_str();
  check->footer("Every metric a baseline keeps is better when lower; runs are deterministic, so without a\n"
                "tolerance any rise is a regression. Exit 1 on a failed expectation, an invariant violation\n"
                "or a regression.\nExamples:\n"
                "  rebalance-sim check scenarios/*.yaml scenarios/seed/*.yaml\n"
                "  rebalance-sim check scenarios/rolling-bounce.yaml --baseline baseline.json --update-baseline\n"
                "  rebalance-sim check scenarios/rolling-bounce.yaml --baseline baseline.json --assignor roundrobin\n"
                "  rebalance-sim check scenarios/rolling-bounce.yaml --baseline baseline.json --tolerance downtime.total=5");

  std::string assign_file, assign_assignor, assign_protocol = "classic";
  auto* assign = app.add_subcommand("assign", "Run one assignor on a group snapshot and print the assignment as JSON");
  assign->add_option("SNAPSHOT", assign_file, "group snapshot, JSON or YAML (scenario-format.md, \"Group snapshots\")")->required();
  assign->add_option("--assignor", assign_assignor, "assignor name (default: the snapshot's \"assignor\")");
  std::string assign_exec;
  assign->add_option("--assignor-exec", assign_exec, "a plug-in assignor's command: send it the snapshot, check and print its answer");
  assign->add_option("--protocol", assign_protocol,
                     "assignor family: classic (client side), consumer or streams (broker side); with --assignor-exec "
                     "also cooperative (a classic rebalance that lets the plug-in withhold what moves)")
      ->check(cli::one_of("protocol side", {"classic", "consumer", "streams", "cooperative"}))
      ->capture_default_str();
  assign->footer("Examples:\n  rebalance-sim assign --assignor range tests/snapshots/two-topics.json\n"
                 "  rebalance-sim assign --assignor roundrobin tests/snapshots/two-topics.json\n"
                 "  rebalance-sim assign --protocol streams tests/snapshots/streams-standby.json");

  std::vector<std::string> vector_files;
  bool vectors_verbose = false;
  auto* vectors_cmd = app.add_subcommand("vectors", "Run assignor test vector files against the built-in assignors");
  vectors_cmd->add_option("FILE", vector_files, "vector files (the schema of tests/vectors/)")->required();
  vectors_cmd->add_flag("--verbose", vectors_verbose, "also list the cases that pass");
  std::string vectors_exec;
  vectors_cmd->add_option("--assignor-exec", vectors_exec, "run every client- and broker-side case against this plug-in instead of the built-ins");
  vectors_cmd->footer("Prints FAIL (with what differed) and SKIP (with the reason) per case, then the totals;\n"
                      "exit 1 if any case fails.\nExamples:\n  rebalance-sim vectors tests/vectors/*.yaml\n"
                      "  rebalance-sim vectors --verbose tests/vectors/RangeAssignorTest.client.yaml");

  SwarmArgs swarm_args;
  auto* swarm_cmd = app.add_subcommand("swarm", "Random fault schedules per protocol, checked for safety and liveness; failures shrunk");
  swarm_cmd->add_option("FILE", swarm_args.file, "a scenario file to run under many seeds (instead of --random)");
  swarm_cmd->add_flag("--random", swarm_args.random, "random scenarios: every event kind and network fault, then a quiet phase");
  swarm_cmd->add_option("--protocols", swarm_args.protocols, "protocols to test (default: every one this version runs; FILE: its own)")
      ->delimiter(',');
  swarm_cmd->add_option("--seeds", swarm_args.seeds, "N seeds (from 1, or from the file's seed) or A..B (default: 100; FILE: 1)");
  swarm_cmd->add_option("--jobs", swarm_args.jobs, "runs at once, each in its own process (default: every core)");
  swarm_cmd->add_option("--out", swarm_args.out_dir, "where shrunk failing scenarios are written")->capture_default_str();
  swarm_cmd->add_flag("--no-shrink", swarm_args.no_shrink, "report failing seeds without shrinking them");
  swarm_cmd->add_option("--shrink-budget", swarm_args.shrink_budget, "candidate runs per shrink")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  swarm_cmd->add_option("--wall-limit", swarm_args.wall_limit_s, "seconds of real time before a run counts as hung")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  swarm_cmd->add_option("--scale", swarm_args.scale,
                        "random: members, partitions, connector tasks and faults multiplied by K (1 to 50)")
      ->check(CLI::Range(1, swarm::kMaxSwarmScale))
      ->capture_default_str();
  swarm_cmd->footer("Safety: no resource owned by two members in good standing; zombies end within a bound; generations\n"
                    "and epochs only grow; an eager member owns nothing when it joins; static members never send LeaveGroup.\n"
                    "Liveness: after the faults end, the group settles within a bound derived from its timeouts.\n"
                    "The first failing seed of each protocol and kind is shrunk to a small scenario file (--out) with the\n"
                    "command that reproduces it. Exit 1 if any run fails.\nExamples:\n"
                    "  rebalance-sim swarm --random --protocols cooperative,consumer --seeds 500\n"
                    "  rebalance-sim swarm --random --seeds 1000..1999 --jobs 8\n"
                    "  rebalance-sim swarm --random --scale 8 --protocols consumer,streams --seeds 200\n"
                    "  rebalance-sim swarm scenarios/rolling-bounce.yaml --protocols eager,cooperative --seeds 50\n"
                    "  rebalance-sim swarm swarm-findings/cooperative-liveness-seed17.yaml --protocols cooperative");

  SweepArgs sweep_args;
  auto* sweep_cmd = app.add_subcommand("sweep", "Run the cross product of scenario settings, variants and seeds; statistics per point");
  sweep_cmd->add_option("FILE", sweep_args.file, "scenario file")->required();
  sweep_cmd->add_option("--set", sweep_args.sets, "KEY=v1,v2,..: a dotted path into the scenario (members.count, config.session.timeout.ms)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sweep_cmd->add_option("--protocols", sweep_args.protocols, "protocols to run (default: every one this version runs)")->delimiter(',');
  sweep_cmd->add_option("--assignors", sweep_args.assignors, "assignors to try with each protocol (default: the protocol's)")->delimiter(',');
  sweep_cmd->add_option("--assignor-exec", sweep_args.assignor_exec, "a plug-in assignor, run as assignor exec beside those --assignors names (each run starts its own process)");
  sweep_cmd->add_option("--seeds", sweep_args.seeds, "N seeds from the scenario's, or A..B (default: the scenario's seed)");
  sweep_cmd->add_option("--jobs", sweep_args.jobs, "runs at once, each in a worker process (default: every core)")->check(CLI::PositiveNumber);
  sweep_cmd->add_option("--out", sweep_args.out, "write one JSON line per run (after a header line) to this file; - : to stdout, alone");
  sweep_cmd->add_option("--shard", sweep_args.shard, "I/N: run only every N-th run from the I-th (1-based); `merge` joins the shards");
  sweep_cmd->add_option("--html", sweep_args.html_file, "write a self-contained HTML plot: each metric against the first --set key");
  sweep_cmd->add_option("--metrics", sweep_args.metrics, "the metrics in the tables and plot, the first ranks (default: compare's columns)")
      ->delimiter(',');
  sweep_cmd->footer("Runs are numbered point by point (the last --set varies fastest), then variant, then seed; the\n"
                    "output is the same whatever --jobs or --shard is. Exit 1 if a run breaks an invariant.\nExamples:\n"
                    "  rebalance-sim sweep scenarios/quickstart.yaml --set config.session.timeout.ms=10000,45000 --seeds 10\n"
                    "  rebalance-sim sweep scenarios/quickstart.yaml --set members.2.start=1s,5s --protocols eager,consumer --out runs.jsonl\n"
                    "  rebalance-sim sweep scenarios/quickstart.yaml --seeds 100 --shard 2/4 --out shard-2.jsonl\n"
                    "  rebalance-sim sweep scenarios/sweeps/session-timeout-crash.yaml --set config.session.timeout.ms=6000,10000 --html plot.html");

  MergeArgs merge_args;
  auto* merge_cmd = app.add_subcommand("merge", "Join the --out files of a sweep's shards into the unsharded sweep's file and tables");
  merge_cmd->add_option("FILES", merge_args.files, "shard files (sweep --shard I/N --out FILE)")->required();
  merge_cmd->add_option("--out", merge_args.out, "write the merged JSON lines here (as an unsharded sweep --out would)");
  merge_cmd->add_option("--html", merge_args.html_file, "write the sweep's HTML plot");
  merge_cmd->add_option("--metrics", merge_args.metrics, "the metrics in the tables and plot")->delimiter(',');
  merge_cmd->footer("Exit 2 if the files are from different sweeps, overlap or miss runs.\nExample:\n"
                    "  rebalance-sim merge shard-*.jsonl --out sweep.jsonl");

  if (const auto unknown = cli::unknown_subcommand(app, argc, argv)) {
    std::cerr << "rebalance-sim: " << *unknown << '\n';
    return kBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "rebalance-sim: " << cli::explain(app, e) << '\n';  // one line, naming the --help to read
    return kBadInput;
  }

  try {
    if (*validate) return cmd_validate(validate_files);
    if (*topology) return cmd_topology(topology_file);
    if (*list) return cmd_list(list_config, list_format);
    if (*run) return cmd_run(run_args);
    if (*assign && !assign_exec.empty()) return cmd_assign_exec(assign_file, assign_assignor, assign_protocol, assign_exec);
    if (*assign) return cmd_assign(assign_file, assign_assignor, assign_protocol);
    if (*compare) return cmd_compare(compare_args);
    if (*check) return cmd_check(check_args);
    if (*vectors_cmd) return cmd_vectors(vector_files, vectors_verbose, vectors_exec);
    if (*swarm_cmd) return cmd_swarm(swarm_args);
    if (*sweep_cmd) return cmd_sweep(sweep_args);
    if (*merge_cmd) return cmd_merge(merge_args);
  } catch (const scenario::InputError& e) {
    std::cerr << e.what() << '\n';
    return kBadInput;
  } catch (const UsageError& e) {
    std::cerr << "rebalance-sim: " << e.what() << '\n';
    return kBadInput;
  } catch (const protocols::PluginError& e) {  // a plug-in assignor's bad answer stops the run
    std::cerr << "rebalance-sim: " << e.what() << '\n';
    return kBadInput;
  } catch (const sweep::OptionError& e) {
    std::cerr << "rebalance-sim: " << e.what() << '\n';
    return kBadInput;
  } catch (const sweep::RunFailed& e) {
    std::cerr << "rebalance-sim: " << e.what() << '\n';
    return kFailed;
  }
  return kBadInput;
}
