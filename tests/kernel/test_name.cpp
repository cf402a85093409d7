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

TEST_CASE("a trace list of strings holds their names, in the order given") {
  const TraceEvent ev{kTimeZero, "A", "assigned", {{"resources", std::vector<std::string>{"T-1", "T-0"}}}};
  const NameList* l = ev.list("resources");
  REQUIRE(l != nullptr);
  CHECK(l->strings() == std::vector<std::string>{"T-1", "T-0"});
  CHECK(fmt::format("{}", fmt::join(*l, ",")) == "T-1,T-0");
}
}
