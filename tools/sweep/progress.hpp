// A progress line on stderr for long sweeps, comparisons and runs: how far,
// the rate and the time left. Wall-clock time appears here only, never in a result, and only
// when stderr is a terminal (a log or a pipe gets nothing).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace rsim::sweep {

class Progress {
 public:
  // `enabled`: usually isatty(STDERR_FILENO); `unit` names what is counted.
  Progress(std::string what, bool enabled, std::string unit = "runs");
  ~Progress();
  void update(std::size_t done, std::size_t total);

 private:
  std::string what_;
  bool enabled_;
  std::string unit_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// "1:05:03", "4:07", "0:09".
std::string clock_text(double seconds);

}  // namespace rsim::sweep
