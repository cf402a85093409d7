// The statistics of a metric over many seeds, as JMH reports a benchmark's
// score: count, mean, the error (half-width of the 99.9% confidence interval
// of the mean, Student's t with count-1 degrees of freedom: JMH's default),
// min and max. Two variants whose intervals overlap are not distinguishable
// by these seeds.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace rsim::sweep {

// JMH's confidence level: the error column is the half-width of this
// two-sided interval.
constexpr double kConfidence = 0.999;

struct Estimate {
  std::size_t count = 0;
  double mean = 0;
  double stddev = 0;           // sample standard deviation (n - 1)
  std::optional<double> error;  // unset below two samples (JMH prints NaN)
  double min = 0, max = 0;

  double low() const { return mean - error.value_or(0); }
  double high() const { return mean + error.value_or(0); }
};

// Over `samples` in the order given (the sum is taken in that order, so the
// same samples give the same bits).
Estimate estimate(const std::vector<double>& samples);

// The two-sided Student's t quantile for `confidence` and `degrees` degrees
// of freedom (Boost.Math).
double student_t(double confidence, std::size_t degrees);

// Whether the confidence intervals of a and b overlap (with fewer than two
// samples on either side there is no interval, and nothing is distinguished).
bool indistinguishable(const Estimate& a, const Estimate& b);

}  // namespace rsim::sweep
