// Runs assignor test vectors (the schema of ../shared/vectors/, copied into
// tests/vectors/) against the built-in assignors. Every case ends as PASS,
// FAIL (with what differed) or SKIP (with the reason: an assignor this
// version lacks, or an expectation it cannot check yet), never silently.
#pragma once

#include <string>
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

// Throws scenario::InputError (file:line:column) on a file that is not of the
// vector schema.
FileResult run_file(const std::string& path);

const char* status_name(Status s);

}  // namespace rsim::vectors
