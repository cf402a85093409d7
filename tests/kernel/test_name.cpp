#include "sim/name.hpp"
#include "sim/trace.hpp"

#include <algorithm>

#include <doctest/doctest.h>

using namespace rsim;

TEST_SUITE("kernel") {
TEST_CASE("a name is interned once; equality is by handle, order by text") {
  // Interned in the reverse of name order: the handles then order the other way.
  const Name later("zz-name-test-b"), earlier("zz-name-test-a");
  CHECK(Name("zz-name-test-b") == later);
  CHECK(Name("zz-name-test-b").id() == later.id());
  CHECK(later.id() < earlier.id());
  CHECK(earlier < later);  // by text, whatever the handles
  CHECK(later.str() == "zz-name-test-b");
  CHECK(later == std::string("zz-name-test-b"));
  CHECK(Name() == Name(""));
  CHECK(Name().str().empty());
  CHECK(earlier.id() < Name::count());
  std::vector<Name> v{later, earlier};
  std::sort(v.begin(), v.end());
  CHECK(v.front() == earlier);
}

// The table compares by rank once enough comparisons by text were made
// since its last new text, and by text again after one comes.
TEST_CASE("a name table orders its texts as std::string does, ranked or not") {
  NameTable t;
  std::vector<std::string> texts{"m", "b", "zz", "a", "c10", "c9", "b\x80", "B"};
  std::vector<std::uint32_t> ids;
  for (const auto& x : texts) ids.push_back(t.intern(x));
  ids.push_back(0);
  texts.push_back("");
  auto check_all = [&] {
    for (std::size_t i = 0; i < ids.size(); ++i)
      for (std::size_t j = 0; j < ids.size(); ++j) {
        CAPTURE(texts[i]);
        CAPTURE(texts[j]);
        CHECK(t.compare(ids[i], ids[j]) == (texts[i] <=> texts[j]));
      }
  };
  for (int round = 0; round < 4; ++round) check_all();  // past the cost of ranking: ranked
  ids.push_back(t.intern("ba"));  // between "b" and "b\x80": the ranks are stale
  texts.push_back("ba");
  for (int round = 0; round < 4; ++round) check_all();
}

TEST_CASE("a trace list of strings holds their names, in the order given") {
  const TraceEvent ev{kTimeZero, "A", "assigned", {{"resources", std::vector<std::string>{"T-1", "T-0"}}}};
  const NameList* l = ev.list("resources");
  REQUIRE(l != nullptr);
  CHECK(l->strings() == std::vector<std::string>{"T-1", "T-0"});
  CHECK(fmt::format("{}", fmt::join(*l, ",")) == "T-1,T-0");
}

TEST_CASE("a name list sorts by its texts, not by when they were first seen") {
  NameList l{Name("sort-by-text c10"), Name("sort-by-text B"), Name("sort-by-text c9"), Name("sort-by-text b"),
             Name("sort-by-text b"), Name()};
  l.sort_by_text();
  CHECK(l.strings() == std::vector<std::string>{"", "sort-by-text B", "sort-by-text b", "sort-by-text b",
                                                "sort-by-text c10", "sort-by-text c9"});
}

TEST_CASE("a name list kept sorted by text takes names in and out at their places") {
  NameList l;
  // Interned in an order other than the texts': the handles' order must not leak in.
  for (const char* t : {"kept z", "kept b", "kept a", "kept b", "kept c"}) l.insert_by_text(Name(t));
  CHECK(l.strings() == std::vector<std::string>{"kept a", "kept b", "kept b", "kept c", "kept z"});
  CHECK(l.erase_by_text(Name("kept b")));
  CHECK(l.strings() == std::vector<std::string>{"kept a", "kept b", "kept c", "kept z"});
  CHECK_FALSE(l.erase_by_text(Name("kept y")));  // not listed: "kept z", where it would be, stays
  CHECK(l.erase_by_text(Name("kept z")));
  CHECK_FALSE(l.erase_by_text(Name("kept z")));
  CHECK(l.strings() == std::vector<std::string>{"kept a", "kept b", "kept c"});
}
}
