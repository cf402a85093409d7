// The JMH-style estimate: Student's t quantiles against published tables,
// the error of a known sample, and when two intervals tell variants apart.
#include "tools/sweep/statistics.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace rsim::sweep;

TEST_SUITE("sweep") {
  TEST_CASE("Student's t quantiles match the published table (two-sided 99.9% and 95%)") {
    // t(0.9995, df) and t(0.975, df) from any statistics table.
    CHECK(student_t(0.999, 1) == doctest::Approx(636.619).epsilon(1e-5));
    CHECK(student_t(0.999, 4) == doctest::Approx(8.610).epsilon(1e-4));
    CHECK(student_t(0.999, 29) == doctest::Approx(3.659).epsilon(1e-4));
    CHECK(student_t(0.95, 9) == doctest::Approx(2.262).epsilon(1e-4));
  }

  TEST_CASE("an estimate is count, mean, 99.9% error, min and max, as JMH prints them") {
    const auto e = estimate({5, 1, 4, 2, 3});
    CHECK(e.count == 5);
    CHECK(e.mean == 3.0);
    CHECK(e.min == 1.0);
    CHECK(e.max == 5.0);
    CHECK(e.stddev == doctest::Approx(std::sqrt(2.5)));
    REQUIRE(e.error.has_value());
    // 8.6103 x sqrt(2.5) / sqrt(5)
    CHECK(*e.error == doctest::Approx(6.0884).epsilon(1e-4));
  }

  TEST_CASE("one sample has no interval; equal samples have a zero-width one") {
    const auto one = estimate({7});
    CHECK(one.count == 1);
    CHECK_FALSE(one.error.has_value());
    const auto same = estimate({2, 2, 2});
    REQUIRE(same.error.has_value());
    CHECK(*same.error == 0.0);
    CHECK(estimate({}).count == 0);
  }

  TEST_CASE("overlapping intervals are not distinguishable; disjoint ones are") {
    const auto low = estimate({1, 2, 3, 2, 1, 3});
    const auto near = estimate({2, 3, 4, 3, 2, 4});
    const auto far = estimate({100, 101, 102, 100, 101, 102});
    CHECK(indistinguishable(low, near));
    CHECK(indistinguishable(near, low));
    CHECK_FALSE(indistinguishable(low, far));
    CHECK_FALSE(indistinguishable(estimate({1, 1}), estimate({2, 2})));
    CHECK(indistinguishable(estimate({1}), far));  // no interval: nothing is told apart
  }
}
