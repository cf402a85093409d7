#include "metrics/lag.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace rsim::metrics {

namespace {
double seconds(Duration d) { return static_cast<double>(d.count()) / 1e6; }
Duration from_seconds(double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1e6))}; }
}  // namespace

LagResult measure_lag(const std::map<std::string, std::vector<std::pair<Time, Time>>>& down, Time to,
                      double produce_rate, double process_rate) {
  LagResult out;
  const double drain = process_rate - produce_rate;  // net messages/s while processed
  for (const auto& [resource, intervals] : down) {
    double backlog = 0;
    std::optional<Time> episode;  // when the current backlogged stretch began to drain
    for (std::size_t i = 0; i < intervals.size(); ++i) {
      const auto [a, b] = intervals[i];
      assert(b >= a);
      backlog += produce_rate * seconds(b - a);
      out.peak = std::max(out.peak, backlog);
      if (!episode) episode = b;
      // Processed from b until the next interval (or the window's end).
      const Time next = i + 1 < intervals.size() ? intervals[i + 1].first : to;
      const double up = seconds(next - b);
      if (drain > 0 && backlog <= drain * up) {
        const Time empty = b + from_seconds(backlog / drain);
        out.catch_up = std::max(out.catch_up, empty - *episode);
        backlog = 0;
        episode.reset();
      } else {
        backlog = std::max(0.0, backlog - std::max(0.0, drain) * up);
      }
    }
    if (episode) {  // still catching up when the window ended
      out.drained = false;
      out.catch_up = std::max(out.catch_up, to - *episode);
    }
  }
  return out;
}

}  // namespace rsim::metrics
