// Self-contained HTML pages of Vega charts: Debian's libjs-vega modules are
// inlined into the page, so nothing is fetched when it is opened. Shared by
// the run/compare report (html.cpp) and the sweep plots (tools/sweep/plot.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace rsim::report {

// A module of libjs-vega cannot be read (the package is missing).
struct VegaMissing : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where Debian's libjs-vega puts its modules (RSIM_VEGA_JS at build time).
std::string vega_directory();

// The modules' text, in load order; throws VegaMissing. Read before a page
// is written, so a missing module fails before anything is.
std::vector<std::string> read_vega_modules();

// Text safe inside an HTML element.
std::string escape_html(const std::string& text);

// `{"enter": {...}}` for a mark's encode block.
nlohmann::ordered_json encode(std::initializer_list<std::pair<const char*, nlohmann::ordered_json>> fields);
nlohmann::ordered_json scaled(const char* scale, const char* field);

// Writes the page: `head_css` into its style, `body` (HTML, already
// escaped) and then one <div id="chart-N"> per spec, each drawn by Vega
// with the SVG renderer, where the body names them (`{chart-N}` markers in
// `body` are replaced by the chart's div; charts not named follow it).
void write_vega_page(std::ostream& out, const std::string& title, const std::string& head_css, const std::string& body,
                     const std::vector<nlohmann::ordered_json>& specs, const std::vector<std::string>& modules);

}  // namespace rsim::report
