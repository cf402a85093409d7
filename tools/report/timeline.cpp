#include "tools/report/timeline.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace rsim::report {

namespace {
bool routine_heartbeat(const TraceEvent& ev) {
  if (ev.kind != "heartbeat") return false;
  const std::string* e = ev.text("error");
  return e != nullptr && *e == "NONE";
}

std::string field_text(const TraceValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return fmt::format("{}", *i);
  if (const auto* s = std::get_if<std::string>(&v)) return s->find(' ') == std::string::npos ? *s : fmt::format("\"{}\"", *s);
  return fmt::format("[{}]", fmt::join(std::get<NameList>(v), ","));
}
}  // namespace

void write_text_timeline(std::ostream& out, const std::vector<TraceEvent>& events, const TimelineOptions& o) {
  for (const auto& ev : events) {
    if (!o.routine_heartbeats && routine_heartbeat(ev)) continue;
    std::string line = fmt::format("{:>12}  {:<12} {:<16}", format_time(ev.at), ev.actor, ev.kind);
    for (const auto& f : ev.fields) {
      // Durations in the trace are microseconds; print them as durations.
      if (f.key.size() > 3 && f.key.compare(f.key.size() - 3, 3, "_us") == 0 && std::holds_alternative<std::int64_t>(f.value)) {
        line += fmt::format(" {}={}", f.key.substr(0, f.key.size() - 3), format_duration(Duration{std::get<std::int64_t>(f.value)}));
        continue;
      }
      line += fmt::format(" {}={}", f.key, field_text(f.value));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
}

void write_jsonl_timeline(std::ostream& out, const std::vector<TraceEvent>& events) {
  for (const auto& ev : events) {
    nlohmann::ordered_json j;
    j["time_us"] = micros(ev.at);
    j["actor"] = ev.actor;
    j["event"] = ev.kind;
    for (const auto& f : ev.fields) std::visit([&](const auto& v) { j[f.key] = v; }, f.value);
    out << j.dump() << '\n';
  }
}

}  // namespace rsim::report
