#include "tools/sweep/plan.hpp"

#include "metrics/summary.hpp"
#include "protocols/assignors/exec.hpp"
#include "protocols/catalog.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/metric_names.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/supported.hpp"
#include "scenarios/values.hpp"
#include "tools/swarm/isolation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <map>
#include <tuple>

namespace rsim::sweep {

using Json = nlohmann::ordered_json;

namespace {

// A plug-in can take the assignor's place everywhere but a classic Streams
// application's leader (Kafka Streams' own assignor).
bool plugin_side(const scenario::Scenario& s, const protocols::ProtocolInfo& p) {
  return s.subtopologies.empty() || p.family != protocols::Family::Classic;
}

}  // namespace

std::vector<Variant> resolve_variants(const scenario::Scenario& s, const std::vector<std::string>& requested,
                                      std::vector<std::string> assignors, bool plugin) {
  if (plugin && std::find(assignors.begin(), assignors.end(), "exec") == assignors.end()) assignors.push_back("exec");
  const std::vector<std::string> names = requested.empty() ? scenario::protocols_for(s) : requested;
  std::vector<Variant> variants;
  for (const auto& p : names) {
    const auto* info = protocols::find_protocol(p);
    if (info == nullptr)
      throw OptionError(fmt::format("--protocols: unknown protocol '{}'{}", p,
                                    scenario::did_you_mean(p, protocols::protocol_names())));
    if (!info->runnable)
      throw OptionError(fmt::format("--protocols: '{}' is not simulated by this version; `rebalance-sim list` shows what runs", p));
    if (assignors.empty()) {
      variants.push_back({p, scenario::default_assignor(s, p)});
      continue;
    }
    for (const auto& as : assignors) {
      if (protocols::find_assignor(info->family, as) == nullptr)
        throw OptionError(fmt::format("--assignors: unknown {} assignor '{}'{}", protocols::family_name(info->family), as,
                                      scenario::did_you_mean(as, protocols::assignor_names(info->family))));
      if (protocols::accepts(*info, as) && (as != "exec" || plugin_side(s, *info))) variants.push_back({p, as});
    }
  }
  if (variants.empty()) throw OptionError("no variant to run (the cooperative protocol needs cooperative-sticky)");
  return variants;
}

// ---------------------------------------------------------------- plan --

std::size_t Plan::points() const {
  std::size_t n = 1;
  for (const auto& s : sets) n *= s.values.size();
  return n;
}

std::vector<std::string> Plan::point_values(std::size_t point) const {
  assert(point < points());
  std::vector<std::string> out(sets.size());
  for (std::size_t i = sets.size(); i-- > 0;) {
    out[i] = sets[i].values[point % sets[i].values.size()];
    point /= sets[i].values.size();
  }
  return out;
}

std::string Plan::point_name(std::size_t point) const {
  const auto values = point_values(point);
  std::string out;
  for (std::size_t i = 0; i < sets.size(); ++i) out += fmt::format("{}{}={}", i ? " " : "", sets[i].key, values[i]);
  return out;
}

Plan::Run Plan::run(std::size_t index) const {
  assert(index < runs());
  const auto per_point = variants.size() * static_cast<std::size_t>(seeds);
  const auto within = index % per_point;
  return Run{index / per_point, within / static_cast<std::size_t>(seeds), first_seed + within % seeds};
}

namespace {

// A set value as JSON: a number where it reads as one, so plots get an axis.
Json typed(const std::string& value) {
  if (const auto i = scenario::parse_integer(value)) return *i;
  if (const auto x = scenario::parse_number(value)) return *x;
  return value;
}

Json parse_json(const std::string& line, const std::string& where) {
  try {
    return Json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    throw OptionError(fmt::format("{}: not a sweep's JSON line: {}", where, e.what()));
  }
}

}  // namespace

std::string header_line(const Plan& plan) {
  Json sets = Json::array();
  for (const auto& s : plan.sets) sets.push_back(Json{{"key", s.key}, {"values", s.values}});
  Json variants = Json::array();
  for (const auto& v : plan.variants) variants.push_back(Json{{"protocol", v.protocol}, {"assignor", v.assignor}});
  Json j;
  j["sweep"] = Json{{"file", plan.file},         {"scenario", plan.scenario_name}, {"set", sets},
                    {"variants", variants},      {"first-seed", plan.first_seed},  {"seeds", plan.seeds},
                    {"runs", plan.runs()}};
  return j.dump();
}

Plan parse_header(const std::string& line, const std::string& where) {
  const auto j = parse_json(line, where);
  try {
    const auto& h = j.at("sweep");
    Plan p;
    p.file = h.at("file").get<std::string>();
    p.scenario_name = h.at("scenario").get<std::string>();
    for (const auto& s : h.at("set")) p.sets.push_back({s.at("key").get<std::string>(), s.at("values").get<std::vector<std::string>>()});
    for (const auto& v : h.at("variants")) p.variants.push_back({v.at("protocol").get<std::string>(), v.at("assignor").get<std::string>()});
    p.first_seed = h.at("first-seed").get<std::uint64_t>();
    p.seeds = h.at("seeds").get<std::uint64_t>();
    if (p.variants.empty() || p.seeds == 0 || h.at("runs").get<std::size_t>() != p.runs())
      throw OptionError(fmt::format("{}: the sweep header does not add up", where));
    for (const auto& s : p.sets)
      if (s.values.empty()) throw OptionError(fmt::format("{}: --set {} has no values", where, s.key));
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw OptionError(fmt::format("{}: not a sweep header (the first line of `sweep --out`): {}", where, e.what()));
  }
}

const std::vector<std::string>& run_metrics() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> out;
    for (const auto& m : scenario::metric_names())
      if (m.kind == scenario::MetricKind::Count || m.kind == scenario::MetricKind::Seconds) out.emplace_back(m.name);
    return out;
  }();
  return kNames;
}

std::string run_line(const Plan& plan, std::size_t run, const Record& record) {
  const auto r = plan.run(run);
  const auto values = plan.point_values(r.point);
  Json point = Json::object();
  for (std::size_t i = 0; i < plan.sets.size(); ++i) point[plan.sets[i].key] = typed(values[i]);
  Json metrics = Json::object();
  for (std::size_t i = 0; i < run_metrics().size(); ++i) {
    const auto* m = scenario::find_metric(run_metrics()[i]);
    const auto& x = record.metrics[i];
    if (!x) metrics[m->name] = nullptr;
    else if (m->kind == scenario::MetricKind::Count && !m->fractional) metrics[m->name] = static_cast<long long>(*x);
    else metrics[m->name] = *x;
  }
  Json j;
  j["run"] = run;
  j["point"] = point;
  j["variant"] = plan.variants[r.variant].name();
  j["seed"] = r.seed;
  j["metrics"] = metrics;
  j["invariants"] = record.invariants;
  return j.dump();
}

Record parse_run_line(const Plan& plan, const std::string& line, const std::string& where) {
  const auto j = parse_json(line, where);
  try {
    Record rec;
    rec.run = j.at("run").get<std::size_t>();
    if (rec.run >= plan.runs()) throw OptionError(fmt::format("{}: run {} is beyond this sweep's {} runs", where, rec.run, plan.runs()));
    const auto r = plan.run(rec.run);
    if (j.at("variant").get<std::string>() != plan.variants[r.variant].name() || j.at("seed").get<std::uint64_t>() != r.seed)
      throw OptionError(fmt::format("{}: run {} is not the variant and seed this sweep's header gives it", where, rec.run));
    for (const auto& name : run_metrics()) {
      const auto& x = j.at("metrics").at(name);
      rec.metrics.push_back(x.is_null() ? std::nullopt : std::optional<double>(x.get<double>()));
    }
    rec.invariants = j.at("invariants").get<std::string>();
    return rec;
  } catch (const nlohmann::json::exception& e) {
    throw OptionError(fmt::format("{}: not a sweep's run line: {}", where, e.what()));
  }
}

// ---------------------------------------------------------------- running --

std::vector<scenario::Scenario> point_scenarios(const Plan& plan, const std::string& text) {
  // Each value alone first, so a bad one is named by its own option.
  for (const auto& s : plan.sets)
    for (const auto& v : s.values) {
      try {
        scenario::load_text(set_value(text, plan.file, s.key, v), plan.file);
      } catch (const scenario::InputError& e) {
        throw OptionError(fmt::format("--set {}={}: {}", s.key, v, e.what()));
      }
    }
  std::vector<scenario::Scenario> out;
  for (std::size_t p = 0; p < plan.points(); ++p) {
    std::string t = text;
    const auto values = plan.point_values(p);
    for (std::size_t i = 0; i < plan.sets.size(); ++i) t = set_value(t, plan.file, plan.sets[i].key, values[i]);
    try {
      out.push_back(scenario::load_text(t, plan.file));
    } catch (const scenario::InputError& e) {
      throw OptionError(fmt::format("--set {}: {}", plan.point_name(p), e.what()));
    }
  }
  return out;
}

std::vector<Record> run_plan(const Plan& plan, const std::vector<scenario::Scenario>& scenarios,
                             const std::vector<std::size_t>& indices, unsigned jobs,
                             const std::function<void(std::size_t, std::size_t)>& progress) {
  assert(scenarios.size() == plan.points());
  // A result is "ok LINE" or "refused MESSAGE" (the simulator's InputError).
  const auto work = [&](std::size_t i) -> std::string {
    const auto r = plan.run(indices[i]);
    const auto& s = scenarios[r.point];
    scenario::RunOptions o;
    o.protocol = plan.variants[r.variant].protocol;
    o.assignor = plan.variants[r.variant].assignor;
    o.seed = r.seed;
    if (o.assignor == "exec") o.assignor_exec = plan.assignor_exec;
    o.routine_events = false;  // a sweep keeps the summary only, folded as the run goes
    o.keep_trace = false;
    try {
      const auto summary = metrics::run_summarized(s, o).summary;
      Record rec;
      rec.run = indices[i];
      for (const auto& name : run_metrics()) rec.metrics.push_back(metrics::value(summary, name));
      rec.invariants = summary.violation ? metrics::describe(*summary.violation) : std::string("ok");
      return "ok " + run_line(plan, indices[i], rec);
    } catch (const scenario::InputError& e) {
      return std::string("refused ") + e.what();
    } catch (const protocols::PluginError& e) {  // the plug-in's bad answer: the user's to fix, exit 2
      return std::string("refused ") + e.what();
    }
  };
  swarm::Isolation isolation;
  isolation.jobs = std::max(1u, jobs);
  isolation.wall_limit = std::chrono::seconds(24 * 3600);  // a long run is a result, not a hang
  std::size_t done = 0;
  const auto results = swarm::run_isolated(indices.size(), isolation, work, [&](std::size_t) {
    ++done;
    if (progress) progress(done, indices.size());
  });
  std::vector<Record> out;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto r = plan.run(indices[i]);
    const auto what = fmt::format("run {} ({}, seed {}{}{})", indices[i], plan.variants[r.variant].name(), r.seed,
                                  plan.sets.empty() ? "" : ", ", plan.point_name(r.point));
    if (!results[i].ok) throw RunFailed(fmt::format("{} {}\n{}", what, results[i].failure(), results[i].error_tail));
    const auto& text = results[i].output;
    if (text.rfind("refused ", 0) == 0) throw OptionError(fmt::format("{}: {}", what, text.substr(8)));
    out.push_back(parse_run_line(plan, text.substr(3), what));
  }
  return out;
}

std::vector<std::size_t> shard_runs(const Plan& plan, const std::string& shard) {
  const auto slash = shard.find('/');
  const auto i = scenario::parse_integer(shard.substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : scenario::parse_integer(shard.substr(slash + 1));
  if (!i || !n || *n < 1 || *i < 1 || *i > *n)
    throw OptionError(fmt::format("--shard: expected I/N with 1 <= I <= N (e.g. 2/8), got '{}'", shard));
  std::vector<std::size_t> out;
  for (std::size_t k = static_cast<std::size_t>(*i - 1); k < plan.runs(); k += static_cast<std::size_t>(*n)) out.push_back(k);
  return out;
}

// ---------------------------------------------------------------- tables --

std::vector<std::vector<Cell>> estimate_cells(const Plan& plan, const std::vector<Record>& records) {
  assert(records.size() == plan.runs());
  const auto& names = run_metrics();
  std::vector<std::vector<Cell>> cells(plan.points(), std::vector<Cell>(plan.variants.size()));
  for (std::size_t p = 0; p < plan.points(); ++p)
    for (std::size_t v = 0; v < plan.variants.size(); ++v) {
      auto& cell = cells[p][v];
      const auto first = (p * plan.variants.size() + v) * static_cast<std::size_t>(plan.seeds);
      for (std::size_t m = 0; m < names.size(); ++m) {
        std::vector<double> samples;
        for (std::size_t k = first; k < first + plan.seeds; ++k)
          if (records[k].metrics[m]) samples.push_back(*records[k].metrics[m]);
        cell.metrics.push_back(estimate(samples));
      }
      for (std::size_t k = first; k < first + plan.seeds; ++k) cell.violations += records[k].violated() ? 1 : 0;
    }
  return cells;
}

std::string unit_of(const std::string& metric) {
  const auto* m = scenario::find_metric(metric);
  assert(m != nullptr);
  if (m->kind == scenario::MetricKind::Seconds) return "s";
  if (metric == "protocol-bytes") return "bytes";
  if (metric == "lag.peak") return "messages";
  return "count";
}

std::vector<std::string> default_shown_metrics() {
  std::vector<std::string> out;
  for (const auto& m : scenario::metric_names())
    if (m.compared) out.emplace_back(m.name);
  // The ranking metric first.
  std::stable_partition(out.begin(), out.end(), [](const auto& n) { return n == "downtime.total"; });
  return out;
}

std::vector<std::string> shown_metrics(const std::vector<std::string>& names) {
  if (names.empty()) return default_shown_metrics();
  std::vector<std::string_view> known(run_metrics().begin(), run_metrics().end());
  for (const auto& n : names)
    if (std::find(run_metrics().begin(), run_metrics().end(), n) == run_metrics().end())
      throw OptionError(fmt::format("--metrics: '{}' is not a numeric metric{}; one of: {}", n, scenario::did_you_mean(n, known),
                                    fmt::format("{}", fmt::join(run_metrics(), ", "))));
  return names;
}

namespace {

std::size_t metric_index(const std::string& name) {
  const auto& names = run_metrics();
  const auto it = std::find(names.begin(), names.end(), name);
  assert(it != names.end());
  return static_cast<std::size_t>(it - names.begin());
}

std::string number(double x) { return fmt::format("{:.3f}", x); }
std::string error_text(const Estimate& e) { return e.error ? number(*e.error) : "NaN"; }

void write_ranking(std::ostream& out, const Plan& plan, const std::vector<Cell>& row, const std::string& metric) {
  const auto m = metric_index(metric);
  std::vector<std::size_t> order;
  for (std::size_t v = 0; v < row.size(); ++v)
    if (row[v].metrics[m].count > 0) order.push_back(v);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tuple(row[a].metrics[m].mean, plan.variants[a].name()) < std::tuple(row[b].metrics[m].mean, plan.variants[b].name());
  });
  out << fmt::format("ranked by mean {} ({}); variants whose intervals overlap are not distinguishable:\n", metric, unit_of(metric));
  std::size_t width = 7;
  for (const auto& v : plan.variants) width = std::max(width, v.name().size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& e = row[order[i]].metrics[m];
    std::vector<std::string> ties;
    for (std::size_t j = 0; j < order.size(); ++j)
      if (j != i && indistinguishable(e, row[order[j]].metrics[m])) ties.push_back(plan.variants[order[j]].name());
    std::string note;
    if (!e.error) note = "  (one seed: no interval)";
    else if (!ties.empty()) note = fmt::format("  not distinguishable from {}", fmt::join(ties, ", "));
    const auto& cell = row[order[i]];
    if (cell.violations > 0) note += fmt::format("  INVARIANTS VIOLATED in {} of {} runs", cell.violations, plan.seeds);
    out << fmt::format("  {:>2}. {:<{}}  {:>12} ± {:>10}{}\n", i + 1, plan.variants[order[i]].name(), width, number(e.mean),
                       error_text(e), note);
  }
}

}  // namespace

void write_tables(std::ostream& out, const Plan& plan, const std::vector<std::vector<Cell>>& cells,
                  const std::vector<std::string>& shown, const std::string& title) {
  out << title << '\n';
  out << fmt::format("Error: half-width of the {:g}% confidence interval of the mean (Student's t, Cnt-1 degrees of freedom), as JMH\n",
                     kConfidence * 100);
  std::size_t vwidth = 7, mwidth = 6;
  for (const auto& v : plan.variants) vwidth = std::max(vwidth, v.name().size());
  for (const auto& m : shown) mwidth = std::max(mwidth, m.size());
  for (std::size_t p = 0; p < plan.points(); ++p) {
    out << '\n';
    if (!plan.sets.empty()) out << fmt::format("point {} of {}: {}\n", p + 1, plan.points(), plan.point_name(p));
    out << fmt::format("{:<{}}  {:<{}}  {:>5}  {:>12}   {:>10}  {:>12}  {:>12}  {}\n", "Variant", vwidth, "Metric", mwidth, "Cnt",
                       "Mean", "Error", "Min", "Max", "Units");
    for (std::size_t v = 0; v < plan.variants.size(); ++v)
      for (const auto& name : shown) {
        const auto& e = cells[p][v].metrics[metric_index(name)];
        if (e.count == 0) {
          out << fmt::format("{:<{}}  {:<{}}  {:>5}  {:>12}   {:>10}  {:>12}  {:>12}  {}\n", plan.variants[v].name(), vwidth, name,
                             mwidth, 0, "-", "-", "-", "-", unit_of(name));
          continue;
        }
        out << fmt::format("{:<{}}  {:<{}}  {:>5}  {:>12} ± {:>10}  {:>12}  {:>12}  {}\n", plan.variants[v].name(), vwidth, name,
                           mwidth, e.count, number(e.mean), error_text(e), number(e.min), number(e.max), unit_of(name));
      }
    write_ranking(out, plan, cells[p], shown.front());
  }
}

}  // namespace rsim::sweep
