// An interned name: a resource or member named in the trace.
//
// A run of 100,000 partitions names millions of resources in its trace
// (every rebalance of the eager protocol relists them all), so the trace
// keeps each name once per process and its lists hold 4-byte handles.
// Equality compares handles; ordering compares the names, because a handle's
// number depends on the order names were first seen and must not leak into
// output. The handle is dense (< count()), for tables indexed by name.
#pragma once

#include <compare>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

namespace rsim {

// A table of interned texts: each text once, numbered densely in the order
// first seen, the empty text 0. Looked up by text only, never iterated, so
// no hash order can leak into behaviour; texts stay in place.
class NameTable {
 public:
  NameTable();
  std::uint32_t intern(std::string_view text);
  const std::string& text(std::uint32_t id) const { return texts_[id]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(texts_.size()); }
  // The order of two texts, as std::string orders them: by their ranks in
  // text order while no text came since the table was ranked, two loads
  // instead of two texts read (partitions compared by topic name were a
  // tenth of a cooperative run; issue 16). Otherwise by text, until those
  // comparisons have cost about what ranking does (n log n): a table that
  // keeps growing is not ranked again at every comparison.
  std::strong_ordering compare(std::uint32_t a, std::uint32_t b) const {
    if (ranks_.size() == texts_.size()) return ranks_[a] <=> ranks_[b];
    return compare_unranked(a, b);
  }

 private:
  std::strong_ordering compare_unranked(std::uint32_t a, std::uint32_t b) const;
  std::deque<std::string> texts_;
  std::unordered_map<std::string_view, std::uint32_t> ids_;
  mutable std::vector<std::uint32_t> ranks_;  // by handle; current while its size is the table's
  mutable std::uint64_t unranked_ = 0;        // comparisons by text since the last ranking
};

class Name {
 public:
  Name() = default;  // the empty name, handle 0: no lookup
  Name(std::string_view name);  // NOLINT: implicit, a name is its text
  Name(const std::string& name) : Name(std::string_view(name)) {}
  Name(const char* name) : Name(std::string_view(name)) {}

  const std::string& str() const;
  operator const std::string&() const { return str(); }  // NOLINT: reads as the text it names
  std::uint32_t id() const { return id_; }
  static std::uint32_t count();
  static std::strong_ordering compare(std::uint32_t a, std::uint32_t b);  // the texts' order

  friend bool operator==(Name a, Name b) { return a.id_ == b.id_; }
  friend std::strong_ordering operator<=>(Name a, Name b) {
    if (a.id_ == b.id_) return std::strong_ordering::equal;
    return compare(a.id_, b.id_);
  }
  friend bool operator==(Name a, std::string_view b) { return a.str() == b; }
  friend bool operator==(Name a, const std::string& b) { return a.str() == b; }
  friend bool operator==(Name a, const char* b) { return a.str() == b; }

 private:
  std::uint32_t id_ = 0;
};

// A list of names in a trace field. Built from strings where that reads
// best (tests, rare events); hot emitters build it from handles.
class NameList : public std::vector<Name> {
 public:
  using std::vector<Name>::vector;
  NameList(const std::vector<std::string>& names);  // NOLINT: implicit, for trace fields
  std::vector<std::string> strings() const;
  // In the texts' order, compared as texts: a short list sorted often (a
  // group's members at each target) must not count towards ranking the
  // whole table, whose ranking costs far more than the comparisons it
  // saves there (issue 16).
  void sort_by_text();
  // Kept sorted by text as names come and go (a group's members' client
  // ids as members join and leave). A name may be listed more than once;
  // erase_by_text takes one out, and says false if it was not listed.
  void insert_by_text(Name name);
  bool erase_by_text(Name name);
};

}  // namespace rsim

template <>
struct fmt::formatter<rsim::Name> : fmt::formatter<std::string_view> {
  auto format(const rsim::Name& n, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(n.str(), ctx);
  }
};
