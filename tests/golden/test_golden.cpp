// Golden timelines (ns-3's .reflog, SimGrid's .tesh): every bundled scenario
// under every protocol that runs it has its text timeline and summary pinned
// beside it as NAME.PROTOCOL.timeline. A change of behaviour shows up as a
// readable diff of that file; `tools/golden --update` writes them anew, to
// be reviewed and committed with the change that explains them.
#include "metrics/expect.hpp"
#include "metrics/summary.hpp"
#include "protocols/catalog.hpp"
#include "scenarios/supported.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "tools/report/summary_output.hpp"
#include "tools/report/timeline.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include "tests/bundled.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace rsim;

namespace {

std::vector<std::filesystem::path> bundled() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(RSIM_SOURCE_DIR) + "/scenarios"))
    if (e.path().extension() == ".yaml" &&
        testing::kTooLargeToPin.count(std::filesystem::relative(e.path(), RSIM_SOURCE_DIR).string()) == 0)
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// What `run FILE --protocol P --timeline text` prints.
std::string golden_text(const scenario::Scenario& s, const std::string& protocol) {
  scenario::RunOptions o;
  o.protocol = protocol;
  const auto run = scenario::run(s, o);
  const auto summary = metrics::summarize(s, run);
  std::ostringstream out;
  report::write_text_timeline(out, run.trace.events());
  out << '\n';
  report::write_summary_table(out, s, run, summary, metrics::evaluate(s, summary));
  return out.str();
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first line where `got` differs from `want`, for the failure message.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la)), more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "identical";
    if (la != lb || more_a != more_b)
      return fmt::format("line {}:\n  pinned: {}\n  now:    {}", line, more_a ? la : "(end)", more_b ? lb : "(end)");
  }
}

}  // namespace

TEST_SUITE("golden") {
TEST_CASE("every bundled scenario's timeline under every protocol matches the pinned file") {
  const bool update = std::getenv("RSIM_UPDATE_GOLDEN") != nullptr;
  int pinned = 0;
  for (const auto& file : bundled()) {
    const auto s = scenario::load_file(file.string());
    for (const auto& protocol : scenario::protocols_for(s)) {
      auto golden = file;
      golden.replace_extension(fmt::format(".{}.timeline", protocol));
      CAPTURE(golden.string());
      const std::string now = golden_text(s, protocol);
      if (update) {
        std::ofstream(golden, std::ios::binary) << now;
      } else {
        REQUIRE_MESSAGE(std::filesystem::exists(golden), "missing; write it with tools/golden --update");
        const std::string want = read(golden);
        CHECK_MESSAGE(want == now, first_difference(want, now));
      }
      ++pinned;
    }
  }
  CHECK(pinned >= 60);
}
}
