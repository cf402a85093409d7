#include "sim/time.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace rsim {

std::string format_duration(Duration d) {
  const std::int64_t us = d.count();
  const char* sign = us < 0 ? "-" : "";
  const std::uint64_t abs_us = us < 0 ? static_cast<std::uint64_t>(-(us + 1)) + 1 : static_cast<std::uint64_t>(us);
  const std::uint64_t whole = abs_us / 1'000'000;
  const std::uint64_t frac_us = abs_us % 1'000'000;
  if (frac_us % 1000 == 0) return fmt::format("{}{}.{:03}s", sign, whole, frac_us / 1000);
  return fmt::format("{}{}.{:06}s", sign, whole, frac_us);
}

std::string format_time(Time t) { return format_duration(t.time_since_epoch()); }

}  // namespace rsim
