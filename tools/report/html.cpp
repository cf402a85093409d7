#include "tools/report/html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace rsim::report {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A colour per resource, spread around the hue circle, fixed by its index.
std::string colour(std::size_t index) { return fmt::format("hsl({},65%,55%)", (index * 137) % 360); }

struct Bar {
  std::string member, resource;
  Time from, to;
};

// Ownership intervals and rebalance instants, replayed from the trace.
void ownership(const std::vector<TraceEvent>& events, Time end, std::vector<Bar>& bars, std::vector<Time>& rebalances,
               std::vector<std::string>& members) {
  std::map<std::pair<std::string, std::string>, Time> open;
  std::set<std::string> seen;
  auto close = [&](const std::string& m, const std::string& r, Time at) {
    auto it = open.find({m, r});
    if (it == open.end()) return;
    bars.push_back({m, r, it->second, at});
    open.erase(it);
  };
  for (const auto& ev : events) {
    if (ev.actor == "coordinator" && ev.kind == "stable") rebalances.push_back(ev.at);
    if (ev.actor == "coordinator" || ev.actor == "scenario" || ev.actor == "network") continue;
    if (seen.insert(ev.actor).second) members.push_back(ev.actor);
    const auto* rs = ev.list("resources");
    if (ev.kind == "assigned" && rs) {
      for (const auto& r : *rs) open.emplace(std::pair{ev.actor, r}, ev.at);
    } else if ((ev.kind == "revoked" || ev.kind == "lost") && rs) {
      for (const auto& r : *rs) close(ev.actor, r, ev.at);
    } else if (ev.kind == "crash" || ev.kind == "stopped") {
      std::vector<std::string> held;
      for (const auto& [key, since] : open)
        if (key.first == ev.actor) held.push_back(key.second);
      for (const auto& r : held) close(ev.actor, r, ev.at);
    }
  }
  for (const auto& [key, since] : open) bars.push_back({key.first, key.second, since, end});
  std::sort(members.begin(), members.end());
}

void variant_svg(std::ostream& out, const HtmlVariant& v, Time end) {
  std::vector<Bar> bars;
  std::vector<Time> rebalances;
  std::vector<std::string> members;
  ownership(*v.events, end, bars, rebalances, members);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < v.resources.size(); ++i) index[v.resources[i]] = i;
  const int left = 110, width = 900, lane = 4, gap = 8;
  // One lane per resource inside each member's row, so concurrent ownerships
  // never overlap.
  const int row = static_cast<int>(std::max<std::size_t>(v.resources.size(), 1)) * lane + gap;
  const int height = static_cast<int>(members.size()) * row + 40;
  const double span = std::max<double>(1.0, static_cast<double>(micros(end)));
  auto x = [&](Time t) { return left + static_cast<double>(micros(t)) / span * width; };
  out << fmt::format("<svg class=\"gantt\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"ownership over time\">\n",
                     left + width + 20, height, left + width + 20, height);
  for (std::size_t m = 0; m < members.size(); ++m) {
    const int y = static_cast<int>(m) * row + 20;
    out << fmt::format("<text x=\"4\" y=\"{}\" class=\"label\">{}</text>\n", y + row / 2, escape(members[m]));
    out << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"row\"/>\n", left, y, width, row - gap);
  }
  std::map<std::string, std::size_t> row_of;
  for (std::size_t m = 0; m < members.size(); ++m) row_of[members[m]] = m;
  for (const auto& b : bars) {
    const auto r = index.count(b.resource) ? index.at(b.resource) : 0;
    const int y = static_cast<int>(row_of.at(b.member)) * row + 20 + static_cast<int>(r) * lane;
    out << fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{} owns {} from {} to {}</title></rect>\n",
                       x(b.from), y, std::max(0.5, x(b.to) - x(b.from)), lane - 1, colour(r), escape(b.member),
                       escape(b.resource), format_time(b.from), format_time(b.to));
  }
  for (const Time t : rebalances)
    out << fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"14\" y2=\"{1}\" class=\"rebalance\"><title>rebalance at {2}</title></line>\n",
                       x(t), height - 20, format_time(t));
  for (int i = 0; i <= 10; ++i) {
    const Time t = time_at(Duration{micros(end) * i / 10});
    out << fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"tick\">{}</text>\n", x(t), height - 4, format_time(t));
  }
  out << "</svg>\n";

  // Downtime per resource.
  const auto& down = v.summary.downtime_by_resource;
  Duration longest{1};
  for (const auto& [r, d] : down) longest = std::max(longest, d);
  const int bar_h = 12;
  const int h2 = static_cast<int>(down.size()) * (bar_h + 2) + 10;
  out << fmt::format("<svg class=\"downtime\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"downtime per resource\">\n", left + width + 20, h2);
  int i = 0;
  for (const auto& r : v.resources) {
    auto it = down.find(r);
    if (it == down.end()) continue;
    const double w = static_cast<double>(it->second.count()) / static_cast<double>(longest.count()) * width;
    const int y = i++ * (bar_h + 2) + 4;
    out << fmt::format("<text x=\"4\" y=\"{}\" class=\"label\">{}</text>", y + bar_h - 2, escape(r));
    out << fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{} down {}</title></rect>\n", left, y,
                       std::max(0.5, w), bar_h, colour(index.at(r)), escape(r), format_duration(it->second));
  }
  out << "</svg>\n";
}

void summary_table(std::ostream& out, const std::vector<HtmlVariant>& variants) {
  out << "<table><tr><th>variant</th><th>rebalances</th><th>stop-the-world</th><th>downtime.total</th>"
         "<th>downtime.max</th><th>downtime.p99</th><th>time-to-stable</th><th>lag.peak</th><th>moves</th><th>invariants</th></tr>\n";
  for (const auto& v : variants) {
    const auto& s = v.summary;
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       escape(v.title), s.rebalances, format_duration(s.stop_the_world), format_duration(s.downtime.total),
                       format_duration(s.downtime.max), format_duration(s.downtime.p99), format_duration(s.time_to_stable),
                       s.lag ? fmt::format("{:.0f}", s.lag->peak) : std::string("-"), s.moves,
                       s.violation ? escape(metrics::describe(*s.violation)) : std::string("ok"));
  }
  out << "</table>\n";
}

}  // namespace

void write_html(std::ostream& out, const std::string& scenario, std::uint64_t seed, Time end,
                const std::vector<HtmlVariant>& variants) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  out << fmt::format("<title>rebalance-sim: {}</title>\n", escape(scenario));
  out << "<style>body{font:14px sans-serif;margin:20px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}"
         "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}"
         "td:first-child,th:first-child{text-align:left}.label{font-size:11px}.tick{font-size:10px;fill:#555}"
         ".row{fill:#f3f3f3}.rebalance{stroke:#c00;stroke-width:1;stroke-dasharray:3,2}</style></head><body>\n";
  out << fmt::format("<h1>{} <small>(seed {}, {} simulated)</small></h1>\n", escape(scenario), seed, format_time(end));
  summary_table(out, variants);
  for (const auto& v : variants) {
    out << fmt::format("<h2>{}: ownership over time (red lines: completed rebalances)</h2>\n", escape(v.title));
    variant_svg(out, v, end);
  }
  out << "</body></html>\n";
}

}  // namespace rsim::report
