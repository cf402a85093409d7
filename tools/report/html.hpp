// A self-contained HTML report (inline SVG and CSS, nothing fetched): for
// each variant, the ownership of every resource over time per member, with
// rebalances marked, the downtime of each resource, and the summary. For
// `compare`, the variants stack on one time axis.
#pragma once

#include "metrics/summary.hpp"
#include "sim/trace.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace rsim::report {

struct HtmlVariant {
  std::string title;  // protocol/assignor
  const std::vector<TraceEvent>* events;
  std::vector<std::string> resources;
  metrics::Summary summary;
};

void write_html(std::ostream& out, const std::string& scenario, std::uint64_t seed, Time end,
                const std::vector<HtmlVariant>& variants);

}  // namespace rsim::report
