#include "tools/sweep/progress.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

namespace rsim::sweep {

Progress::Progress(std::string what, bool enabled, std::string unit)
    : what_(std::move(what)), enabled_(enabled), unit_(std::move(unit)), start_(std::chrono::steady_clock::now()), last_(start_) {}

Progress::~Progress() {
  if (drawn_) std::fputs("\n", stderr);
}

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

void Progress::update(std::size_t done, std::size_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  // A few redraws a second are enough; the last one always.
  if (done < total && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  const int width = 30;
  const int filled = total == 0 ? width : static_cast<int>(static_cast<double>(width) * static_cast<double>(done) / static_cast<double>(total));
  const std::string bar = std::string(static_cast<std::size_t>(filled), '#') + std::string(static_cast<std::size_t>(width - filled), '.');
  const std::string eta = rate > 0 ? clock_text(static_cast<double>(total - done) / rate) : "?";
  fmt::print(stderr, "\r{} [{}] {}/{} {}  {:.1f} {}/s  {} {}   ", what_, bar, done, total, unit_, rate, unit_,
             done < total ? "ETA" : "in", done < total ? eta : clock_text(elapsed));
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace rsim::sweep
