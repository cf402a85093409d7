// Benchmarks. Figures are events (or calls) per second of wall time, always
// printed beside a baseline measured in the same run, because the machines
// here are shared and noisy: compare the ratio, not the absolute number.
//
// kernel: the hold model ns-3 uses to compare schedulers
// (utils/bench-scheduler.cc): fill the queue with 1e5 pending events, then
// execute 1e6, each scheduling one new event at now + an exponential delay.
// The baseline is a bare std::priority_queue push/pop loop over the same
// delays, with no callbacks, no cancellation and no clock.
//
// sweep: 1,000 runs of a sweep (the bundled session-timeout-crash: five
// session timeouts x eager and cooperative x 100 seeds) at --jobs 1, then
// at --jobs 2: runs per second of each and their ratio, the scaling with
// cores (about 1.0 where only one core is free). The two results must be
// identical (the sweep's determinism contract).
#include "metrics/summary.hpp"
#include "protocols/assignors/assignor.hpp"
#include "protocols/assignors/server.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "sim/kernel.hpp"
#include "sim/random.hpp"
#include "tools/sweep/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <malloc.h>
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

// ---- assignors -------------------------------------------------------------
//
// Each built-in assignor on groups of M members and P partitions spread over
// T topics, every member subscribed to every topic: "fresh" (nobody owns
// anything, generation -1) and "after one leaves" (everybody owns what the
// fresh run gave it, generation 1, and the last member is gone). The
// baseline, in the same run, is the least any assignor must do: build the
// output map, member by member, each list written in one go.

protocols::GroupSnapshot make_group(int members, int partitions, int topics) {
  protocols::GroupSnapshot g;
  std::vector<std::string> names;
  for (int t = 0; t < topics; ++t) {
    names.push_back(fmt::format("topic-{:03}", t));
    g.topics[names.back()] = partitions / topics;
  }
  for (int m = 0; m < members; ++m) {
    protocols::MemberSubscription s;  // ids sort in creation order
    s.member_id = fmt::format("consumer-{:04}-{:08x}", m, static_cast<unsigned>(m) * 2654435761u);
    s.topics = names;
    g.members.push_back(std::move(s));
  }
  return g;
}

protocols::GroupSnapshot after_one_leaves(protocols::GroupSnapshot g, const protocols::GroupAssignment& a) {
  for (auto& m : g.members) {
    m.owned = a.at(m.member_id);
    m.generation = 1;
  }
  g.members.pop_back();
  return g;
}

protocols::GroupAssignment deal(const protocols::GroupSnapshot& g) {
  // Position p of all topics' partitions laid end to end goes to member
  // p mod n, each member's list written in one go.
  protocols::GroupAssignment out;
  protocols::PartitionSequence all;
  for (const auto& [name, n] : g.topics) all.add(protocols::Topic(name), n);
  all.deal(protocols::add_empty_lists(g, out));
  return out;
}

template <class F>
double median_ms(F&& f, int repeats) {
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return median(ms);
}

// The classic (client-side) assignors by their names; the broker-side ones
// of consumer groups as "uniform" and "server-range".
std::unique_ptr<protocols::Assignor> make_bench_assignor(const std::string& name) {
  if (name == "server-range") return protocols::make_consumer_assignor("range");
  if (name == "uniform") return protocols::make_consumer_assignor("uniform");
  return protocols::make_classic_assignor(name);
}

void bench_assignors(const std::vector<std::string>& names) {
  struct Size {
    int members, partitions;
  };
  const std::vector<Size> sizes{{10, 1000}, {100, 10000}, {1000, 100000}};
  fmt::print("assignors: median ms (fresh / after one member leaves); baseline = building the output alone\n");
  fmt::print("  {:<12} {:>6} {:>7} {:>6} {:>10} {:>10} {:>10} {:>12}\n", "assignor", "members", "partitions", "topics",
             "fresh", "one leaves", "baseline", "us/partition");
  for (const auto& name : names) {
    const auto assignor = make_bench_assignor(name);
    for (int topics : {1, 100}) {
      for (const auto& size : sizes) {
        const int repeats = size.partitions >= 100000 ? 7 : 21;
        const auto fresh = make_group(size.members, size.partitions, topics);
        const auto first = assignor->assign(fresh);
        const auto later = after_one_leaves(fresh, first);
        const double a = median_ms([&] { (void)assignor->assign(fresh); }, repeats);
        const double b = median_ms([&] { (void)assignor->assign(later); }, repeats);
        const double base = median_ms([&] { (void)deal(fresh); }, repeats);
        fmt::print("  {:<12} {:>7} {:>10} {:>6} {:>10.3f} {:>10.3f} {:>10.3f} {:>12.3f}\n", name, size.members,
                   size.partitions, topics, a, b, base, a * 1000.0 / size.partitions);
      }
    }
  }
}

// ---- scenarios ---------------------------------------------------------------
//
// Whole runs (simulation and metrics) of a rolling bounce of every member of
// a group of N members on one topic of 10 N partitions, each down 5 s, 10 s
// apart, for each protocol family's representative. Figures: wall time,
// kernel events per second beside the bare push/pop loop's of the kernel
// benchmark (measured in the same run), and simulated time over wall time.

std::string rolling_bounce_of(int members) {
  return fmt::format(R"(
name: bench-rolling-bounce
seed: 1
duration: {}s
config: {{session.timeout.ms: 45000, heartbeat.interval.ms: 3000}}
network: {{latency: {{uniform: [0.5ms, 2ms]}}}}
costs: {{revoke: 10ms, assign: 20ms}}
load: {{produce.rate: 1000, process.rate: 4000}}
topics: [{{name: orders, partitions: {}}}]
members: {{count: {}, prefix: c, subscribe: [orders]}}
events:
  - {{at: 30s, rolling-bounce: all, down: 5s, interval: 10s}}
)",
                     30 + 10 * members + 120, 10 * members, members);
}

void bench_scenarios() {
  const auto delays = make_delays(1);
  std::vector<double> bare;
  for (int i = 0; i < 3; ++i) bare.push_back(run_bare(delays));
  const double b = median(bare);
  fmt::print("scenarios: a rolling bounce of every member (N members, 10 N partitions), run + metrics, median of 3\n");
  fmt::print("  baseline: bare std::priority_queue push/pop {:.2f} M events/s\n", b / 1e6);
  fmt::print("  {:>7} {:<12} {:>10} {:>12} {:>12} {:>10} {:>14}\n", "members", "protocol", "wall ms", "events",
             "M events/s", "/ bare", "sim / wall");
  for (int members : {10, 100, 300}) {
    const auto s = scenario::load_text(rolling_bounce_of(members), "bench.yaml");
    for (const char* protocol : {"eager", "cooperative", "consumer"}) {
      scenario::RunOptions o;
      o.protocol = protocol;
      std::vector<double> ms;
      std::uint64_t events = 0;
      Time end = kTimeZero;
      for (int i = 0; i < 3; ++i) {
        const auto t0 = Clock::now();
        const auto r = scenario::run(s, o);
        (void)metrics::summarize(s, r);
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        events = r.events_executed;
        end = r.end;
      }
      const double wall = median(ms);
      const double rate = static_cast<double>(events) / (wall / 1000.0);
      const double simulated_s = std::chrono::duration<double>(end - kTimeZero).count();
      fmt::print("  {:>7} {:<12} {:>10.1f} {:>12} {:>12.2f} {:>9.2f}x {:>13.0f}x\n", members, protocol, wall, events,
                 rate / 1e6, rate / b, simulated_s / (wall / 1000.0));
    }
  }
}

}  // namespace

void bench_sweep() {
  const std::string file = std::string(RSIM_SOURCE_DIR) + "/scenarios/sweeps/session-timeout-crash.yaml";
  const auto base = scenario::load_file(file);
  sweep::Plan plan;
  plan.file = file;
  plan.scenario_name = base.name;
  plan.sets.push_back(sweep::parse_set("config.session.timeout.ms=6000,10000,20000,30000,45000"));
  plan.variants = sweep::resolve_variants(base, {"eager", "cooperative"}, {});
  plan.first_seed = 1;
  plan.seeds = 100;
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto scenarios = sweep::point_scenarios(plan, text);
  std::vector<std::size_t> all(plan.runs());
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
  fmt::print("sweep: {} runs of {} ({} points x {} variants x {} seeds)\n", plan.runs(), base.name, plan.points(),
             plan.variants.size(), plan.seeds);
  double rate[3] = {0, 0, 0};
  std::vector<std::string> lines[3];
  for (unsigned jobs : {1u, 2u}) {
    const auto t0 = Clock::now();
    const auto records = sweep::run_plan(plan, scenarios, all, jobs);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    rate[jobs] = static_cast<double>(records.size()) / s;
    for (const auto& r : records) lines[jobs].push_back(sweep::run_line(plan, r.run, r));
    fmt::print("  --jobs {}  {:8.1f} runs/s  ({:.2f} s)\n", jobs, rate[jobs], s);
  }
  if (lines[1] != lines[2]) {
    fmt::print(stderr, "bench: the sweep's runs differ between --jobs 1 and 2\n");
    std::abort();
  }
  fmt::print("  ratio --jobs 2 / --jobs 1: {:.2f}x (identical results)\n", rate[2] / rate[1]);
}

int main(int argc, char** argv) {
  // Keep freed memory in the process, as a long-running simulator does:
  // otherwise glibc hands the heap top back to the kernel after every
  // iteration and each run pays page faults for memory the previous one freed.
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  std::vector<std::string> what;
  for (int i = 1; i < argc; ++i) what.emplace_back(argv[i]);
  if (what.empty()) what = {"kernel", "assignors", "scenarios", "sweep"};
  for (std::size_t i = 0; i < what.size(); ++i) {
    const std::string& w = what[i];
    if (w == "kernel") {
      bench_kernel();
    } else if (w == "assignors") {
      // Optionally followed by the assignors to measure.
      std::vector<std::string> names;
      while (i + 1 < what.size() && make_bench_assignor(what[i + 1]) != nullptr) names.push_back(what[++i]);
      if (names.empty()) names = {"range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range"};
      bench_assignors(names);
    } else if (w == "scenarios") {
      bench_scenarios();
    } else if (w == "sweep") {
      bench_sweep();
    } else {
      fmt::print(stderr, "bench: unknown benchmark '{}' (known: kernel, assignors, scenarios, sweep)\n", w);
      return 2;
    }
  }
  return 0;
}
