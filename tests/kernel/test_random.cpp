#include "sim/random.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>

using namespace rsim;

TEST_SUITE("kernel") {
// Expected values computed by an independent implementation of splitmix64 and
// xoshiro256** (Blackman and Vigna's reference algorithms).
TEST_CASE("splitmix64 matches the reference sequence") {
  std::uint64_t state = 0;
  CHECK(splitmix64(state) == 0xe220a8397b1dcdafULL);
}

TEST_CASE("xoshiro256** seeded through splitmix64 gives fixed values for a fixed seed") {
  Rng r(42);
  CHECK(r.next() == 0x15780b2e0c2ec716ULL);
  CHECK(r.next() == 0x6104d9866d113a7eULL);
  CHECK(r.next() == 0xae17533239e499a1ULL);
  CHECK(r.next() == 0xecb8ad4703b360a1ULL);
  Rng one(1);
  CHECK(one.next() == 0xb3f2af6d0fc710c5ULL);
  Rng ranged(42);
  std::array<std::uint64_t, 5> got{};
  for (auto& g : got) g = ranged.below(10);
  CHECK(got == std::array<std::uint64_t, 5>{0, 3, 6, 9, 9});
}

TEST_CASE("streams are reproducible and independent") {
  Rng a = Rng::stream(7, "network");
  Rng b = Rng::stream(7, "network");
  Rng c = Rng::stream(7, "faults");
  Rng d = Rng::stream(8, "network");
  const auto x = a.next();
  CHECK(x == b.next());
  CHECK(x != c.next());
  CHECK(x != d.next());
}

TEST_CASE("below and between stay in range and cover it evenly") {
  Rng r(3);
  std::array<int, 6> counts{};
  for (int i = 0; i < 60000; ++i) {
    const auto v = r.between(-2, 3);
    REQUIRE(v >= -2);
    REQUIRE(v <= 3);
    ++counts[static_cast<std::size_t>(v + 2)];
  }
  for (int c : counts) CHECK(std::abs(c - 10000) < 500);  // > 5 sigma away is a bug
  CHECK(r.below(1) == 0);
}

TEST_CASE("unit draws are in [0, 1) with mean 1/2; exponential has the requested mean") {
  Rng r(11);
  double sum = 0, esum = 0, esq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double u = r.unit();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
    const double e = r.exponential(2.0);
    REQUIRE(e >= 0.0);
    esum += e;
    esq += e * e;
  }
  CHECK(sum / n == doctest::Approx(0.5).epsilon(0.01));
  CHECK(esum / n == doctest::Approx(2.0).epsilon(0.02));
  const double var = esq / n - (esum / n) * (esum / n);
  CHECK(var == doctest::Approx(4.0).epsilon(0.05));  // exponential: variance = mean^2
}

TEST_CASE("chance honours its probability") {
  Rng r(5);
  int hits = 0;
  for (int i = 0; i < 100000; ++i) hits += r.chance(0.25) ? 1 : 0;
  CHECK(hits == doctest::Approx(25000).epsilon(0.03));
  CHECK_FALSE(r.chance(0.0));
  CHECK(r.chance(1.0));
}
}
