#include "sim/name.hpp"

#include <algorithm>

namespace rsim {

NameTable::NameTable() : texts_{std::string()}, ids_{{texts_.front(), 0}} {}

std::uint32_t NameTable::intern(std::string_view text) {
  if (auto it = ids_.find(text); it != ids_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(texts_.size());
  texts_.emplace_back(text);
  ids_.emplace(texts_.back(), id);
  return id;
}

std::strong_ordering NameTable::compare_unranked(std::uint32_t a, std::uint32_t b) const {
  const auto n = static_cast<std::uint64_t>(texts_.size());
  std::uint64_t cost = n;  // n log2 n
  for (std::uint64_t m = n; m > 1; m >>= 1) cost += n;
  if (++unranked_ <= cost) return texts_[a] <=> texts_[b];
  std::vector<std::uint32_t> order(texts_.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [this](std::uint32_t x, std::uint32_t y) { return texts_[x] < texts_[y]; });
  ranks_.assign(order.size(), 0);
  for (std::uint32_t r = 0; r < order.size(); ++r) ranks_[order[r]] = r;
  unranked_ = 0;
  return ranks_[a] <=> ranks_[b];
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

std::strong_ordering Name::compare(std::uint32_t a, std::uint32_t b) { return names().compare(a, b); }

NameList::NameList(const std::vector<std::string>& names) {
  reserve(names.size());
  for (const auto& n : names) emplace_back(n);
}

std::vector<std::string> NameList::strings() const { return {begin(), end()}; }

namespace {
bool text_order(Name a, Name b) { return a.str() < b.str(); }
}  // namespace

void NameList::sort_by_text() { std::sort(begin(), end(), text_order); }

void NameList::insert_by_text(Name name) { insert(std::upper_bound(begin(), end(), name, text_order), name); }

bool NameList::erase_by_text(Name name) {
  const auto at = std::lower_bound(begin(), end(), name, text_order);
  if (at == end() || *at != name) return false;
  erase(at);
  return true;
}

}  // namespace rsim
