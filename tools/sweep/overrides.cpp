#include "tools/sweep/overrides.hpp"

#include "scenarios/values.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cassert>
#include <optional>

namespace rsim::sweep {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto at = text.find(sep, start);
    out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

std::string join(const std::vector<std::string>& parts, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) out += (i == from ? "" : ".") + parts[i];
  return out;
}

// A value as YAML: plain when it cannot be read as structure, else quoted.
std::string yaml_scalar(const std::string& value) {
  bool plain = !value.empty();
  for (char c : value)
    plain &= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
             c == '-' || c == '/' || c == '+';
  if (plain) return value;
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// Where a one-line scalar that starts at `pos` ends.
std::size_t scalar_end(const std::string& text, std::size_t pos, bool flow) {
  const char quote = text[pos];
  if (quote == '"' || quote == '\'') {
    for (std::size_t i = pos + 1; i < text.size(); ++i) {
      if (quote == '"' && text[i] == '\\') {
        ++i;
        continue;
      }
      if (text[i] != quote) continue;
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;
        continue;
      }
      return i + 1;
    }
    return text.size();
  }
  std::size_t end = pos;
  while (end < text.size() && text[end] != '\n' && text[end] != '\r') {
    if (flow && (text[end] == ',' || text[end] == '}' || text[end] == ']')) break;
    if (text[end] == '#' && end > pos && (text[end - 1] == ' ' || text[end - 1] == '\t')) break;
    ++end;
  }
  while (end > pos && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  return end;
}

std::string where(const std::string& file, const YAML::Node& n) {
  const auto m = n.Mark();
  return m.is_null() ? file : fmt::format("{}:{}:{}", file, m.line + 1, m.column + 1);
}

// A list item named by `segment`: its index, or the item whose id or name it is.
std::optional<std::size_t> list_item(const YAML::Node& list, const std::string& segment) {
  if (const auto index = scenario::parse_integer(segment); index && *index >= 0)
    return *index < static_cast<std::int64_t>(list.size()) ? std::optional<std::size_t>(*index) : std::nullopt;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].IsMap()) continue;
    for (const char* name : {"id", "name"})
      if (list[i][name] && list[i][name].IsScalar() && list[i][name].Scalar() == segment) return i;
  }
  return std::nullopt;
}

// Inserts `key: value` into the map `map` (present in the text).
std::string insert_entry(const std::string& text, const YAML::Node& map, const std::string& entry) {
  const auto mark = map.Mark();
  assert(!mark.is_null());
  const auto pos = static_cast<std::size_t>(mark.pos);
  if (map.Style() == YAML::EmitterStyle::Flow) {
    assert(text[pos] == '{');
    return text.substr(0, pos + 1) + entry + (map.size() > 0 ? ", " : "") + text.substr(pos + 1);
  }
  // A block map's mark is its first key: the new entry takes a line of its
  // own at that key's indentation, before it (or, in a list item whose first
  // line starts with "- ", after that line).
  const auto line_start = pos - static_cast<std::size_t>(mark.column);
  const std::string indent(static_cast<std::size_t>(mark.column), ' ');
  if (text.compare(line_start, static_cast<std::size_t>(mark.column), indent) == 0)
    return text.substr(0, line_start) + indent + entry + "\n" + text.substr(line_start);
  auto eol = text.find('\n', pos);
  if (eol == std::string::npos) eol = text.size();
  return text.substr(0, eol) + "\n" + indent + entry + text.substr(eol);
}

}  // namespace

SetOption parse_set(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw OptionError(fmt::format("--set: expected KEY=v1,v2,.. (e.g. config.session.timeout.ms=10000,45000), got '{}'", text));
  SetOption o{text.substr(0, eq), split(text.substr(eq + 1), ',')};
  for (const auto& part : split(o.key, '.'))
    if (part.empty()) throw OptionError(fmt::format("--set {}: an empty part in the key", text));
  for (const auto& v : o.values)
    if (v.empty()) throw OptionError(fmt::format("--set {}: an empty value (values are separated by commas)", text));
  return o;
}

std::string set_value(const std::string& text, const std::string& file, const std::string& key,
                      const std::string& value) {
  const std::string option = fmt::format("--set {}={}", key, value);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw OptionError(fmt::format("{}: {} is not valid YAML: {}", option, file, e.msg));
  }
  if (!root.IsMap()) throw OptionError(fmt::format("{}: {} is not a YAML map of scenario keys", option, file));
  const auto parts = split(key, '.');
  YAML::Node node = root;
  bool flow = false;
  std::size_t i = 0;
  while (i < parts.size()) {
    flow |= node.Style() == YAML::EmitterStyle::Flow;
    if (node.IsSequence()) {
      const auto item = list_item(node, parts[i]);
      if (!item)
        throw OptionError(fmt::format("{}: '{}' is a list ({}) with no item '{}' (an index from 0, or an item's id or name)",
                                   option, join(parts, 0, i), where(file, node), parts[i]));
      node = node[*item];
      ++i;
      continue;
    }
    if (!node.IsMap())
      throw OptionError(fmt::format("{}: '{}' is a single value ({}), not a map with '{}'", option, join(parts, 0, i),
                                 where(file, node), parts[i]));
    // The longest run of parts that is a key here: config names have dots.
    std::optional<YAML::Node> next;
    std::size_t used = 0;
    for (std::size_t j = parts.size(); j > i && !next; --j) {
      const auto name = join(parts, i, j);
      for (auto it = node.begin(); it != node.end(); ++it)
        if (it->first.IsScalar() && it->first.Scalar() == name) {
          next = it->second;
          used = j - i;
          break;
        }
    }
    if (!next) {
      // Added: at the top a section with the rest as one key in it; inside
      // a section the rest is one key (a config name).
      const std::string rest = i == 0 && parts.size() > 1 ? join(parts, 1, parts.size()) : std::string();
      const std::string entry = i == 0 && parts.size() > 1
                                    ? fmt::format("{}: {{{}: {}}}", parts[0], yaml_scalar(rest), yaml_scalar(value))
                                    : fmt::format("{}: {}", yaml_scalar(join(parts, i, parts.size())), yaml_scalar(value));
      return insert_entry(text, node, entry);
    }
    node = *next;
    i += used;
  }
  flow |= node.Style() == YAML::EmitterStyle::Flow && !node.IsScalar();
  if (!node.IsScalar() && !node.IsNull())
    throw OptionError(fmt::format("{}: '{}' is a {} ({}); set one of its values", option, key,
                               node.IsSequence() ? "list" : "map", where(file, node)));
  const auto mark = node.Mark();
  if (mark.is_null() || node.IsNull())
    throw OptionError(fmt::format("{}: '{}' has no value in {} to replace", option, key, file));
  const auto pos = static_cast<std::size_t>(mark.pos);
  if (text[pos] == '|' || text[pos] == '>')
    throw OptionError(fmt::format("{}: '{}' is a block scalar ({}); --set replaces one-line values", option, key,
                               where(file, node)));
  return text.substr(0, pos) + yaml_scalar(value) + text.substr(scalar_end(text, pos, flow));
}

}  // namespace rsim::sweep
