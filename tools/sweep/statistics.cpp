#include "tools/sweep/statistics.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cassert>
#include <cmath>

namespace rsim::sweep {

double student_t(double confidence, std::size_t degrees) {
  assert(degrees >= 1);
  assert(confidence > 0 && confidence < 1);
  const boost::math::students_t distribution(static_cast<double>(degrees));
  return boost::math::quantile(distribution, 1 - (1 - confidence) / 2);
}

Estimate estimate(const std::vector<double>& samples) {
  Estimate e;
  e.count = samples.size();
  if (samples.empty()) return e;
  double sum = 0;
  for (double x : samples) sum += x;
  e.mean = sum / static_cast<double>(e.count);
  e.min = *std::min_element(samples.begin(), samples.end());
  e.max = *std::max_element(samples.begin(), samples.end());
  if (e.count < 2) return e;
  double squares = 0;
  for (double x : samples) squares += (x - e.mean) * (x - e.mean);
  e.stddev = std::sqrt(squares / static_cast<double>(e.count - 1));
  e.error = student_t(kConfidence, e.count - 1) * e.stddev / std::sqrt(static_cast<double>(e.count));
  assert(*e.error >= 0);
  return e;
}

bool indistinguishable(const Estimate& a, const Estimate& b) {
  if (!a.error || !b.error) return true;
  return a.low() <= b.high() && b.low() <= a.high();
}

}  // namespace rsim::sweep
