#include "tools/report/baseline.hpp"

#include "scenarios/errors.hpp"
#include "scenarios/metric_names.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace rsim::report {

std::map<std::string, double> baseline_metrics(const metrics::Summary& s) {
  std::map<std::string, double> out;
  for (const auto& m : scenario::metric_names())
    if (m.baselined) out[std::string(m.name)] = metrics::value(s, m.name).value_or(0);
  return out;
}

Baseline read_baseline(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw scenario::InputError(path, scenario::Mark{}, "cannot open the baseline (create it with --update-baseline)");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw scenario::InputError(path, scenario::Mark{}, fmt::format("not valid JSON: {}", e.what()));
  }
  Baseline b;
  try {
    if (j.value("version", 0) != 1) throw scenario::InputError(path, scenario::Mark{}, "not a rebalance-sim baseline (version 1)");
    for (const auto& [file, e] : j.at("scenarios").items()) {
      BaselineEntry entry;
      entry.protocol = e.at("protocol").get<std::string>();
      entry.assignor = e.at("assignor").get<std::string>();
      entry.seed = e.at("seed").get<std::uint64_t>();
      for (const auto& [name, v] : e.at("metrics").items()) entry.metrics[name] = v.get<double>();
      b[file] = entry;
    }
  } catch (const nlohmann::json::exception& e) {
    throw scenario::InputError(path, scenario::Mark{}, fmt::format("not a rebalance-sim baseline: {}", e.what()));
  }
  return b;
}

void write_baseline(const std::string& path, const Baseline& b, const std::string& simulator) {
  nlohmann::ordered_json j;
  j["version"] = 1;
  j["simulator"] = simulator;
  nlohmann::ordered_json scenarios = nlohmann::ordered_json::object();
  for (const auto& [file, e] : b) {
    nlohmann::ordered_json entry;
    entry["protocol"] = e.protocol;
    entry["assignor"] = e.assignor;
    entry["seed"] = e.seed;
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [name, v] : e.metrics) m[name] = v;
    entry["metrics"] = m;
    scenarios[file] = entry;
  }
  j["scenarios"] = scenarios;
  std::ofstream out(path, std::ios::binary);
  if (!out) throw scenario::InputError(path, scenario::Mark{}, "cannot write the baseline");
  out << j.dump(2) << '\n';
}

std::vector<MetricChange> compare_to_baseline(const BaselineEntry& old_entry, const std::map<std::string, double>& now,
                                              const std::map<std::string, double>& tolerance_pct) {
  std::vector<MetricChange> out;
  for (const auto& [name, old_value] : old_entry.metrics) {
    auto it = now.find(name);
    if (it == now.end()) continue;
    MetricChange c;
    c.metric = name;
    c.old_value = old_value;
    c.new_value = it->second;
    if (auto t = tolerance_pct.find(name); t != tolerance_pct.end()) c.tolerance_pct = t->second;
    // Runs are deterministic: without a tolerance any rise is a regression.
    // Values are compared at the microsecond (printed) precision.
    const double limit = old_value + std::abs(old_value) * c.tolerance_pct / 100.0;
    c.regression = std::round(c.new_value * 1e6) > std::round(limit * 1e6);
    out.push_back(c);
  }
  return out;
}

}  // namespace rsim::report
