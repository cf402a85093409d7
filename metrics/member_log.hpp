// What one member has (resources it was given, or has made ready), kept as
// a run goes: adding appends and letting go does not search, so the log may
// still list what the member let go since. The caller's table by resource
// says who has what; `compact` trims the log to what the member still has,
// once each, when it has doubled since the last trim, so the log stays
// within a constant factor of the member's holdings at O(1) amortised.
#pragma once

#include "sim/name.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rsim::metrics {

template <class Entry>
class MemberLog {
 public:
  void add(Entry e) { entries_.push_back(e); }
  const std::vector<Entry>& entries() const { return entries_; }
  void clear() {
    entries_.clear();
    kept_ = 0;
  }
  // `has(e)`: whether the member still has e.
  template <class Has>
  void compact(Has&& has) {
    if (entries_.size() <= 2 * kept_ + 64) return;
    std::erase_if(entries_, [&](const Entry& e) { return !has(e); });
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return key(a) < key(b); });
    entries_.erase(std::unique(entries_.begin(), entries_.end()), entries_.end());
    kept_ = entries_.size();
  }

 private:
  // Any order will do for finding repeats; a name's handle is the cheap one.
  static std::uint32_t key(Name n) { return n.id(); }
  static std::size_t key(std::size_t i) { return i; }

  std::vector<Entry> entries_;
  std::size_t kept_ = 0;  // the size after the last trim
};

}  // namespace rsim::metrics
