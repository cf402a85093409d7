// Every error of a scenario file, not only the first (`validate`): the
// loader stops at its first error, so the file is loaded again with the
// offending entry blanked out, until it loads or nothing more can be
// skipped, as a compiler goes on after an error.
#pragma once

#include "scenarios/errors.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace rsim::scenario {

// The errors of `text` (the file `file`) in the order found, at most
// `limit`; empty when it loads. An error in a top-level key's own value, an
// unreadable file or invalid YAML ends the search (what follows cannot be
// read apart from it). A later error may follow from an entry skipped
// before it (an event naming a member whose entry was skipped).
std::vector<InputError> all_errors(const std::string& text, const std::string& file, std::size_t limit = 20);

}  // namespace rsim::scenario
