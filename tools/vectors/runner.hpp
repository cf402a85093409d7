// Runs assignor test vectors (the schema of ../shared/vectors/, copied into
// tests/vectors/) against the built-in assignors. Every case ends as PASS,
// FAIL (with what differed) or SKIP (with the reason: an assignor this
// version lacks, or an expectation it cannot check yet), never silently.
#pragma once

#include "protocols/assignors/exec.hpp"
#include "protocols/catalog.hpp"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace rsim::vectors {

enum class Status { Pass, Fail, Skip };

struct CaseResult {
  std::string name;
  std::string method;
  std::string assignor;
  Status status = Status::Skip;
  std::string detail;  // what differed, or why skipped; for a pass, any note
};

struct FileResult {
  std::string file;
  std::vector<CaseResult> cases;
  int count(Status s) const;
};

// `vectors --assignor-exec`: a plug-in answers every client- and broker-side
// case in place of the built-in the file names. One process per side (client
// eager, client cooperative, broker), kept for every file of the run.
class Plugins {
 public:
  explicit Plugins(protocols::ExecSettings settings) : settings_(std::move(settings)) {}
  protocols::ExecAssignor& for_target(protocols::Family family, bool cooperative);

 private:
  protocols::ExecSettings settings_;
  std::map<std::pair<bool, bool>, std::unique_ptr<protocols::ExecAssignor>> by_side_;  // (consumer, cooperative)
};

// Throws scenario::InputError (file:line:column) on a file that is not of the
// vector schema. A plug-in's bad answer fails its case.
FileResult run_file(const std::string& path, Plugins* plugins = nullptr);

const char* status_name(Status s);

}  // namespace rsim::vectors
