// Every failure the swarm or a hostile user found, kept as the minimal
// scenario that showed it (tests/swarm/*.yaml) and run forever after under
// the protocols it names: each must pass the safety and liveness checkers.
// A file says what went wrong in its header and which protocols it is for:
//   # protocols: deferred, incremental
#include "scenarios/loader.hpp"
#include "tools/swarm/verdict.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace rsim;

namespace {

std::vector<std::string> regression_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(RSIM_SOURCE_DIR) + "/tests/swarm"))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The protocols of the file's `# protocols:` line.
std::vector<std::string> protocols_of(const std::string& path) {
  std::ifstream in(path);
  const std::string prefix = "# protocols:";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::vector<std::string> out;
    std::istringstream names(line.substr(prefix.size()));
    for (std::string p; std::getline(names, p, ',');) {
      p.erase(0, p.find_first_not_of(' '));
      p.erase(p.find_last_not_of(' ') + 1);
      if (!p.empty()) out.push_back(p);
    }
    return out;
  }
  return {};
}

}  // namespace

TEST_SUITE("swarm") {
TEST_CASE("every swarm and hostile-input regression passes the checkers under its protocols") {
  const auto files = regression_files();
  REQUIRE(files.size() >= 20);
  for (const auto& f : files) {
    const auto protocols = protocols_of(f);
    CAPTURE(f);
    REQUIRE_FALSE(protocols.empty());
    const auto s = scenario::load_file(f);
    for (const auto& p : protocols) {
      CAPTURE(p);
      const auto v = swarm::judge(s, p);
      CHECK_MESSAGE(v.kind == "ok", v.message);
    }
  }
}
}
