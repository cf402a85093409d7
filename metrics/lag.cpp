#include "metrics/lag.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace rsim::metrics {

namespace {
double seconds(Duration d) { return static_cast<double>(d.count()) / 1e6; }
Duration from_seconds(double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1e6))}; }
}  // namespace

std::vector<BacklogPoint> backlog_curve(const std::vector<std::pair<Time, Time>>& down, Time to, double produce_rate,
                                        double process_rate) {
  std::vector<BacklogPoint> curve;
  const double drain = process_rate - produce_rate;  // net messages/s while processed
  double backlog = 0;
  for (std::size_t i = 0; i < down.size(); ++i) {
    const auto [a, b] = down[i];
    assert(b >= a);
    curve.push_back({a, backlog, false});
    backlog += produce_rate * seconds(b - a);
    curve.push_back({b, backlog, false});
    // Processed from b until the next interval (or the window's end).
    const Time next = i + 1 < down.size() ? down[i + 1].first : to;
    const double up = seconds(next - b);
    if (drain > 0 && backlog <= drain * up) {
      curve.push_back({b + from_seconds(backlog / drain), 0.0, true});
      backlog = 0;
    } else {
      backlog = std::max(0.0, backlog - std::max(0.0, drain) * up);
    }
  }
  if (!down.empty() && backlog > 0) curve.push_back({to, backlog, false});
  return curve;
}

LagResult measure_lag(const std::map<std::string, std::vector<std::pair<Time, Time>>>& down, Time to,
                      double produce_rate, double process_rate) {
  LagResult out;
  for (const auto& [resource, intervals] : down) {
    // A backlogged stretch starts draining at the end of its first down
    // interval and ends when the curve reaches an empty backlog.
    bool draining = false;  // inside a backlogged stretch
    Time started = kTimeZero;
    for (const auto& p : backlog_curve(intervals, to, produce_rate, process_rate)) {
      out.peak = std::max(out.peak, p.backlog);
      if (p.emptied) {
        if (draining) out.catch_up = std::max(out.catch_up, p.at - started);  // (an empty interval starts none)
        draining = false;
      } else if (!draining && p.backlog > 0) {
        draining = true;
        started = p.at;
      }
    }
    if (draining) {  // still catching up when the window ended
      out.drained = false;
      out.catch_up = std::max(out.catch_up, to - started);
    }
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
