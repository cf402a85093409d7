#include "tools/report/vega.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#ifndef RSIM_VEGA_JS
#define RSIM_VEGA_JS "/usr/share/javascript/vega"
#endif

namespace rsim::report {

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

std::string read_module(const std::string& name) {
  const auto path = vega_directory() + "/" + name + ".min.js";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw VegaMissing(fmt::format("cannot read {} (Debian's libjs-vega: apt-get install libjs-vega)", path));
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

// A value that says "</" must not end the script element it sits in.
std::string script_safe(std::string text) {
  for (auto at = text.find("</"); at != std::string::npos; at = text.find("</", at)) text.replace(at, 2, "<\\/");
  return text;
}

void write_modules(std::ostream& out, const std::vector<std::string>& modules) {
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
      << "              rsimVegaModules['vega-view-transforms'], rsimVegaModules['vega-encode']);\n</script>\n";
}

}  // namespace

std::string vega_directory() { return RSIM_VEGA_JS; }

std::vector<std::string> read_vega_modules() {
  std::vector<std::string> out;
  for (const auto& name : vega_modules()) out.push_back(read_module(name));
  return out;
}

std::string escape_html(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
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

void write_vega_page(std::ostream& out, const std::string& title, const std::string& head_css, const std::string& body,
                     const std::vector<Json>& specs, const std::vector<std::string>& modules) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" << escape_html(title) << "</title>\n"
      << "<style>" << head_css << "</style>\n</head><body>\n";
  std::string page = body;
  std::string rest;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const std::string div = fmt::format("<div class=\"chart\" id=\"chart-{}\"></div>\n", i);
    const std::string marker = fmt::format("{{chart-{}}}", i);
    if (const auto at = page.find(marker); at != std::string::npos) page.replace(at, marker.size(), div);
    else rest += div;
  }
  out << page << rest;
  write_modules(out, modules);
  out << "<script>\nvar rsimCharts = [\n";
  for (std::size_t i = 0; i < specs.size(); ++i) out << script_safe(specs[i].dump()) << (i + 1 < specs.size() ? ",\n" : "\n");
  out << "];\nrsimCharts.forEach(function (spec, i) {\n"
      << "  new vega.View(vega.parse(spec), {renderer: 'svg', container: '#chart-' + i, hover: true}).runAsync();\n"
      << "});\n</script>\n</body></html>\n";
}

}  // namespace rsim::report
