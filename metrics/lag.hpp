// Lag as a fluid model per partition (DESIGN.md, "lag"): the backlog grows
// at the produce rate while the partition is not processed and drains at
// (process rate - produce rate) while it is. The window starts caught up.
#pragma once

#include "sim/time.hpp"

#include <algorithm>
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

struct LagRates {
  double produce = 0;
  double process = 0;
};

// One partition's backlog, fed its not-processed intervals in time order as
// they close, handing each corner of its curve to `emit` without keeping
// them (a long run has many intervals per partition).
class Backlog {
 public:
  template <class Emit>
  void down(Time a, Time b, const LagRates& rates, Emit&& emit) {
    if (pending_) drain_until(a, rates, emit);
    emit(BacklogPoint{a, backlog_, false});
    backlog_ += rates.produce * seconds(b - a);
    emit(BacklogPoint{b, backlog_, false});
    pending_ = true;
    last_end_ = b;
    any_ = true;
  }
  template <class Emit>
  void finish(Time to, const LagRates& rates, Emit&& emit) {
    if (pending_) drain_until(to, rates, emit);
    if (any_ && backlog_ > 0) emit(BacklogPoint{to, backlog_, false});
  }

 private:
  static double seconds(Duration d) { return static_cast<double>(d.count()) / 1e6; }
  static Duration from_seconds(double s);
  // Processed from the last interval's end until `next`.
  template <class Emit>
  void drain_until(Time next, const LagRates& rates, Emit&& emit) {
    pending_ = false;
    const double drain = rates.process - rates.produce;  // net messages/s while processed
    const double up = seconds(next - last_end_);
    if (drain > 0 && backlog_ <= drain * up) {
      emit(BacklogPoint{last_end_ + from_seconds(backlog_ / drain), 0.0, true});
      backlog_ = 0;
    } else {
      backlog_ = std::max(0.0, backlog_ - std::max(0.0, drain) * up);
    }
  }

  double backlog_ = 0;
  Time last_end_ = kTimeZero;
  bool pending_ = false;  // the last interval's drain is not yet known
  bool any_ = false;
};

// Folds one partition's backlog corners into the group's lag.
class LagFold {
 public:
  void add(const BacklogPoint& p, LagResult& out);
  void finish(Time to, LagResult& out);

 private:
  bool draining_ = false;  // inside a backlogged stretch
  Time started_ = kTimeZero;
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
