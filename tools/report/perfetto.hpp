// The run as a Chrome trace-event / Perfetto JSON file (opens in
// ui.perfetto.dev or chrome://tracing).
//
// Layout: process 1 is the coordinator (its group states as slices, each
// generation an instant). Every member is a process of its own: thread 1
// holds its phases (joining, syncing, revoking, restoring, paused, down) and each
// resource it ever owned gets a thread with one slice per ownership, so
// slices on one track never overlap. A counter track counts the resources
// being processed, and with the scenario's load: another the total backlog.
// Slices carry their member, member id and generation (classic) or epoch
// (consumer, streams) as arguments; a flow arrow joins a resource's
// ownership slice to its next owner's; the scenario's events (crash,
// bounce, join, failover, ...) are global instants across every track.
#pragma once

#include "metrics/summary.hpp"
#include "sim/trace.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace rsim::report {

// With `load`, a second counter shows the backlog summed over partitions.
void write_perfetto(std::ostream& out, const std::vector<TraceEvent>& events, const std::vector<std::string>& resources,
                    Time end, std::optional<metrics::LoadRates> load = std::nullopt);

}  // namespace rsim::report
