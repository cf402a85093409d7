// Kafka Connect's IncrementalCooperativeAssignorTest as data: rounds of
// worker changes written as short sentences ("add worker3; rebalance",
// "sleep(delay); rebalance"), the expected per-round allocation counts and
// delays, and the unit tests of the assignor's pieces (assignConnectors,
// handleLostAssignments). Each sentence maps onto what the Java test does;
// one this runner does not know is an error with its file:line:column, never
// a silent pass.
#pragma once

#include "tools/vectors/runner.hpp"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

namespace rsim::vectors {

class ConnectCases {
 public:
  explicit ConnectCases(std::string path) : path_(std::move(path)) {}
  CaseResult run(const YAML::Node& c);

 private:
  std::string path_;
  std::optional<YAML::Node> last_workers_;  // "as above": the previous case's workers
};

}  // namespace rsim::vectors
