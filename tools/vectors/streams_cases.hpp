// Kafka's StickyTaskAssignorTest (KIP-1071 server-side task assignor) as
// data: sub-topologies, members with their processes and previous tasks, and
// what the Java test asserts: exact active/standby tasks of some members, or
// a short sentence ("each member exactly 1 active task; union of actives
// covers all 6 tasks"). Sentences are split into clauses and each clause is
// checked by what it says; every case is also checked against the generic
// invariants of a task assignment (protocols/streams/invariants.hpp). A
// clause this runner cannot read is named in the case's detail, which then
// says that only the invariants covered it.
#pragma once

#include "protocols/streams/tasks.hpp"
#include "tools/vectors/runner.hpp"

#include <yaml-cpp/yaml.h>

#include <string>

namespace rsim::vectors {

// "[0_0, 0_1]": a task set as the cases' messages print it.
std::string show_tasks(const protocols::streams::TaskSet& s);

class StreamsCases {
 public:
  explicit StreamsCases(std::string path) : path_(std::move(path)) {}
  CaseResult run(const YAML::Node& c) const;

 private:
  std::string path_;
};

}  // namespace rsim::vectors
