#include "tools/report/compare_output.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <tuple>

namespace rsim::report {

namespace {

// The columns every format shows, in order: metric name and value as text.
struct Column {
  const char* name;
  bool duration;
};
const std::vector<Column> kColumns{
    {"rebalances", false},     {"stop-the-world", true}, {"downtime.total", true}, {"downtime.max", true},
    {"downtime.p99", true},    {"time-to-stable", true}, {"lag.peak", false},      {"moves", false},
    {"revocations", false},    {"protocol-bytes", false}, {"final-generation", false},
};

double seconds(Duration d) { return static_cast<double>(d.count()) / 1e6; }

double value(const metrics::Summary& s, const std::string& name) {
  if (name == "rebalances") return s.rebalances;
  if (name == "stop-the-world") return seconds(s.stop_the_world);
  if (name == "downtime.total") return seconds(s.downtime.total);
  if (name == "downtime.max") return seconds(s.downtime.max);
  if (name == "downtime.p99") return seconds(s.downtime.p99);
  if (name == "time-to-stable") return seconds(s.time_to_stable);
  if (name == "lag.peak") return s.lag ? s.lag->peak : 0;
  if (name == "moves") return s.moves;
  if (name == "revocations") return s.revocations;
  if (name == "protocol-bytes") return static_cast<double>(s.protocol_bytes);
  if (name == "final-generation") return s.final_generation;
  return 0;
}

std::string text(const metrics::Summary& s, const Column& c) {
  if (std::string(c.name).rfind("lag.", 0) == 0 && !s.lag) return "-";  // no load: in the scenario
  const double v = value(s, c.name);
  return c.duration ? fmt::format("{:.3f}", v) : fmt::format("{}", static_cast<long long>(v));
}

std::string invariants(const metrics::Summary& s) { return s.violation ? "VIOLATED" : "ok"; }

}  // namespace

void rank(std::vector<VariantRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const VariantRow& a, const VariantRow& b) {
    return std::tuple(a.summary.downtime.total, a.summary.stop_the_world, a.summary.rebalances, a.variant()) <
           std::tuple(b.summary.downtime.total, b.summary.stop_the_world, b.summary.rebalances, b.variant());
  });
}

void write_compare_table(std::ostream& out, const std::string& scenario, std::uint64_t seed,
                         const std::vector<VariantRow>& rows) {
  out << fmt::format("scenario {} (seed {}), ranked by downtime.total; durations in seconds\n", scenario, seed);
  std::size_t width = 7;
  for (const auto& r : rows) width = std::max(width, r.variant().size());
  std::string header = fmt::format("{:<{}}", "variant", width);
  for (const auto& c : kColumns) header += fmt::format("  {:>{}}", c.name, std::max<std::size_t>(std::string(c.name).size(), 8));
  out << header << "  invariants\n";
  for (const auto& r : rows) {
    std::string line = fmt::format("{:<{}}", r.variant(), width);
    for (const auto& c : kColumns)
      line += fmt::format("  {:>{}}", text(r.summary, c), std::max<std::size_t>(std::string(c.name).size(), 8));
    out << line << "  " << invariants(r.summary) << '\n';
  }
}

void write_compare_markdown(std::ostream& out, const std::vector<VariantRow>& rows) {
  out << "| variant |";
  for (const auto& c : kColumns) out << ' ' << c.name << (c.duration ? " (s)" : "") << " |";
  out << " invariants |\n|---|";
  for (std::size_t i = 0; i < kColumns.size(); ++i) out << "---:|";
  out << "---|\n";
  for (const auto& r : rows) {
    out << "| " << r.variant() << " |";
    for (const auto& c : kColumns) out << ' ' << text(r.summary, c) << " |";
    out << ' ' << invariants(r.summary) << " |\n";
  }
}

void write_compare_csv(std::ostream& out, const std::vector<VariantRow>& rows) {
  out << "variant,protocol,assignor";
  for (const auto& c : kColumns) out << ',' << c.name;
  out << ",invariants\n";
  for (const auto& r : rows) {
    out << r.variant() << ',' << r.protocol << ',' << r.assignor;
    for (const auto& c : kColumns) out << ',' << text(r.summary, c);
    out << ',' << invariants(r.summary) << '\n';
  }
}

void write_compare_json(std::ostream& out, const std::string& scenario, std::uint64_t seed,
                        const std::vector<VariantRow>& rows) {
  nlohmann::ordered_json j;
  j["scenario"] = scenario;
  j["seed"] = seed;
  nlohmann::ordered_json variants = nlohmann::ordered_json::array();
  for (const auto& r : rows) {
    nlohmann::ordered_json v;
    v["variant"] = r.variant();
    v["protocol"] = r.protocol;
    v["assignor"] = r.assignor;
    for (const auto& c : kColumns) {
      if (std::string(c.name).rfind("lag.", 0) == 0 && !r.summary.lag) v[c.name] = nullptr;
      else if (c.duration) v[c.name] = value(r.summary, c.name);
      else v[c.name] = static_cast<long long>(value(r.summary, c.name));
    }
    v["invariants"] = r.summary.violation ? metrics::describe(*r.summary.violation) : std::string("ok");
    variants.push_back(v);
  }
  j["variants"] = variants;
  out << j.dump(2) << '\n';
}

}  // namespace rsim::report
