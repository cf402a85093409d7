#include "tools/sweep/plot.hpp"

#include "scenarios/metric_names.hpp"
#include "scenarios/values.hpp"
#include "tools/report/vega.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <fstream>
#include <sstream>

namespace rsim::sweep {

using Json = nlohmann::ordered_json;
using report::encode;
using report::escape_html;
using report::scaled;

namespace {

bool numeric_axis(const Plan& plan) {
  if (plan.sets.empty()) return false;
  return std::all_of(plan.sets.front().values.begin(), plan.sets.front().values.end(),
                     [](const auto& v) { return scenario::parse_number(v).has_value(); });
}

}  // namespace

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
  try {
    modules = report::read_vega_modules();
  } catch (const report::VegaMissing& e) {
    throw OptionError(fmt::format("{}: {}", option, e.what()));
  }
  const std::string body =
      "<h1>" + escape_html(title) + "</h1>\n" +
      fmt::format("<p>Each point is the mean over {} seeds; the band and the bar are the {:g}% confidence interval of the "
                  "mean (Student's t), as JMH reports its error. Where two variants' bands overlap, these seeds do not "
                  "tell them apart.</p>\n",
                  plan.seeds, kConfidence * 100);
  std::vector<Json> specs;
  for (const auto& metric : shown) specs.push_back(Json::parse(chart_spec(plan, cells, metric)));
  report::write_vega_page(out, title, "body{font-family:sans-serif;margin:1.5em}h1{font-size:1.3em}div.chart{margin:1em 0}", body,
                          specs, modules);
}

}  // namespace rsim::sweep
