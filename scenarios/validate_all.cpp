#include "scenarios/validate_all.hpp"

#include "scenarios/loader.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace rsim::scenario {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    out += lines[i];
  }
  return out;
}

bool blank(const std::string& line) {
  const auto first = line.find_first_not_of(" \t");
  return first == std::string::npos || line[first] == '#';
}

std::size_t leading_spaces(const std::string& line) {
  const auto i = line.find_first_not_of(' ');
  return i == std::string::npos ? line.size() : i;
}

// A top-level key: skipping it would take a whole section.
bool top_level_key(const std::string& line) { return leading_spaces(line) == 0 && line.rfind("- ", 0) != 0; }

// The lines of the entry that starts at `line` (0-based): it and the lines
// below it indented deeper. Null for a top-level key.
std::optional<std::pair<std::size_t, std::size_t>> entry_lines(const std::vector<std::string>& lines, std::size_t line) {
  if (line >= lines.size() || blank(lines[line]) || top_level_key(lines[line])) return std::nullopt;
  const std::size_t own = leading_spaces(lines[line]);
  std::size_t end = line + 1;
  while (end < lines.size() && (blank(lines[end]) || leading_spaces(lines[end]) > own)) ++end;
  return std::make_pair(line, end);
}

// The entry enclosing line `line`: the nearest line above it indented less.
std::optional<std::size_t> parent_line(const std::vector<std::string>& lines, std::size_t line) {
  const std::size_t own = leading_spaces(lines[line]);
  for (std::size_t i = line; i-- > 0;)
    if (!blank(lines[i]) && leading_spaces(lines[i]) < own) return i;
  return std::nullopt;
}

// A block parent left with no entries would read as null ("members:"):
// it gets an empty collection of the kind it held, so the skip does not
// become an error of its own.
void close_empty_parent(std::vector<std::string>& lines, std::optional<std::size_t> parent, bool was_item) {
  if (!parent) return;
  const std::size_t own = leading_spaces(lines[*parent]);
  for (std::size_t i = *parent + 1; i < lines.size(); ++i) {
    if (blank(lines[i])) continue;
    if (leading_spaces(lines[i]) > own || (was_item && leading_spaces(lines[i]) == own && lines[i].rfind("- ", own) == own))
      return;  // an entry is left
    break;
  }
  auto& line = lines[*parent];
  const auto end = line.find_last_not_of(" \t");
  if (end != std::string::npos && line[end] == ':') line += was_item ? " []" : " {}";
}

bool same_error(const InputError& a, const InputError& b) {
  return a.mark().line == b.mark().line && a.mark().column == b.mark().column && a.message() == b.message();
}

}  // namespace

std::vector<InputError> all_errors(const std::string& text, const std::string& file, std::size_t limit) {
  std::vector<InputError> found;
  std::vector<std::string> lines = split_lines(text);
  std::set<std::size_t> skipped_in;  // the entries enclosing a skipped one
  // Each round blanks at least one line, so the lines bound the rounds.
  for (std::size_t round = 0; round <= lines.size() && found.size() < limit; ++round) {
    std::optional<InputError> error;
    try {
      (void)load_text(join_lines(lines), file);
      break;
    } catch (const InputError& e) {
      error = e;
    }
    const int line = error->mark().line;
    if (line < 1 || static_cast<std::size_t>(line) > lines.size()) {
      if (found.empty()) found.push_back(*error);
      break;
    }
    const auto at = static_cast<std::size_t>(line - 1);
    // An entry whose part was skipped, now incomplete: a consequence, not news.
    const bool consequence = skipped_in.count(at) != 0;
    if (round > 0 && error->message().rfind("not valid YAML", 0) == 0) break;  // the blanking broke the text
    if (!consequence) {
      if (!found.empty() && same_error(found.back(), *error)) break;
      found.push_back(*error);
    }
    const auto entry = entry_lines(lines, at);
    if (!entry) break;
    const bool was_item = lines[entry->first].compare(leading_spaces(lines[entry->first]), 2, "- ") == 0;
    const auto parent = parent_line(lines, entry->first);
    for (auto p = parent; p; p = parent_line(lines, *p)) skipped_in.insert(*p);
    for (std::size_t i = entry->first; i < entry->second; ++i) lines[i].clear();
    close_empty_parent(lines, parent, was_item);
  }
  std::stable_sort(found.begin(), found.end(), [](const InputError& a, const InputError& b) {
    return std::pair(a.mark().line, a.mark().column) < std::pair(b.mark().line, b.mark().column);
  });
  return found;
}

}  // namespace rsim::scenario
