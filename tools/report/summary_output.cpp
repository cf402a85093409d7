#include "tools/report/summary_output.hpp"

#include "scenarios/metric_names.hpp"

#include <fmt/format.h>
#include <cmath>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace rsim::report {

void write_summary_table(std::ostream& out, const scenario::Scenario& s, const scenario::RunResult& run,
                         const metrics::Summary& m, const std::vector<metrics::ExpectResult>& expect) {
  out << fmt::format("scenario          {} (protocol {}, assignor {}, seed {})\n", s.name, run.protocol, run.assignor, run.seed);
  out << fmt::format("window            {} .. {}\n", m.window_start ? format_time(*m.window_start) : std::string("never stable"),
                     format_time(m.end));
  out << fmt::format("rebalances        {}\n", m.rebalances);
  out << fmt::format("stop-the-world    {}\n", format_duration(m.stop_the_world));
  out << fmt::format("downtime.total    {}\n", format_duration(m.downtime.total));
  out << fmt::format("downtime.max      {}\n", format_duration(m.downtime.max));
  out << fmt::format("downtime.p50      {}\n", format_duration(m.downtime.p50));
  out << fmt::format("downtime.p99      {}\n", format_duration(m.downtime.p99));
  out << fmt::format("time-to-stable    {}\n", format_duration(m.time_to_stable));
  if (m.lag) {
    out << fmt::format("lag.peak          {:.0f}\n", m.lag->peak);
    out << fmt::format("lag.catch-up      {}{}\n", format_duration(m.lag->catch_up), m.lag->drained ? "" : " (not drained at the end)");
  }
  if (m.restoration) out << fmt::format("restoration       {}\n", format_duration(*m.restoration));
  out << fmt::format("moves             {}\n", m.moves);
  out << fmt::format("revocations       {}\n", m.revocations);
  out << fmt::format("protocol-bytes    {}\n", m.protocol_bytes);
  if (m.target_batch_max)
    out << fmt::format("target-batch.max  {} bytes{}\n", *m.target_batch_max,
                       m.target_batch_over_limit ? fmt::format(" ({} over message.max.bytes)", m.target_batch_over_limit) : "");
  out << fmt::format("final-generation  {}\n", m.final_generation);
  out << fmt::format("invariants        {}\n", m.violation ? metrics::describe(*m.violation) : std::string("ok"));
  out << fmt::format("zombies           {}\n", m.zombies.size());
  out << "final-assignment\n";
  for (const auto& [member, resources] : m.final_assignment)
    out << fmt::format("  {:<14}  {}\n", member, fmt::join(resources, " "));
  if (!expect.empty()) {
    out << "expect\n";
    for (const auto& e : expect)
      out << fmt::format("  {:<4} {:<18} want {}  got {}\n", e.ok ? "ok" : "FAIL", e.name, e.want, e.got);
  }
}

void write_summary_json(std::ostream& out, const scenario::Scenario& s, const scenario::RunResult& run,
                        const metrics::Summary& m, const std::vector<metrics::ExpectResult>& expect) {
  nlohmann::ordered_json j;
  j["scenario"] = s.name;
  j["protocol"] = run.protocol;
  j["assignor"] = run.assignor;
  j["seed"] = run.seed;
  nlohmann::ordered_json metrics;
  auto seconds = [](Duration d) { return static_cast<double>(d.count()) / 1e6; };
  for (const auto& name : scenario::metric_names()) {
    const auto v = metrics::value(m, name.name);
    if (!v) continue;  // not a number, or not computed in this run (lag without load:)
    const std::string key(name.name);
    if (name.kind == scenario::MetricKind::Count && !name.fractional) metrics[key] = std::llround(*v);
    else metrics[key] = *v;
  }
  metrics["invariants"] = m.violation ? metrics::describe(*m.violation) : std::string("ok");
  metrics["zombies"] = m.zombies.size();
  j["metrics"] = metrics;
  j["window"] = {{"from", m.window_start ? nlohmann::json(static_cast<double>(micros(*m.window_start)) / 1e6) : nlohmann::json()},
                 {"to", static_cast<double>(micros(m.end)) / 1e6}};
  nlohmann::ordered_json fa = nlohmann::ordered_json::object();
  for (const auto& [member, resources] : m.final_assignment) fa[member] = resources;
  j["final-assignment"] = fa;
  nlohmann::ordered_json recoveries = nlohmann::ordered_json::array();
  for (const auto& r : m.recoveries)
    recoveries.push_back({{"at", seconds(r.at.time_since_epoch())},
                          {"action", r.action},
                          {"member", r.member},
                          {"time-to-stable", r.stable ? nlohmann::ordered_json(seconds(*r.stable - r.at)) : nlohmann::ordered_json()},
                          {"rebalances", r.rebalances},
                          {"revocations", r.revocations}});
  j["disruptions"] = recoveries;
  nlohmann::ordered_json ex = nlohmann::ordered_json::array();
  for (const auto& e : expect) ex.push_back({{"name", e.name}, {"want", e.want}, {"got", e.got}, {"ok", e.ok}});
  j["expect"] = ex;
  out << j.dump(2) << '\n';
}

}  // namespace rsim::report
