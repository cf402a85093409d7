// Lag as a fluid model per partition (DESIGN.md, "lag"): the backlog grows
// at the produce rate while the partition is not processed and drains at
// (process rate - produce rate) while it is. The window starts caught up.
#pragma once

#include "sim/time.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rsim::metrics {

struct LagResult {
  double peak = 0;          // the largest backlog of any partition, in messages
  Duration catch_up{0};     // the longest time from processing again to an empty backlog
  bool drained = true;      // false: some backlog was still there at the window's end
};

// One corner of a partition's backlog over time; between corners it changes
// linearly. `emptied` marks the moment a backlog is drained.
struct BacklogPoint {
  Time at;
  double backlog;
  bool emptied;
};

// One partition's backlog, given its not-processed intervals in time order.
std::vector<BacklogPoint> backlog_curve(const std::vector<std::pair<Time, Time>>& down, Time to, double produce_rate,
                                        double process_rate);

// The backlog of `curve` at time `t` (linear between corners; 0 before the
// first, and after the last unless it was never drained).
double backlog_at(const std::vector<BacklogPoint>& curve, Time t);

// `down` holds each resource's not-processed intervals inside [from, to],
// in time order.
LagResult measure_lag(const std::map<std::string, std::vector<std::pair<Time, Time>>>& down, Time to,
                      double produce_rate, double process_rate);

}  // namespace rsim::metrics
