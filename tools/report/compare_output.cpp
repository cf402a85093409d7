#include "tools/report/compare_output.hpp"

#include "protocols/catalog.hpp"
#include "scenarios/metric_names.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <tuple>

namespace rsim::report {

namespace {

// The columns every format shows, in order (the metric table's `compared`).
struct Column {
  std::string_view name;
  bool duration;
};

const std::vector<Column>& columns() {
  static const std::vector<Column> kColumns = [] {
    std::vector<Column> out;
    for (const auto& m : scenario::metric_names())
      if (m.compared) out.push_back({m.name, m.kind == scenario::MetricKind::Seconds});
    return out;
  }();
  return kColumns;
}

std::string text(const metrics::Summary& s, const Column& c) {
  const auto v = metrics::value(s, c.name);
  if (!v) return "-";  // lag without the scenario's load:
  return c.duration ? fmt::format("{:.3f}", *v) : fmt::format("{}", static_cast<long long>(*v));
}

std::string invariants(const metrics::Summary& s) { return s.violation ? "VIOLATED" : "ok"; }

// Under a table with a research design: which rows Kafka never shipped.
std::string research_note(const std::vector<VariantRow>& rows) {
  std::vector<std::string> research;
  for (const auto& r : rows)
    if (!protocols::shipped_by_kafka(r.protocol) && std::find(research.begin(), research.end(), r.protocol) == research.end())
      research.push_back(r.protocol);
  if (research.empty()) return {};
  return fmt::format("{}: research design{} (seed 1) Kafka never shipped; every other variant is Kafka's own\n",
                     fmt::join(research, ", "), research.size() > 1 ? "s" : "");
}

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
  for (const auto& c : columns()) header += fmt::format("  {:>{}}", c.name, std::max<std::size_t>(std::string(c.name).size(), 8));
  out << header << "  invariants\n";
  for (const auto& r : rows) {
    std::string line = fmt::format("{:<{}}", r.variant(), width);
    for (const auto& c : columns())
      line += fmt::format("  {:>{}}", text(r.summary, c), std::max<std::size_t>(std::string(c.name).size(), 8));
    out << line << "  " << invariants(r.summary) << '\n';
  }
  out << research_note(rows);
}

void write_compare_markdown(std::ostream& out, const std::vector<VariantRow>& rows) {
  out << "| variant |";
  for (const auto& c : columns()) out << ' ' << c.name << (c.duration ? " (s)" : "") << " |";
  out << " invariants |\n|---|";
  for (std::size_t i = 0; i < columns().size(); ++i) out << "---:|";
  out << "---|\n";
  for (const auto& r : rows) {
    out << "| " << r.variant() << " |";
    for (const auto& c : columns()) out << ' ' << text(r.summary, c) << " |";
    out << ' ' << invariants(r.summary) << " |\n";
  }
  if (const std::string note = research_note(rows); !note.empty()) out << '\n' << note;
}

void write_compare_csv(std::ostream& out, const std::vector<VariantRow>& rows) {
  out << "variant,protocol,assignor";
  for (const auto& c : columns()) out << ',' << c.name;
  out << ",invariants\n";
  for (const auto& r : rows) {
    out << r.variant() << ',' << r.protocol << ',' << r.assignor;
    for (const auto& c : columns()) out << ',' << text(r.summary, c);
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
    v["shipped-by-kafka"] = protocols::shipped_by_kafka(r.protocol);
    for (const auto& c : columns()) {
      const std::string name(c.name);
      const auto x = metrics::value(r.summary, c.name);
      if (!x) v[name] = nullptr;
      else if (c.duration) v[name] = *x;
      else v[name] = static_cast<long long>(*x);
    }
    v["invariants"] = r.summary.violation ? metrics::describe(*r.summary.violation) : std::string("ok");
    variants.push_back(v);
  }
  j["variants"] = variants;
  out << j.dump(2) << '\n';
}

}  // namespace rsim::report
