// `sweep --html` and `compare --seeds N --html`: each metric against the
// swept value (the first --set key; the variant for `compare`), one line per
// variant with its confidence band, as a self-contained HTML file. The
// charts are Vega specs drawn by Debian's libjs-vega, whose modules are
// inlined into the file: nothing is fetched when it is opened.
#pragma once

#include "tools/sweep/plan.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace rsim::sweep {

// The Vega spec of one metric's chart (its data inline).
std::string chart_spec(const Plan& plan, const std::vector<std::vector<Cell>>& cells, const std::string& metric);

// Throws OptionError (naming `option`) when the Vega modules cannot be read.
void write_plot_html(std::ostream& out, const Plan& plan, const std::vector<std::vector<Cell>>& cells,
                     const std::vector<std::string>& shown, const std::string& title, const std::string& option);

}  // namespace rsim::sweep
