#include "tools/report/html.hpp"

#include "metrics/lag.hpp"
#include "metrics/processing.hpp"
#include "protocols/catalog.hpp"
#include "tools/report/vega.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace rsim::report {

namespace {

using Json = nlohmann::ordered_json;

// Past these the ownership chart aggregates: one row per member, coloured
// by how many resources it holds, instead of one row per resource.
constexpr std::size_t kDetailResources = 200;
constexpr std::size_t kDetailBars = 20'000;
constexpr std::size_t kDowntimeBars = 40;   // the longest downtimes shown
constexpr int kLagSamples = 400;            // points of the lag curve
constexpr int kChartWidth = 900;
constexpr int kMaxRowsHeight = 560;         // rows get thinner past this

double seconds(Time t) { return static_cast<double>(micros(t)) / 1e6; }
double seconds(Duration d) { return static_cast<double>(d.count()) / 1e6; }

struct Bar {
  std::string member, resource;
  Time from, to;
  std::optional<std::int64_t> round;  // generation or epoch it was assigned in
};

struct Marker {
  double at;          // seconds
  std::string kind;   // "rebalance completed" or "scenario event"
  std::string label;  // "crash B", "generation 3", ...
};

struct Replay {
  std::vector<Bar> bars;
  std::vector<Marker> markers;
  std::vector<std::string> members;
  bool epochs = false;
};

// Ownership intervals, completed rebalances and the scenario's events,
// replayed from the trace.
Replay replay(const std::vector<TraceEvent>& events, Time end) {
  Replay r;
  std::map<std::pair<std::string, std::string>, std::pair<Time, std::optional<std::int64_t>>> open;
  std::set<std::string> seen;
  auto close = [&](const std::string& m, const std::string& res, Time at) {
    auto it = open.find({m, res});
    if (it == open.end()) return;
    r.bars.push_back({m, res, it->second.first, at, it->second.second});
    open.erase(it);
  };
  for (const auto& ev : events) {
    if (ev.actor == "scenario") {
      if (ev.kind == "run") {  // classic groups count generations; KIP-848 and KIP-1071 groups epochs
        const auto* info = ev.text("protocol") != nullptr ? protocols::find_protocol(*ev.text("protocol")) : nullptr;
        r.epochs = info != nullptr && info->family != protocols::Family::Classic;
      }
      if (ev.kind == "disruption") {
        const std::string* action = ev.text("action");
        const std::string* member = ev.text("member");
        r.markers.push_back({seconds(ev.at), "scenario event",
                             (action ? *action : std::string("event")) + (member ? " " + *member : std::string())});
      }
      continue;
    }
    if (ev.actor == "coordinator") {
      if (ev.kind == "stable" || ev.kind == "failover")
        r.markers.push_back({seconds(ev.at), ev.kind == "failover" ? "scenario event" : "rebalance completed",
                             ev.kind == "failover" ? std::string("failover")
                                                   : fmt::format("{} {}", r.epochs ? "epoch" : "generation", ev.integer("generation").value_or(0))});
      continue;
    }
    if (ev.actor == "network") continue;
    if (seen.insert(ev.actor).second) r.members.push_back(ev.actor);
    const auto* rs = ev.list("resources");
    if (ev.kind == "assigned" && rs) {
      for (const auto& res : *rs) open.emplace(std::pair{ev.actor, res}, std::pair{ev.at, ev.integer("generation")});
    } else if ((ev.kind == "revoked" || ev.kind == "lost") && rs) {
      for (const auto& res : *rs) close(ev.actor, res, ev.at);
    } else if (ev.kind == "crash" || ev.kind == "stopped") {
      std::vector<std::string> held;
      for (const auto& [key, since] : open)
        if (key.first == ev.actor) held.push_back(key.second);  // copied: close erases
      for (const auto& res : held) close(ev.actor, res, ev.at);
    }
  }
  for (const auto& [key, since] : open) r.bars.push_back({key.first, key.second, since.first, end, since.second});
  std::sort(r.members.begin(), r.members.end());
  return r;
}

// Zoom (wheel) and pan (drag) on the time axis; a double click resets it.
Json time_zoom_signals(double end_s) {
  const std::string full = fmt::format("[0, {}]", end_s);
  return Json::array({
      Json{{"name", "down"}, {"value", nullptr},
           {"on", Json::array({Json{{"events", "mousedown"}, {"update", "xy()"}}, Json{{"events", "window:mouseup"}, {"update", "null"}}})}},
      Json{{"name", "xcur"}, {"value", nullptr}, {"on", Json::array({Json{{"events", "mousedown"}, {"update", "slice(xdom)"}}})}},
      Json{{"name", "delta"}, {"value", 0},
           {"on", Json::array({Json{{"events", "[mousedown, window:mouseup] > window:mousemove!"}, {"update", "down ? down[0] - x() : 0"}}})}},
      Json{{"name", "anchor"}, {"value", 0}, {"on", Json::array({Json{{"events", "wheel"}, {"update", "invert('x', x())"}}})}},
      Json{{"name", "zoom"}, {"value", 1},
           {"on", Json::array({Json{{"events", "wheel!"}, {"force", true}, {"update", "pow(1.001, event.deltaY * pow(16, event.deltaMode))"}}})}},
      Json{{"name", "xdom"}, {"update", full},
           {"on", Json::array({
                      Json{{"events", Json{{"signal", "delta"}}},
                           {"update", "xcur ? [xcur[0] + span(xcur) * delta / width, xcur[1] + span(xcur) * delta / width] : xdom"}},
                      Json{{"events", Json{{"signal", "zoom"}}},
                           {"update", "[anchor + (xdom[0] - anchor) * zoom, anchor + (xdom[1] - anchor) * zoom]"}},
                      Json{{"events", "dblclick"}, {"update", full}},
                  })}},
  });
}

Json time_scale() {
  return Json{{"name", "x"}, {"type", "linear"}, {"domain", Json{{"signal", "xdom"}}}, {"range", "width"}, {"zero", false}};
}

Json time_axis() {
  return Json{{"orient", "bottom"}, {"scale", "x"}, {"title", "simulated time (s); wheel to zoom, drag to pan, double-click to reset"},
              {"grid", true}, {"gridOpacity", 0.25}};
}

// Rebalances and the scenario's events as rules over the plot, with a legend.
void add_markers(Json& spec, const std::vector<Marker>& markers) {
  Json values = Json::array();
  for (const auto& m : markers) values.push_back(Json{{"at", m.at}, {"kind", m.kind}, {"label", m.label}});
  spec["data"].push_back(Json{{"name", "markers"}, {"values", values}});
  spec["scales"].push_back(Json{{"name", "marker"}, {"type", "ordinal"},
                                {"domain", Json::array({"rebalance completed", "scenario event"})},
                                {"range", Json::array({"#c0392b", "#2c3e50"})}});
  spec["legends"].push_back(Json{{"stroke", "marker"}, {"title", "markers"}, {"symbolType", "stroke"}, {"orient", "right"}});
  const Json rule_enter = Json{{"x", scaled("x", "at")}, {"y", Json{{"value", 0}}}, {"y2", Json{{"signal", "height"}}},
                               {"stroke", scaled("marker", "kind")},
                               {"strokeDash", Json{{"signal", "datum.kind === 'rebalance completed' ? [4, 3] : [1, 0]"}}},
                               {"tooltip", Json{{"signal", "datum.label + ' at ' + format(datum.at, '.3f') + ' s'"}}}};
  spec["marks"].push_back(Json{{"type", "rule"}, {"from", Json{{"data", "markers"}}}, {"clip", true},
                               {"encode", Json{{"update", rule_enter}}}});
  // The events' names above the plot (not clipped: they sit outside it), only those in view.
  spec["marks"].push_back(Json{{"type", "text"}, {"from", Json{{"data", "markers"}}},
                               {"encode", Json{{"update", Json{{"x", scaled("x", "at")}, {"y", Json{{"value", -4}}},
                                                                  {"text", Json{{"signal", "datum.kind === 'scenario event' && datum.at >= xdom[0] && datum.at <= xdom[1] ? datum.label : ''"}}},
                                                                  {"angle", Json{{"value", -30}}}, {"fontSize", Json{{"value", 10}}},
                                                                  {"fill", scaled("marker", "kind")}}}}}});
}

Json base_spec(const std::string& title, const std::string& subtitle, int height, double end_s) {
  Json spec;
  spec["width"] = kChartWidth;
  spec["height"] = height;
  spec["padding"] = Json{{"left", 5}, {"right", 5}, {"top", 30}, {"bottom", 5}};
  spec["autosize"] = "pad";
  spec["title"] = Json{{"text", title}, {"subtitle", subtitle}, {"anchor", "start"}, {"offset", 24}};
  spec["signals"] = time_zoom_signals(end_s);
  spec["data"] = Json::array();
  spec["scales"] = Json::array({time_scale()});
  spec["axes"] = Json::array({time_axis()});
  spec["legends"] = Json::array();
  spec["marks"] = Json::array();
  return spec;
}

int rows_height(std::size_t rows) { return static_cast<int>(std::clamp<std::size_t>(rows * 14, 60, kMaxRowsHeight)); }

// One row per resource, a bar per ownership coloured by its member.
Json ownership_detail(const std::string& title, const Replay& r, const std::vector<std::string>& resources, double end_s) {
  Json spec = base_spec(title + ": who owns each resource",
                        "one row per resource, coloured by its owner; a gap is a resource nobody processes", rows_height(resources.size()), end_s);
  const char* round = r.epochs ? "epoch" : "generation";
  Json values = Json::array();
  for (const auto& b : r.bars) {
    Json v{{"member", b.member}, {"resource", b.resource}, {"from", seconds(b.from)}, {"to", seconds(b.to)}};
    if (b.round) v[round] = *b.round;
    values.push_back(v);
  }
  spec["data"].push_back(Json{{"name", "bars"}, {"values", values}});
  spec["scales"].push_back(Json{{"name", "y"}, {"type", "band"}, {"domain", resources}, {"range", "height"}, {"padding", 0.15}});
  spec["scales"].push_back(Json{{"name", "owner"}, {"type", "ordinal"}, {"domain", r.members}, {"range", "category"}});
  spec["axes"].push_back(Json{{"orient", "left"}, {"scale", "y"}, {"title", "resource"}, {"labelOverlap", true}});
  spec["legends"].push_back(Json{{"fill", "owner"}, {"title", "owner (member)"}, {"orient", "right"}});
  spec["marks"].push_back(Json{
      {"type", "rect"}, {"from", Json{{"data", "bars"}}}, {"clip", true},
      {"encode", Json{{"update", Json{{"x", scaled("x", "from")}, {"x2", scaled("x", "to")}, {"y", scaled("y", "resource")},
                                      {"height", Json{{"scale", "y"}, {"band", 1}}}, {"fill", scaled("owner", "member")},
                                      {"tooltip", Json{{"signal", fmt::format("{{resource: datum.resource, member: datum.member, {0}: datum.{0}, "
                                                                              "from: format(datum.from, '.3f') + ' s', to: format(datum.to, '.3f') + ' s'}}",
                                                                              round)}}}}}}}});
  add_markers(spec, r.markers);
  return spec;
}

// At scale: one row per member (or per topic, connector, sub-topology), each
// stretch coloured by how many resources it holds (a heat map); the tooltip
// gives the count.
Json ownership_aggregate(const std::string& title, const Replay& r, std::size_t resources, double end_s,
                         const std::function<std::string(const Bar&)>& row_of, const std::string& row_kind) {
  std::map<std::string, std::map<std::int64_t, int>> delta;  // row -> time (us) -> change in held
  for (const auto& b : r.bars) {
    const std::string row = row_of(b);
    ++delta[row][micros(b.from)];
    --delta[row][micros(b.to)];
  }
  std::vector<std::string> rows;
  for (const auto& [row, changes] : delta) rows.push_back(row);
  const bool members = row_kind == "member";
  Json spec = base_spec(title + (members ? ": resources held per member" : ": resources owned per " + row_kind),
                        members ? fmt::format("{} resources: aggregated per member (one row each), coloured by how many it holds; "
                                              "--html-focus MEMBER,.. draws those members' resources one by one", resources)
                                : fmt::format("{} resources: aggregated per {} (one row each), coloured by how many have an owner",
                                              resources, row_kind),
                        rows_height(rows.size()), end_s);
  Json values = Json::array();
  for (const auto& [row, changes] : delta) {
    int held = 0;
    std::int64_t since = 0;
    for (const auto& [t, d] : changes) {
      if (held > 0 && t > since) values.push_back(Json{{"row", row}, {"from", since / 1e6}, {"to", t / 1e6}, {"held", held}});
      held += d;
      since = t;
    }
  }
  spec["data"].push_back(Json{{"name", "held"}, {"values", values}});
  spec["scales"].push_back(Json{{"name", "y"}, {"type", "band"}, {"domain", rows}, {"range", "height"}, {"padding", 0.1}});
  spec["scales"].push_back(Json{{"name", "heat"}, {"type", "linear"}, {"domain", Json{{"data", "held"}, {"field", "held"}}},
                                {"range", Json{{"scheme", "viridis"}}}, {"zero", true}});
  spec["axes"].push_back(Json{{"orient", "left"}, {"scale", "y"}, {"title", row_kind}, {"labelOverlap", true}});
  spec["legends"].push_back(Json{{"fill", "heat"}, {"title", members ? "resources held" : "resources owned"}, {"type", "gradient"}, {"orient", "right"}});
  spec["marks"].push_back(Json{
      {"type", "rect"}, {"from", Json{{"data", "held"}}}, {"clip", true},
      {"encode", Json{{"update", Json{{"x", scaled("x", "from")}, {"x2", scaled("x", "to")}, {"y", scaled("y", "row")},
                                      {"height", Json{{"scale", "y"}, {"band", 1}}}, {"fill", scaled("heat", "held")},
                                      {"tooltip", Json{{"signal", fmt::format("{{{}: datum.row, held: datum.held, from: format(datum.from, '.3f') + ' s', "
                                                                              "to: format(datum.to, '.3f') + ' s'}}", members ? "member" : "group")}}}}}}}});
  add_markers(spec, r.markers);
  return spec;
}

// Downtime per resource on its own axis (seconds down, not time spans):
// the longest first.
Json downtime_chart(const std::string& title, const metrics::Summary& s) {
  std::vector<std::pair<std::string, Duration>> down(s.downtime_by_resource.begin(), s.downtime_by_resource.end());
  std::stable_sort(down.begin(), down.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  const std::size_t all = down.size();
  if (down.size() > kDowntimeBars) down.resize(kDowntimeBars);
  Json values = Json::array();
  std::vector<std::string> order;
  for (const auto& [r, d] : down) {
    values.push_back(Json{{"resource", r}, {"down", seconds(d)}});
    order.push_back(r);
  }
  Json spec;
  spec["width"] = kChartWidth;
  spec["height"] = rows_height(down.size());
  spec["padding"] = 5;
  spec["autosize"] = "pad";
  spec["title"] = Json{{"text", title + ": downtime per resource"},
                       {"subtitle", all > down.size() ? fmt::format("the {} longest of {} resources", down.size(), all)
                                                      : fmt::format("every resource ({}), the longest first", all)},
                       {"anchor", "start"}};
  spec["data"] = Json::array({Json{{"name", "down"}, {"values", values}}});
  spec["scales"] = Json::array({Json{{"name", "x"}, {"type", "linear"}, {"domain", Json{{"data", "down"}, {"field", "down"}}},
                                     {"range", "width"}, {"nice", true}, {"zero", true}},
                                Json{{"name", "y"}, {"type", "band"}, {"domain", order}, {"range", "height"}, {"padding", 0.15}}});
  spec["axes"] = Json::array({Json{{"orient", "bottom"}, {"scale", "x"}, {"title", "downtime (s): time not processed"}, {"grid", true}},
                              Json{{"orient", "left"}, {"scale", "y"}, {"title", "resource"}, {"labelOverlap", true}}});
  spec["marks"] = Json::array({Json{
      {"type", "rect"}, {"from", Json{{"data", "down"}}},
      {"encode", encode({{"x", Json{{"scale", "x"}, {"value", 0}}}, {"x2", scaled("x", "down")}, {"y", scaled("y", "resource")},
                         {"height", Json{{"scale", "y"}, {"band", 1}}}, {"fill", Json{{"value", "#e67e22"}}},
                         {"tooltip", Json{{"signal", "{resource: datum.resource, down: format(datum.down, '.3f') + ' s'}"}}}})}}});
  return spec;
}

// The backlog summed over partitions, sampled evenly (the scenario's load:).
Json lag_chart(const std::string& title, const HtmlVariant& v, Time end, const Replay& r) {
  const auto p = metrics::measure_processing(*v.events, v.resources, kTimeZero, end);
  std::vector<std::vector<metrics::BacklogPoint>> curves;
  for (const auto& [res, intervals] : p.down_intervals)
    curves.push_back(metrics::backlog_curve(intervals, end, v.load->produce, v.load->process));
  Json values = Json::array();
  for (int k = 0; k <= kLagSamples; ++k) {
    const Time t = time_at(Duration{micros(end) * k / kLagSamples});
    double total = 0;
    for (const auto& c : curves) total += metrics::backlog_at(c, t);
    values.push_back(Json{{"at", seconds(t)}, {"backlog", total}});
  }
  Json spec = base_spec(title + ": consumer lag", "messages not yet processed, summed over partitions", 220, seconds(end));
  spec["data"].push_back(Json{{"name", "lag"}, {"values", values}});
  spec["scales"].push_back(Json{{"name", "y"}, {"type", "linear"}, {"domain", Json{{"data", "lag"}, {"field", "backlog"}}},
                                {"range", "height"}, {"nice", true}, {"zero", true}});
  spec["axes"].push_back(Json{{"orient", "left"}, {"scale", "y"}, {"title", "backlog (messages)"}, {"grid", true}});
  spec["marks"].push_back(Json{{"type", "area"}, {"from", Json{{"data", "lag"}}}, {"clip", true},
                               {"encode", Json{{"update", Json{{"x", scaled("x", "at")}, {"y", scaled("y", "backlog")},
                                                               {"y2", Json{{"scale", "y"}, {"value", 0}}},
                                                               {"fill", Json{{"value", "#2980b9"}}}, {"fillOpacity", Json{{"value", 0.5}}},
                                                               {"tooltip", Json{{"signal", "{at: format(datum.at, '.3f') + ' s', backlog: format(datum.backlog, ',.0f')}"}}}}}}}});
  add_markers(spec, r.markers);
  return spec;
}

struct Headline {
  const char* metric;
  const char* unit;
  double (*value)(const metrics::Summary&);
};

// The headline metrics of the comparison, one small chart each (own axis).
const std::vector<Headline>& headlines() {
  static const std::vector<Headline> kHeadlines{
      {"downtime.total", "s", [](const metrics::Summary& s) { return seconds(s.downtime.total); }},
      {"stop-the-world", "s", [](const metrics::Summary& s) { return seconds(s.stop_the_world); }},
      {"time-to-stable", "s", [](const metrics::Summary& s) { return seconds(s.time_to_stable); }},
      {"rebalances", "count", [](const metrics::Summary& s) { return static_cast<double>(s.rebalances); }},
      {"moves", "count", [](const metrics::Summary& s) { return static_cast<double>(s.moves); }},
  };
  return kHeadlines;
}

Json headline_chart(const std::vector<HtmlVariant>& variants) {
  Json values = Json::array();
  std::vector<std::string> names;
  for (const auto& v : variants) names.push_back(v.title);
  for (const auto& h : headlines())
    for (const auto& v : variants)
      values.push_back(Json{{"metric", h.metric}, {"unit", h.unit}, {"variant", v.title}, {"value", h.value(v.summary)}});
  const int band = static_cast<int>(std::max<std::size_t>(variants.size(), 1)) * 22;
  Json cell{
      {"type", "group"},
      {"from", Json{{"facet", Json{{"name", "cell"}, {"data", "headline"}, {"groupby", Json::array({"metric", "unit"})}}}}},
      {"title", Json{{"text", Json{{"signal", "parent.metric"}}}, {"fontSize", 12}}},
      {"encode", Json{{"enter", Json{{"width", Json{{"value", 170}}}, {"height", Json{{"value", band}}}}}}},
      // A group's scales read its own width and height signals.
      {"signals", Json::array({Json{{"name", "width"}, {"value", 170}}, Json{{"name", "height"}, {"value", band}}})},
      {"scales", Json::array({Json{{"name", "x"}, {"type", "linear"}, {"domain", Json{{"data", "cell"}, {"field", "value"}}},
                                   {"range", "width"}, {"nice", true}, {"zero", true}}})},
      {"axes", Json::array({Json{{"orient", "bottom"}, {"scale", "x"}, {"title", Json{{"signal", "parent.unit"}}}, {"tickCount", 4}},
                            Json{{"orient", "left"}, {"scale", "y"}, {"labels", true}}})},
      {"marks", Json::array({Json{
                    {"type", "rect"}, {"from", Json{{"data", "cell"}}},
                    {"encode", encode({{"x", Json{{"scale", "x"}, {"value", 0}}}, {"x2", scaled("x", "value")},
                                       {"y", scaled("y", "variant")}, {"height", Json{{"scale", "y"}, {"band", 1}}},
                                       {"fill", scaled("color", "variant")},
                                       {"tooltip", Json{{"signal", "{variant: datum.variant, metric: datum.metric, value: format(datum.value, ',.3~f') + ' ' + datum.unit}"}}}})}}})}};
  Json spec;
  spec["padding"] = 5;
  spec["autosize"] = "pad";
  spec["title"] = Json{{"text", "headline metrics per variant"}, {"subtitle", "lower is better; each metric on its own axis"}, {"anchor", "start"}};
  spec["layout"] = Json{{"columns", 3}, {"padding", 24}, {"bounds", "full"}};
  spec["data"] = Json::array({Json{{"name", "headline"}, {"values", values}}});
  spec["scales"] = Json::array({Json{{"name", "y"}, {"type", "band"}, {"domain", names}, {"range", Json::array({0, band})}, {"padding", 0.2}},
                                Json{{"name", "color"}, {"type", "ordinal"}, {"domain", names}, {"range", "category"}}});
  spec["legends"] = Json::array({Json{{"fill", "color"}, {"title", "variant"}, {"orient", "right"}}});
  spec["marks"] = Json::array({cell});
  return spec;
}

std::string summary_table(const std::vector<HtmlVariant>& variants) {
  std::string out =
      "<table><tr><th>variant</th><th>rebalances</th><th>stop-the-world</th><th>downtime.total</th>"
      "<th>downtime.max</th><th>downtime.p99</th><th>time-to-stable</th><th>lag.peak</th><th>moves</th><th>invariants</th></tr>\n";
  for (const auto& v : variants) {
    const auto& s = v.summary;
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       escape_html(v.title), s.rebalances, format_duration(s.stop_the_world), format_duration(s.downtime.total),
                       format_duration(s.downtime.max), format_duration(s.downtime.p99), format_duration(s.time_to_stable),
                       s.lag ? fmt::format("{:.0f}", s.lag->peak) : std::string("-"), s.moves,
                       s.violation ? escape_html(metrics::describe(*s.violation)) : std::string("ok"));
  }
  return out + "</table>\n";
}

constexpr const char* kCss =
    "body{font:14px sans-serif;margin:20px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}"
    "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}"
    "td:first-child,th:first-child{text-align:left}div.chart{margin:12px 0}";

// The drill-down of an aggregated chart: the resources `focus` ever owned
// (the first kDetailResources of them), one row each, every owner shown.
Json focus_detail(const HtmlVariant& v, const Replay& r, const std::vector<std::string>& focus, double end_s) {
  std::set<std::string> wanted;
  for (const auto& b : r.bars)
    if (std::find(focus.begin(), focus.end(), b.member) != focus.end()) wanted.insert(b.resource);
  std::vector<std::string> rows;
  for (const auto& res : v.resources)
    if (wanted.count(res) != 0 && rows.size() < kDetailResources) rows.push_back(res);
  const std::set<std::string> shown(rows.begin(), rows.end());
  Replay part;
  part.epochs = r.epochs;
  part.markers = r.markers;
  std::set<std::string> owners;
  for (const auto& b : r.bars)
    if (shown.count(b.resource) != 0) {
      part.bars.push_back(b);
      owners.insert(b.member);
    }
  part.members.assign(owners.begin(), owners.end());
  return ownership_detail(fmt::format("{}, the resources of {}", v.title, fmt::join(focus, ", ")), part, rows, end_s);
}

}  // namespace

void write_html(std::ostream& out, const std::string& scenario, std::uint64_t seed, Time end,
                const std::vector<HtmlVariant>& variants, const std::vector<std::string>& focus) {
  const auto modules = read_vega_modules();  // a missing module fails before anything is written
  std::vector<Json> specs;
  std::string body = fmt::format("<h1>{} <small>(seed {}, {} simulated)</small></h1>\n", escape_html(scenario), seed, format_time(end));
  if (variants.size() > 1) {
    body += fmt::format("{{chart-{}}}", specs.size());
    specs.push_back(headline_chart(variants));
  }
  body += summary_table(variants);
  for (const auto& v : variants) {
    const Replay r = replay(*v.events, end);
    body += fmt::format("<h2>{}</h2>\n", escape_html(v.title));
    const bool detail = v.resources.size() <= kDetailResources && r.bars.size() <= kDetailBars;
    body += fmt::format("{{chart-{}}}", specs.size());
    specs.push_back(detail ? ownership_detail(v.title, r, v.resources, seconds(end))
                           : ownership_aggregate(v.title, r, v.resources.size(), seconds(end),
                                                 [](const Bar& b) { return b.member; }, "member"));
    if (!detail && v.resource_group) {
      body += fmt::format("{{chart-{}}}", specs.size());
      specs.push_back(ownership_aggregate(v.title, r, v.resources.size(), seconds(end),
                                          [&](const Bar& b) { return v.resource_group(b.resource); }, "topic, connector or sub-topology"));
    }
    if (!detail && !focus.empty()) {
      body += fmt::format("{{chart-{}}}", specs.size());
      specs.push_back(focus_detail(v, r, focus, seconds(end)));
    }
    if (v.load) {
      body += fmt::format("{{chart-{}}}", specs.size());
      specs.push_back(lag_chart(v.title, v, end, r));
    }
    body += fmt::format("{{chart-{}}}", specs.size());
    specs.push_back(downtime_chart(v.title, v.summary));
  }
  write_vega_page(out, "rebalance-sim: " + scenario, kCss, body, specs, modules);
}

}  // namespace rsim::report
