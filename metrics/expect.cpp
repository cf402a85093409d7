#include "metrics/expect.hpp"

#include "scenarios/errors.hpp"
#include "scenarios/metric_names.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace rsim::metrics {

using scenario::Comparison;

bool computed(std::string_view metric) { return scenario::find_metric(metric) != nullptr; }

std::string format_assignment(const std::map<std::string, std::vector<std::string>>& a) {
  std::vector<std::string> parts;
  for (const auto& [m, rs] : a) parts.push_back(fmt::format("{}: [{}]", m, fmt::join(rs, ", ")));
  return fmt::format("{{{}}}", fmt::join(parts, ", "));
}

namespace {

bool compare(double got, Comparison op, double want) {
  switch (op) {
    case Comparison::Eq:
      return got == want;
    case Comparison::Lt:
      return got < want;
    case Comparison::Le:
      return got <= want;
    case Comparison::Gt:
      return got > want;
    case Comparison::Ge:
      return got >= want;
  }
  return false;
}

// Compares as sets per member; members with nothing are the same as absent.
bool same_assignment(const std::map<std::string, std::vector<std::string>>& want,
                     const std::map<std::string, std::vector<std::string>>& got) {
  auto normal = [](const std::map<std::string, std::vector<std::string>>& a) {
    std::map<std::string, std::set<std::string>> out;
    for (const auto& [m, rs] : a)
      if (!rs.empty()) out[m] = std::set<std::string>(rs.begin(), rs.end());
    return out;
  };
  return normal(want) == normal(got);
}

}  // namespace

std::vector<ExpectResult> evaluate(const scenario::Scenario& s, const Summary& summary) {
  std::vector<ExpectResult> out;
  for (const auto& x : s.expect) {
    if (!computed(x.metric))
      throw scenario::InputError(s.file, x.mark, fmt::format("metric '{}' is not computed by this version yet", x.metric));
    if (x.metric.rfind("lag.", 0) == 0 && !s.load)
      throw scenario::InputError(s.file, x.mark, fmt::format("metric '{}' needs the scenario's load: (produce.rate, process.rate)", x.metric));
    ExpectResult r;
    r.name = x.metric;
    if (x.metric == "final-assignment") {
      r.want = format_assignment(x.assignment);
      r.got = format_assignment(summary.final_assignment);
      r.ok = same_assignment(x.assignment, summary.final_assignment);
    } else if (x.metric == "invariants") {
      r.want = "ok";
      r.got = summary.violation ? describe(*summary.violation) : "ok";
      r.ok = !summary.violation;
    } else if (x.duration) {
      r.want = x.text;
      const Duration got{std::llround(value(summary, x.metric).value_or(0) * 1e6)};
      r.got = format_duration(got);
      r.ok = compare(static_cast<double>(got.count()), x.op, static_cast<double>(x.duration->count()));
    } else {
      r.want = x.text;
      const double got = value(summary, x.metric).value_or(0);
      r.got = fmt::format("{}", got);
      r.ok = compare(got, x.op, *x.number);
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace rsim::metrics
