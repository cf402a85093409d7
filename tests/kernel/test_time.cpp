#include "sim/time.hpp"

#include <doctest/doctest.h>

using namespace rsim;
using namespace std::chrono_literals;

TEST_SUITE("kernel") {
TEST_CASE("durations are exact integer microseconds and literals convert") {
  const Duration d = 1500ms;
  CHECK(d.count() == 1'500'000);
  CHECK(Duration{2min}.count() == 120'000'000);
  CHECK(Duration{250us}.count() == 250);
  const Time t = time_at(3s) + 250us;
  CHECK(micros(t) == 3'000'250);
}

TEST_CASE("durations print in seconds, with microseconds only when needed") {
  CHECK(format_duration(Duration{0}) == "0.000s");
  CHECK(format_duration(1500ms) == "1.500s");
  CHECK(format_duration(Duration{3'000'250}) == "3.000250s");
  CHECK(format_duration(-Duration{1500ms}) == "-1.500s");
  CHECK(format_time(time_at(2min)) == "120.000s");
}
}
