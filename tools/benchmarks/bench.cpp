// Benchmarks. Figures are events (or calls) per second of wall time, always
// printed beside a baseline measured in the same run, because the machines
// here are shared and noisy: compare the ratio, not the absolute number.
//
// kernel: the hold model ns-3 uses to compare schedulers
// (utils/bench-scheduler.cc): fill the queue with 1e5 pending events, then
// execute 1e6, each scheduling one new event at now + an exponential delay.
// The baseline is a bare std::priority_queue push/pop loop over the same
// delays, with no callbacks, no cancellation and no clock.
#include "sim/kernel.hpp"
#include "sim/random.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <queue>
#include <vector>

namespace {

using namespace rsim;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kPending = 100'000;
constexpr std::size_t kExecuted = 1'000'000;
constexpr int kRepeats = 7;

std::vector<std::int64_t> make_delays(std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::int64_t> d(kPending + kExecuted);
  for (auto& x : d) x = 1 + static_cast<std::int64_t>(rng.exponential(1000.0));  // mean 1 ms in us
  return d;
}

struct Hold {
  Kernel* kernel;
  const std::vector<std::int64_t>* delays;
  std::size_t next = 0;
  void fire() {
    const Duration d{(*delays)[next++]};
    kernel->schedule_in(d, [this] { fire(); });
  }
};

double run_kernel(const std::vector<std::int64_t>& delays) {
  Kernel k;
  Hold h{&k, &delays};
  for (std::size_t i = 0; i < kPending; ++i) k.schedule_at(time_at(Duration{delays[h.next++]}), [&h] { h.fire(); });
  const auto t0 = Clock::now();
  const auto n = k.run(kExecuted);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (n != kExecuted) std::abort();
  return static_cast<double>(n) / s;
}

double run_bare(const std::vector<std::int64_t>& delays) {
  using Key = std::pair<std::int64_t, std::uint64_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> q;
  std::uint64_t seq = 0;
  std::size_t next = 0;
  for (std::size_t i = 0; i < kPending; ++i) q.push({delays[next++], seq++});
  const auto t0 = Clock::now();
  std::int64_t now = 0;
  for (std::size_t i = 0; i < kExecuted; ++i) {
    now = q.top().first;
    q.pop();
    q.push({now + delays[next++], seq++});
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (now <= 0) std::abort();
  return static_cast<double>(kExecuted) / s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void bench_kernel() {
  const auto delays = make_delays(1);
  std::vector<double> kernel, bare;
  // Interleave the two so that machine noise hits both alike.
  for (int i = 0; i < kRepeats; ++i) {
    kernel.push_back(run_kernel(delays));
    bare.push_back(run_bare(delays));
  }
  const double k = median(kernel), b = median(bare);
  fmt::print("kernel hold model: {} pending, {} executed, exponential delays, median of {} runs\n", kPending,
             kExecuted, kRepeats);
  fmt::print("  {:<40} {:>8.2f} M events/s\n", "rebalance-sim kernel (callbacks, cancel)", k / 1e6);
  fmt::print("  {:<40} {:>8.2f} M events/s\n", "bare std::priority_queue push/pop", b / 1e6);
  fmt::print("  {:<40} {:>8.2f}x\n", "kernel / bare", k / b);
}

}  // namespace

int main(int argc, char** argv) {
  const bool all = argc < 2;
  for (int i = 1; i < argc || all; ++i) {
    const char* what = all ? "kernel" : argv[i];
    if (std::strcmp(what, "kernel") == 0) {
      bench_kernel();
    } else {
      fmt::print(stderr, "bench: unknown benchmark '{}' (known: kernel)\n", what);
      return 2;
    }
    if (all) break;
  }
  return 0;
}
