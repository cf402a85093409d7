// The run's timeline as text (time, actor, event, details) and as JSON Lines
// (one object per event; stable field names documented in the README).
#pragma once

#include "sim/trace.hpp"

#include <ostream>
#include <vector>

namespace rsim::report {

struct TimelineOptions {
  // Heartbeats answered NONE are routine; the text timeline leaves them out
  // unless asked. JSON Lines always has every event.
  bool routine_heartbeats = false;
};

void write_text_timeline(std::ostream& out, const std::vector<TraceEvent>& events, const TimelineOptions& o = {});
void write_jsonl_timeline(std::ostream& out, const std::vector<TraceEvent>& events);

}  // namespace rsim::report
