#include "tools/sweep/plot.hpp"

#include "scenarios/metric_names.hpp"
#include "scenarios/values.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <fstream>
#include <sstream>

#ifndef RSIM_VEGA_JS
#define RSIM_VEGA_JS "/usr/share/javascript/vega"
#endif

namespace rsim::sweep {

using Json = nlohmann::ordered_json;

namespace {

// Debian ships Vega as its separate modules (UMD builds, no vega.min.js
// bundle), in an order where each comes after what it requires. They are
// loaded through their CommonJS branch by a small require() below, then
// merged into one `vega` object as the upstream bundle does.
const std::vector<std::string>& vega_modules() {
  static const std::vector<std::string> kModules{
      "vega-util",      "vega-canvas",     "vega-time",    "vega-format",     "vega-loader",
      "vega-dataflow",  "vega-scale",      "vega-scenegraph", "vega-expression", "vega-selection",
      "vega-statistics", "vega-event-selector", "vega-functions", "vega-runtime", "vega-view",
      "vega-encode",    "vega-transforms", "vega-view-transforms", "vega-parser"};
  return kModules;
}

std::string read_module(const std::string& name, const std::string& option) {
  const auto path = vega_directory() + "/" + name + ".min.js";
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw OptionError(fmt::format("{}: cannot read {} (Debian's libjs-vega: apt-get install libjs-vega)", option, path));
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  // The source-map comment names a file next to the original; drop it.
  const auto map = text.find("//# sourceMappingURL=");
  if (map != std::string::npos) text.erase(map, text.find('\n', map) - map);
  // "</script" inside the code would end the inline script element.
  for (auto at = text.find("</script"); at != std::string::npos; at = text.find("</script", at)) text.replace(at, 2, "<\\/");
  return text;
}

bool numeric_axis(const Plan& plan) {
  if (plan.sets.empty()) return false;
  return std::all_of(plan.sets.front().values.begin(), plan.sets.front().values.end(),
                     [](const auto& v) { return scenario::parse_number(v).has_value(); });
}

std::string escape_html(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

Json encode(std::initializer_list<std::pair<const char*, Json>> fields) {
  Json j = Json::object();
  for (const auto& [k, v] : fields) j[k] = v;
  return Json{{"enter", j}};
}

Json scaled(const char* scale, const char* field) { return Json{{"scale", scale}, {"field", field}}; }

}  // namespace

std::string vega_directory() { return RSIM_VEGA_JS; }

std::string chart_spec(const Plan& plan, const std::vector<std::vector<Cell>>& cells, const std::string& metric) {
  const auto& names = run_metrics();
  const auto m = static_cast<std::size_t>(std::find(names.begin(), names.end(), metric) - names.begin());
  assert(m < names.size());
  const bool numeric = numeric_axis(plan);
  // Points in the order of the x axis, so each variant's line runs left to right.
  std::vector<std::size_t> points(plan.points());
  for (std::size_t p = 0; p < points.size(); ++p) points[p] = p;
  if (numeric)
    std::stable_sort(points.begin(), points.end(), [&](std::size_t a, std::size_t b) {
      return *scenario::parse_number(plan.point_values(a).front()) < *scenario::parse_number(plan.point_values(b).front());
    });
  Json values = Json::array();
  for (std::size_t v = 0; v < plan.variants.size(); ++v)
    for (std::size_t p : points) {
      const auto& e = cells[p][v].metrics[m];
      if (e.count == 0) continue;
      const auto point = plan.point_values(p);
      std::string series = plan.variants[v].name();
      for (std::size_t i = 1; i < plan.sets.size(); ++i) series += fmt::format(" {}={}", plan.sets[i].key, point[i]);
      Json row;
      row["series"] = series;
      if (plan.sets.empty()) row["x"] = plan.variants[v].name();
      else if (numeric) row["x"] = *scenario::parse_number(point.front());
      else row["x"] = point.front();
      row["mean"] = e.mean;
      row["low"] = e.low();
      row["high"] = e.high();
      row["min"] = e.min;
      row["max"] = e.max;
      row["count"] = e.count;
      values.push_back(row);
    }
  const std::string y_title = fmt::format("{} ({}), mean and {:g}% CI", metric, unit_of(metric), kConfidence * 100);
  Json spec;
  spec["width"] = 640;
  spec["height"] = 320;
  spec["padding"] = 5;
  spec["autosize"] = "pad";
  spec["title"] = Json{{"text", metric}, {"subtitle", std::string(scenario::find_metric(metric)->meaning)}};
  spec["data"] = Json::array({Json{{"name", "points"}, {"values", values}}});
  Json x{{"name", "x"}, {"domain", Json{{"data", "points"}, {"field", "x"}}}, {"range", "width"}};
  if (numeric) {
    x["type"] = "linear";
    x["zero"] = false;
    x["nice"] = true;
  } else {
    x["type"] = "point";
    x["padding"] = 0.5;
  }
  spec["scales"] = Json::array(
      {x,
       Json{{"name", "y"}, {"type", "linear"}, {"domain", Json{{"data", "points"}, {"fields", Json::array({"low", "high"})}}},
            {"range", "height"}, {"nice", true}, {"zero", true}},
       Json{{"name", "color"}, {"type", "ordinal"}, {"domain", Json{{"data", "points"}, {"field", "series"}}}, {"range", "category"}}});
  spec["axes"] = Json::array({Json{{"orient", "bottom"}, {"scale", "x"}, {"title", plan.sets.empty() ? "variant" : plan.sets.front().key}},
                              Json{{"orient", "left"}, {"scale", "y"}, {"title", y_title}, {"grid", true}}});
  spec["legends"] = Json::array({Json{{"fill", "color"}, {"stroke", "color"}, {"title", "variant"}}});
  Json band{{"type", "area"}, {"from", Json{{"data", "series"}}},
            {"encode", encode({{"x", scaled("x", "x")}, {"y", scaled("y", "low")}, {"y2", scaled("y", "high")},
                               {"fill", scaled("color", "series")}, {"fillOpacity", Json{{"value", 0.18}}}})}};
  Json line{{"type", "line"}, {"from", Json{{"data", "series"}}},
            {"encode", encode({{"x", scaled("x", "x")}, {"y", scaled("y", "mean")}, {"stroke", scaled("color", "series")},
                               {"strokeWidth", Json{{"value", 2}}}})}};
  Json group{{"type", "group"},
             {"from", Json{{"facet", Json{{"name", "series"}, {"data", "points"}, {"groupby", "series"}}}}},
             {"marks", Json::array({band, line})}};
  Json bars{{"type", "rule"}, {"from", Json{{"data", "points"}}},
            {"encode", encode({{"x", scaled("x", "x")}, {"y", scaled("y", "low")}, {"y2", scaled("y", "high")},
                               {"stroke", scaled("color", "series")}})}};
  Json dots{{"type", "symbol"}, {"from", Json{{"data", "points"}}},
            {"encode", encode({{"x", scaled("x", "x")}, {"y", scaled("y", "mean")}, {"fill", scaled("color", "series")},
                               {"size", Json{{"value", 36}}}, {"tooltip", Json{{"signal", "datum"}}}})}};
  spec["marks"] = Json::array({group, bars, dots});
  return spec.dump();
}

void write_plot_html(std::ostream& out, const Plan& plan, const std::vector<std::vector<Cell>>& cells,
                     const std::vector<std::string>& shown, const std::string& title, const std::string& option) {
  std::vector<std::string> modules;  // read first: a missing one fails before anything is written
  for (const auto& name : vega_modules()) modules.push_back(read_module(name, option));
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>" << escape_html(title) << "</title>\n"
      << "<style>body{font-family:sans-serif;margin:1.5em}h1{font-size:1.3em}div.chart{margin:1em 0}</style>\n</head><body>\n"
      << "<h1>" << escape_html(title) << "</h1>\n"
      << fmt::format("<p>Each point is the mean over {} seeds; the band and the bar are the {:g}% confidence interval of the "
                     "mean (Student's t), as JMH reports its error. Where two variants' bands overlap, these seeds do not "
                     "tell them apart.</p>\n",
                     plan.seeds, kConfidence * 100);
  for (std::size_t i = 0; i < shown.size(); ++i) out << fmt::format("<div class=\"chart\" id=\"chart-{}\"></div>\n", i);
  out << "<script>\n// Vega (Debian's libjs-vega, its modules inlined): each module's CommonJS branch, then one `vega`.\n"
      << "var rsimVegaModules = {};\nfunction rsimRequire(name) {\n  if (name === 'vega-selections') name = 'vega-selection';\n"
      << "  var m = rsimVegaModules[name];\n  if (!m) throw new Error('vega module not inlined: ' + name);\n  return m;\n}\n</script>\n";
  for (std::size_t i = 0; i < modules.size(); ++i) {
    out << "<script>\n(function () {\nvar module = {exports: {}}, exports = module.exports, require = rsimRequire;\n";
    out << modules[i] << "\n;rsimVegaModules['" << vega_modules()[i] << "'] = module.exports;\n})();\n</script>\n";
  }
  out << "<script>\nvar vega = {};\n";
  for (const auto& name : vega_modules()) out << "Object.assign(vega, rsimVegaModules['" << name << "']);\n";
  out << "// The transforms the parser may name, registered as the upstream bundle does.\n"
      << "Object.assign(rsimVegaModules['vega-dataflow'].transforms, rsimVegaModules['vega-transforms'],\n"
      << "              rsimVegaModules['vega-view-transforms'], rsimVegaModules['vega-encode']);\n"
      << "var rsimCharts = [\n";
  for (std::size_t i = 0; i < shown.size(); ++i) {
    std::string spec = chart_spec(plan, cells, shown[i]);
    // A value that says "</script" must not end the script element.
    for (auto at = spec.find("</"); at != std::string::npos; at = spec.find("</", at)) spec.replace(at, 2, "<\\/");
    out << spec << (i + 1 < shown.size() ? ",\n" : "\n");
  }
  out << "];\nrsimCharts.forEach(function (spec, i) {\n"
      << "  new vega.View(vega.parse(spec), {renderer: 'svg', container: '#chart-' + i, hover: true}).runAsync();\n"
      << "});\n</script>\n</body></html>\n";
}

}  // namespace rsim::sweep
