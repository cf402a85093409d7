#include "sim/name.hpp"

#include <deque>
#include <unordered_map>

namespace rsim {

namespace {

// The process's names. Looked up by text only, never iterated, so the hash
// order cannot leak into behaviour; a deque keeps the texts in place.
struct Names {
  std::deque<std::string> texts{std::string()};  // the empty name is handle 0
  std::unordered_map<std::string_view, std::uint32_t> ids{{texts.front(), 0}};
};

Names& names() {
  static Names n;
  return n;
}

}  // namespace

Name::Name(std::string_view name) {
  if (name.empty()) return;
  Names& n = names();
  if (auto it = n.ids.find(name); it != n.ids.end()) {
    id_ = it->second;
    return;
  }
  id_ = static_cast<std::uint32_t>(n.texts.size());
  n.texts.emplace_back(name);
  n.ids.emplace(n.texts.back(), id_);
}

const std::string& Name::str() const { return names().texts[id_]; }

std::uint32_t Name::count() { return static_cast<std::uint32_t>(names().texts.size()); }

NameList::NameList(const std::vector<std::string>& names) {
  reserve(names.size());
  for (const auto& n : names) emplace_back(n);
}

std::vector<std::string> NameList::strings() const { return {begin(), end()}; }

}  // namespace rsim
