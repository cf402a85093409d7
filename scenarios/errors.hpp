// Errors in user input, with the position they refer to. Everything that
// rejects input (loader, runner, CLI) reports one of these, printed as
// `FILE:LINE:COLUMN: message`, and the CLI exits with code 2.
#pragma once

#include "scenarios/scenario.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rsim::scenario {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, Mark mark, std::string message);
  const std::string& file() const { return file_; }
  Mark mark() const { return mark_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  Mark mark_;
  std::string message_;
};

// The closest candidate to `word`, if one is close enough to be a typo.
std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates);
// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace rsim::scenario
