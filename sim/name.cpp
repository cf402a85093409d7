#include "sim/name.hpp"

namespace rsim {

NameTable::NameTable() : texts_{std::string()}, ids_{{texts_.front(), 0}} {}

std::uint32_t NameTable::intern(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(texts_.size());
  texts_.emplace_back(text);
  ids_.emplace(texts_.back(), id);
  return id;
}

namespace {
NameTable& names() {
  static NameTable n;
  return n;
}
}  // namespace

Name::Name(std::string_view name) {
  if (!name.empty()) id_ = names().intern(name);
}

const std::string& Name::str() const { return names().text(id_); }

std::uint32_t Name::count() { return names().size(); }

NameList::NameList(const std::vector<std::string>& names) {
  reserve(names.size());
  for (const auto& n : names) emplace_back(n);
}

std::vector<std::string> NameList::strings() const { return {begin(), end()}; }

}  // namespace rsim
