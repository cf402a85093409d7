// The bundled scenarios the per-scenario loops (golden timelines, `run`
// from the CLI) leave out, with why; each is run by a test of its own.
#pragma once

#include <set>
#include <string>

namespace rsim::testing {

// Relative to the source tree.
inline const std::set<std::string> kTooLargeToPin{
    // 90,000 tasks: an 11 MB timeline; tests/protocols/test_records.cpp.
    "scenarios/streams/large-group.yaml",
};

}  // namespace rsim::testing
