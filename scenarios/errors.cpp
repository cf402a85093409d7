#include "scenarios/errors.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rsim::scenario {

namespace {
std::string where(const std::string& file, Mark m) {
  if (m.line <= 0) return file;
  return fmt::format("{}:{}:{}", file, m.line, m.column);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

InputError::InputError(std::string file, Mark mark, std::string message)
    : std::runtime_error(where(file, mark) + ": " + message),
      file_(std::move(file)),
      mark_(mark),
      message_(std::move(message)) {}

std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string_view best;
  std::size_t best_d = SIZE_MAX;
  for (auto c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {  // first of equals wins: candidate order is fixed
      best_d = d;
      best = c;
    }
  }
  // A typo changes a few characters, never most of the word.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  if (best.empty() || best_d > limit || best_d >= word.size()) return {};
  return std::string(best);
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::string m = closest_match(word, candidates);
  return m.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", m);
}

}  // namespace rsim::scenario
