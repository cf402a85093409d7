// Kafka's HighAvailabilityTaskAssignorTest and TaskMovementTest (the classic
// Streams task assignor) as data: clients with threads, previous tasks and
// lags, and the assertions the Java tests make, one key each (the file's
// `conventions` list them). Every whole-assignor case is also checked against
// the assignor's invariants (protocols/streams/ha_properties.hpp). An
// expectation key this runner does not know is an input error, not a pass.
#pragma once

#include "tools/vectors/runner.hpp"

#include <yaml-cpp/yaml.h>

#include <string>

namespace rsim::vectors {

class HighAvailabilityCases {
 public:
  explicit HighAvailabilityCases(std::string path) : path_(std::move(path)) {}
  CaseResult run(const YAML::Node& c) const;

 private:
  std::string path_;
};

}  // namespace rsim::vectors
