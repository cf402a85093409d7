// Simulated time: an integer count of microseconds, never floating point.
//
// `Time` is a std::chrono time_point on a clock of our own (SimClock), so it
// cannot be mixed up with wall-clock time, and `Duration` is plain
// std::chrono::microseconds, so the standard duration literals (5ms, 3s, 2min)
// work and convert exactly.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace rsim {

using Duration = std::chrono::duration<std::int64_t, std::micro>;

struct SimClock {
  using rep = std::int64_t;
  using period = std::micro;
  using duration = Duration;
  using time_point = std::chrono::time_point<SimClock, Duration>;
  static constexpr bool is_steady = true;
  // No now(): the only clock is the kernel's.
};

using Time = SimClock::time_point;

inline constexpr Time kTimeZero{};

constexpr Time time_at(Duration since_start) { return Time{since_start}; }
// t + d, held at the largest representable time instead of overflowing: a
// deadline that far away is never reached.
constexpr Time later(Time t, Duration d) {
  if (d > Duration{0} && t.time_since_epoch() > Duration::max() - d) return Time::max();
  return t + d;
}
constexpr std::int64_t micros(Duration d) { return d.count(); }
constexpr std::int64_t micros(Time t) { return t.time_since_epoch().count(); }

// "12.5s" style: seconds with millisecond precision, or microsecond precision
// when the value is not a whole number of milliseconds.
std::string format_duration(Duration d);
std::string format_time(Time t);

}  // namespace rsim
