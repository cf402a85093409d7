#include "protocols/streams/tasks.hpp"

#include <charconv>

namespace rsim::protocols::streams {

std::string to_string(const TaskId& t) { return t.subtopology.str() + "_" + std::to_string(t.partition); }

std::optional<TaskId> parse_task(std::string_view text) {
  const auto cut = text.rfind('_');
  if (cut == std::string_view::npos || cut == 0 || cut + 1 == text.size()) return std::nullopt;
  int partition = 0;
  const auto digits = text.substr(cut + 1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), partition);
  if (ec != std::errc{} || end != digits.data() + digits.size() || partition < 0) return std::nullopt;
  return TaskId{std::string(text.substr(0, cut)), partition};
}

}  // namespace rsim::protocols::streams
