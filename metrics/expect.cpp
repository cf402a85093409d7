#include "metrics/expect.hpp"

#include "scenarios/errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

namespace rsim::metrics {

using scenario::Comparison;

bool computed(std::string_view metric) {
  return metric == "rebalances" || metric == "moves" || metric == "revocations" || metric == "protocol-bytes" ||
         metric == "invariants" ||
         metric == "final-assignment" || metric == "final-generation" || metric == "stop-the-world" ||
         metric == "downtime.total" || metric == "downtime.max" || metric == "downtime.p50" || metric == "downtime.p99" ||
         metric == "time-to-stable" || metric == "lag.peak" || metric == "lag.catch-up";
}

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

Duration seconds_metric(const std::string& name, const Summary& s) {
  if (name == "stop-the-world") return s.stop_the_world;
  if (name == "downtime.total") return s.downtime.total;
  if (name == "downtime.max") return s.downtime.max;
  if (name == "downtime.p50") return s.downtime.p50;
  if (name == "downtime.p99") return s.downtime.p99;
  if (name == "time-to-stable") return s.time_to_stable;
  if (name == "lag.catch-up") return s.lag ? s.lag->catch_up : Duration{0};
  return Duration{0};
}

double count_metric(const std::string& name, const Summary& s) {
  if (name == "rebalances") return s.rebalances;
  if (name == "moves") return s.moves;
  if (name == "revocations") return s.revocations;
  if (name == "protocol-bytes") return static_cast<double>(s.protocol_bytes);
  if (name == "final-generation") return s.final_generation;
  if (name == "lag.peak") return s.lag ? s.lag->peak : 0;
  return 0;
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
      const Duration got = seconds_metric(x.metric, summary);
      r.got = format_duration(got);
      r.ok = compare(static_cast<double>(got.count()), x.op, static_cast<double>(x.duration->count()));
    } else {
      r.want = x.text;
      const double got = count_metric(x.metric, summary);
      r.got = fmt::format("{}", got);
      r.ok = compare(got, x.op, *x.number);
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace rsim::metrics
