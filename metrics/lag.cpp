#include "metrics/lag.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace rsim::metrics {

Duration Backlog::from_seconds(double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1e6))}; }

void LagFold::add(const BacklogPoint& p, LagResult& out) {
  // A backlogged stretch starts draining at the end of its first down
  // interval and ends when the curve reaches an empty backlog.
  out.peak = std::max(out.peak, p.backlog);
  if (p.emptied) {
    if (draining_) out.catch_up = std::max(out.catch_up, p.at - started_);  // (an empty interval starts none)
    draining_ = false;
  } else if (!draining_ && p.backlog > 0) {
    draining_ = true;
    started_ = p.at;
  }
}

void LagFold::finish(Time to, LagResult& out) {
  if (!draining_) return;
  // Still catching up when the window ended.
  out.drained = false;
  out.catch_up = std::max(out.catch_up, to - started_);
}

std::vector<BacklogPoint> backlog_curve(const std::vector<std::pair<Time, Time>>& down, Time to, double produce_rate,
                                        double process_rate) {
  std::vector<BacklogPoint> curve;
  const LagRates rates{produce_rate, process_rate};
  auto keep = [&](const BacklogPoint& p) { curve.push_back(p); };
  Backlog backlog;
  for (const auto& [a, b] : down) {
    assert(b >= a);
    backlog.down(a, b, rates, keep);
  }
  backlog.finish(to, rates, keep);
  return curve;
}

LagResult measure_lag(const std::map<std::string, std::vector<std::pair<Time, Time>>>& down, Time to,
                      double produce_rate, double process_rate) {
  LagResult out;
  for (const auto& [resource, intervals] : down) {
    LagFold fold;
    for (const auto& p : backlog_curve(intervals, to, produce_rate, process_rate)) fold.add(p, out);
    fold.finish(to, out);
  }
  return out;
}

double backlog_at(const std::vector<BacklogPoint>& curve, Time t) {
  for (std::size_t i = 0; i + 1 < curve.size(); ++i) {
    const Time a = curve[i].at, b = curve[i + 1].at;
    if (t < a) return 0.0;
    if (t <= b) {
      if (b == a) return curve[i + 1].backlog;
      return curve[i].backlog + (curve[i + 1].backlog - curve[i].backlog) * static_cast<double>((t - a).count()) /
                                    static_cast<double>((b - a).count());
    }
  }
  return curve.empty() || t < curve.front().at ? 0.0 : curve.back().backlog * (curve.back().emptied ? 0.0 : 1.0);
}

}  // namespace rsim::metrics
