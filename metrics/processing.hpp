// processed(r, t) from the trace, and what follows from it: downtime per
// resource and stop-the-world time (DESIGN.md, "metrics/").
//
// r is processed at t when exactly one member processes it: the member has
// r initialised (`ready`, not yet `revoking`/`lost`), is not paused, and is
// in good standing (not removed by the coordinator since it last joined; a
// removed member's work will be redone by the next owner).
#pragma once

#include "metrics/lag.hpp"
#include "sim/trace.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rsim::metrics {

// One disruption (a scenario event) and how the group recovered from it.
struct Recovery {
  Time at;
  std::string action;  // crash, bounce, join, ...
  std::string member;
  // Unset: not stable again before the window ended. A member's restart
  // (bounce, restart, upgrade) is not over until the member is back: the
  // generations it rejoins in, and what they revoke, are this disruption's.
  std::optional<Time> stable;
  int rebalances = 0;   // generations completed until then
  int revocations = 0;  // resources revoked until then
};

// Where the group stands when the replay ends: settled means every resource
// processed, the coordinator Stable and no live member joining or rejoining.
struct EndState {
  std::optional<Time> settled_since;      // start of the settled stretch that lasts to the end; unset: not settled
  bool coordinator_stable = false;
  std::vector<std::string> unprocessed;   // resources not processed at the end
  std::vector<std::string> unsettled;     // live members joining or rejoining at the end
};

struct ProcessingResult {
  std::map<std::string, Duration> downtime;  // per resource, inside the window
  // The intervals in which each resource was not processed, inside the window.
  std::map<std::string, std::vector<std::pair<Time, Time>>> down_intervals;
  Duration stop_the_world{0};                // nothing processed while a member is alive
  // Disruptions inside the window. The group is stable again when every
  // resource is processed, the coordinator is Stable and every live member
  // holds its assignment (none is joining or rejoining).
  std::vector<Recovery> recoveries;
  EndState end_state;
  std::optional<LagResult> lag;  // with ProcessingOptions::lag
};

struct ProcessingOptions {
  bool keep_intervals = true;   // fill down_intervals (reports draw them; a long run has many)
  std::optional<LagRates> lag;  // measure lag as the intervals close
};

// Resources that a `resources-added` event creates during the run (a topic's
// first subscriber, partitions added to a subscribed topic).
std::set<std::string> created_later(const std::vector<TraceEvent>& trace);

// Replays `trace` and measures inside [from, to]. `resources` is every
// resource measured (others in the trace are ignored); one that is never
// processed is down for the whole window (or from its creation, for
// resources added during the run).
ProcessingResult measure_processing(const std::vector<TraceEvent>& trace, const std::vector<std::string>& resources,
                                    Time from, Time to, const ProcessingOptions& options = {});

class ProcessingReplay;

// measure_processing fed one event at a time, for metrics computed as the
// run goes: the resources are those that exist when it starts and those its
// resources-added events create; the window starts with start_window (no
// event before it counts) and ends with finish. Fed a whole trace, with
// start_window(from) before the first event at or after `from`, it gives
// measure_processing's result.
class ProcessingFold {
 public:
  // `to`: the window's end, if known (else finish's); `is_resource`: which
  // names a resources-added event creates are measured.
  ProcessingFold(const std::vector<std::string>& initial, const ProcessingOptions& options, Time to,
                 std::function<bool(const std::string&)> is_resource);
  ~ProcessingFold();
  ProcessingFold(const ProcessingFold&) = delete;
  ProcessingFold& operator=(const ProcessingFold&) = delete;
  void start_window(Time from);
  bool window_started() const;
  void apply(const TraceEvent& ev);
  ProcessingResult finish(Time to);

 private:
  std::unique_ptr<ProcessingReplay> replay_;
};

struct DowntimeStats {
  Duration total{0};
  Duration max{0};
  Duration p50{0};
  Duration p99{0};
};

// Sum, max and nearest-rank percentiles over resources.
DowntimeStats downtime_stats(const std::map<std::string, Duration>& downtime);

}  // namespace rsim::metrics
