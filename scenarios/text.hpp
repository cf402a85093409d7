// Is a user file well-formed text? Everything it names may end up in JSON
// output, which must be valid UTF-8, so a file is checked as a whole before
// YAML reads it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rsim::scenario {

struct TextFault {
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in bytes of the text as UTF-8, as yaml-cpp counts
  std::string what;  // e.g. "not valid UTF-8: byte 0xFF"
};

// The first character that is not well-formed in the encoding YAML reads
// the text in: UTF-8, unless a byte order mark or the NUL bytes of an ASCII
// first character say UTF-16 or UTF-32 (YAML 1.2, section 5.2, as yaml-cpp
// decides). UTF-8 is checked as RFC 3629 defines it: no overlong forms, no
// surrogates, nothing above U+10FFFF.
std::optional<TextFault> find_text_fault(std::string_view text);

}  // namespace rsim::scenario
