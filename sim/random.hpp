// The simulator's only source of randomness.
//
// The algorithms are ours, not the standard library's: xoshiro256** for the
// stream (seeded through splitmix64), Lemire's multiply-and-reject for integer
// ranges, 53-bit mantissa fill for [0, 1), inversion for the exponential.
// std::uniform_int_distribution and friends differ between standard-library
// implementations and would make a seed mean different runs on different
// machines.
#pragma once

#include <cstdint>
#include <string_view>

namespace rsim {

// splitmix64: used to expand one 64-bit seed into generator state and to
// derive independent streams.
std::uint64_t splitmix64(std::uint64_t& state);

class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  // An independent stream for one concern (network, faults, ...), so adding
  // draws in one concern does not shift the others.
  static Rng stream(std::uint64_t seed, std::string_view name);

  std::uint64_t next();
  // Uniform integer in [0, bound); bound > 0.
  std::uint64_t below(std::uint64_t bound);
  // Uniform integer in [lo, hi], lo <= hi.
  std::int64_t between(std::int64_t lo, std::int64_t hi);
  // Uniform double in [0, 1).
  double unit();
  // True with probability p.
  bool chance(double p);
  // Exponential with the given mean (mean >= 0).
  double exponential(double mean);

 private:
  std::uint64_t s_[4];
};

}  // namespace rsim
