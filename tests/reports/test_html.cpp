// The HTML report renders in a real browser: headless Chromium runs its
// Vega charts, and the test reads what is on the page (Vega labels every
// chart, axis and legend for screen readers: those labels say what was
// drawn), then takes a screenshot. The rendering checks are skipped, saying
// so, where Chromium is not installed (tools/test installs it).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int sh(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::uint32_t big_endian(const std::string& s, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 3]));
}


std::string chromium_binary() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(candidate)) return candidate;
  return {};
}

struct Page {
  std::filesystem::path dir;
  std::string html;  // the file as written
  std::string dom;   // the page after its scripts ran ("" without Chromium)
};

// Runs `args` with --html into a scratch directory, then renders the file.
Page render(const std::string& args, const std::string& yaml = "") {
  Page p;
  p.dir = std::filesystem::temp_directory_path() / fmt::format("rsim-html-{}", ::getpid());
  std::filesystem::remove_all(p.dir);
  std::filesystem::create_directories(p.dir);
  std::string command = args;
  if (!yaml.empty()) {
    const auto file = (p.dir / "scenario.yaml").string();
    std::ofstream(file) << yaml;
    command += " '" + file + "'";
  }
  const auto html = (p.dir / "report.html").string();
  REQUIRE(sh(fmt::format("cd '{}' && '{}' {} --html '{}' >/dev/null", RSIM_SOURCE_DIR, RSIM_BINARY, command, html)) == 0);
  p.html = slurp(html);
  const std::string chromium = chromium_binary();
  if (chromium.empty()) return p;
  const auto dom = (p.dir / "dom.html").string();
  sh(fmt::format("timeout 120 '{}' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                 "--disable-background-networking --disable-component-update --disable-sync --user-data-dir='{}' "
                 "--virtual-time-budget=20000 --dump-dom 'file://{}' > '{}' 2>/dev/null",
                 chromium, (p.dir / "profile").string(), html, dom));
  p.dom = slurp(dom);
  return p;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A group at the scale the report must stay small for (1,000 members in
// the README's screenshot; 300 here, past the aggregation threshold).
std::string big_group() {
  return "name: big\nduration: 3m\nprotocol: cooperative\ntopics: [{name: T, partitions: 3000}]\n"
         "members: {count: 300, prefix: m, subscribe: [T]}\n"
         "events:\n  - {at: 30s, rolling-bounce: [m000, m001, m002], down: 5s, interval: 10s}\n";
}

}  // namespace

TEST_SUITE("reports") {
TEST_CASE("the HTML report of a comparison: Vega charts with legends, axis titles, markers and tooltips") {
  const auto page = render("compare scenarios/quickstart.yaml");
  CHECK(page.html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(has(page.html, "rsimVegaModules['vega-parser']"));   // the library, inlined
  // Nothing fetched from anywhere (Vega's code names XML namespaces, not sources).
  for (const char* source : {"src=\"http", "href=\"http", "src='http", "url(http", "https://"}) CHECK_FALSE(has(page.html, source));
  CHECK(has(page.html, "\"tooltip\""));
  CHECK(has(page.html, "\"wheel!\""));                      // zoom on the time axis
  if (page.dom.empty()) {
    MESSAGE("skipped the rendering checks: Chromium is not installed (tools/test installs Debian's chromium)");
    std::filesystem::remove_all(page.dir);
    return;
  }
  // quickstart compares six variants: the headline chart, then per variant
  // the ownership and the downtime chart.
  CHECK(count(page.dom, "aria-label=\"Vega visualization\"") == 13);
  CHECK(has(page.dom, "Title text 'headline metrics per variant'"));
  CHECK(has(page.dom, "Symbol legend titled 'variant' for fill color with 6 values: eager/range"));
  for (const char* metric : {"downtime.total", "stop-the-world", "time-to-stable", "rebalances", "moves"})
    CHECK(has(page.dom, fmt::format("Title text '{}'", metric)));
  CHECK(count(page.dom, "Title text 'eager/range: who owns each resource'") == 1);
  CHECK(count(page.dom, "Symbol legend titled 'owner (member)' for fill color with 4 values: A, B, C, D") == 6);
  CHECK(count(page.dom, "Symbol legend titled 'markers' for stroke color with 2 values: rebalance completed, scenario event") == 6);
  CHECK(count(page.dom, "X-axis titled 'simulated time (s); wheel to zoom, drag to pan, double-click to reset'") == 6);
  CHECK(count(page.dom, "X-axis titled 'downtime (s): time not processed'") == 6);  // its own axis, not the time axis
  CHECK(count(page.dom, ">crash B<") == 6);  // the scenario's events, named over every ownership chart
  CHECK(count(page.dom, ">join D<") == 6);
  CHECK(has(page.dom, "Y-axis titled 'resource' for a discrete scale with 6 values: orders-0, orders-1"));

  // And it renders to a screenshot of the window's size.
  const auto png = (page.dir / "report.png").string();
  const int rc = sh(fmt::format(
      "timeout 120 '{}' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync --user-data-dir='{}' "
      "--virtual-time-budget=20000 --window-size=1200,900 --screenshot='{}' 'file://{}' >/dev/null 2>&1",
      chromium_binary(), (page.dir / "profile").string(), png, (page.dir / "report.html").string()));
  CHECK(rc == 0);
  const std::string image = slurp(png);
  REQUIRE(image.size() > 1000);
  CHECK(image.substr(1, 3) == "PNG");
  CHECK(image.substr(12, 4) == "IHDR");
  CHECK(big_endian(image, 16) == 1200);
  CHECK(big_endian(image, 20) == 900);
  std::filesystem::remove_all(page.dir);
}

TEST_CASE("the HTML report draws the lag curve when the scenario has a load") {
  const auto page = render("run scenarios/rolling-bounce.yaml");
  if (page.dom.empty()) {
    MESSAGE("skipped: Chromium is not installed");
  } else {
    CHECK(has(page.dom, "Title text 'eager/range: consumer lag'"));
    CHECK(has(page.dom, "Y-axis titled 'backlog (messages)'"));
    CHECK_FALSE(has(page.dom, "headline metrics per variant"));  // one variant: nothing to compare
    CHECK(count(page.dom, ">bounce c000<") == 2);                  // over the ownership and the lag chart
  }
  std::filesystem::remove_all(page.dir);
}

TEST_CASE("the HTML report of a large group aggregates per member and stays small") {
  const auto page = render("run", big_group());
  CHECK(page.html.size() < 1'500'000);  // the Vega modules are most of it
  CHECK(has(page.html, "3000 resources: aggregated per member"));
  if (page.dom.empty()) {
    MESSAGE("skipped: Chromium is not installed");
  } else {
    CHECK(has(page.dom, "Title text 'cooperative/cooperative-sticky: resources held per member'"));
    CHECK(has(page.dom, "Gradient legend titled 'resources held'"));
    CHECK(has(page.dom, "Y-axis titled 'member' for a discrete scale with 300 values"));
    CHECK(has(page.dom, "Subtitle text 'the 40 longest of 3000 resources'"));
    CHECK_FALSE(has(page.dom, "the resources of"));
    // And per topic: one row for T.
    CHECK(has(page.dom, "Title text 'cooperative/cooperative-sticky: resources owned per topic, connector or sub-topology'"));
    CHECK(has(page.dom, "Y-axis titled 'topic, connector or sub-topology' for a discrete scale with 1 value: T"));
  }
  std::filesystem::remove_all(page.dir);
}

TEST_CASE("--html-focus drills down from the aggregate to some members' resources") {
  // m000 holds T-0..T-9 (3,000 partitions over 300 members) before its bounce.
  const auto page = render("run --html-focus m000", big_group());
  if (page.dom.empty()) {
    MESSAGE("skipped: Chromium is not installed");
  } else {
    CHECK(has(page.dom, "Title text 'cooperative/cooperative-sticky, the resources of m000: who owns each resource'"));
    CHECK(has(page.dom, "Title text 'cooperative/cooperative-sticky: resources held per member'"));  // the aggregate stays
  }
  std::filesystem::remove_all(page.dir);
  CHECK(sh(fmt::format("cd '{}' && '{}' run scenarios/quickstart.yaml --html /dev/null --html-focus Z 2>&1 | "
                       "grep -q \"^rebalance-sim: --html-focus: the run has no member 'Z'$\"",
                       RSIM_SOURCE_DIR, RSIM_BINARY)) == 0);
}
}
