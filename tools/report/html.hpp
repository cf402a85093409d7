// A self-contained HTML report of Vega charts (Debian's libjs-vega inlined,
// nothing fetched): for `compare`, the headline metrics per variant side by
// side; for each variant, who owns what over time (one row per resource,
// or past a size one row per member, and one per topic, coloured by how
// many it holds), with
// completed rebalances and the scenario's events marked, the lag curve with
// a load:, and the downtime per resource on its own axis. Time axes zoom
// (wheel) and pan (drag); every mark has a tooltip.
#pragma once

#include "metrics/summary.hpp"
#include "sim/trace.hpp"

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rsim::report {

struct HtmlVariant {
  std::string title;  // protocol/assignor
  const std::vector<TraceEvent>* events;
  std::vector<std::string> resources;
  metrics::Summary summary;
  std::optional<metrics::LoadRates> load;  // the scenario's load: draws the lag curve
  // A resource's topic, connector or sub-topology: where the report
  // aggregates, a second heat map has a row per one of them.
  std::function<std::string(const std::string&)> resource_group;
};

// Throws VegaMissing when libjs-vega cannot be read. `focus` (members) drills
// down where a chart aggregates: one row per resource those members owned.
void write_html(std::ostream& out, const std::string& scenario, std::uint64_t seed, Time end,
                const std::vector<HtmlVariant>& variants, const std::vector<std::string>& focus = {});

}  // namespace rsim::report
