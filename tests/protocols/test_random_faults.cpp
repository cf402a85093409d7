// Every classic-family protocol and the consumer protocol under random faults
// (with and without online migrations): safety and convergence over many
// seeds, and what every bundled scenario shows of eager against cooperative.
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "sim/random.hpp"

using namespace rsim;

namespace {

using testing::run;
using testing::handovers;

// A randomized scenario per seed: six members on two topics, then six
// faults drawn from the seed (joins, clean leaves, crashes, bounces, restarts,
// pauses, slow batches) on random members at random times, over a jittery
// network.
std::string random_scenario(std::uint64_t seed, const std::string& protocol, bool upgrades = false) {
  Rng rng = Rng::stream(seed, "test-scenario");
  std::string events;
  std::vector<std::string> up = {"m000", "m001", "m002", "m003", "m004", "m005"};
  int joined = 0;
  for (int k = 0; k < 6; ++k) {
    const std::string at = fmt::format("{}ms", 15000 + 25000 * k + rng.below(10000));
    const auto pick = up.size() > 2 ? rng.below(upgrades ? 8 : 7) : 0;  // keep at least two members
    const std::string who = up[rng.below(up.size())];
    switch (pick) {
      case 0: {
        const std::string id = fmt::format("x{}", joined++);
        events += fmt::format("  - {{at: {}, join: {}, subscribe: [T, U]}}\n", at, id);
        up.push_back(id);
        break;
      }
      case 1:
        events += fmt::format("  - {{at: {}, leave: {}}}\n", at, who);
        std::erase(up, who);
        break;
      case 2:
        events += fmt::format("  - {{at: {}, crash: {}}}\n", at, who);
        std::erase(up, who);
        break;
      case 3:
        events += fmt::format("  - {{at: {}, bounce: {}, down: {}s}}\n", at, who, 1 + rng.below(15));
        break;
      case 4:
        events += fmt::format("  - {{at: {}, restart: {}, down: {}s}}\n", at, who, 1 + rng.below(5));
        break;
      case 5:
        events += fmt::format("  - {{at: {}, pause: {}, for: {}s}}\n", at, who, 1 + rng.below(15));
        break;
      case 6:  // batches of up to 30 s: some outlive max.poll.interval.ms (20 s)
        events += fmt::format("  - {{at: {}, slow: {}, batch: {}s, for: {}s}}\n", at, who, 1 + rng.below(30),
                              1 + rng.below(20));
        break;
      default:  // online migration: the member restarts speaking the consumer protocol
        events += fmt::format("  - {{at: {}, upgrade: [{}], to: consumer, down: {}s}}\n", at, who, 1 + rng.below(5));
        break;
    }
  }
  return fmt::format(R"(
name: random-faults
duration: 4m
config: {{{}max.poll.interval.ms: 20000, scheduled.rebalance.max.delay.ms: 20000}}
protocol: {}
network: {{latency: {{exponential: 3ms}}}}
costs: {{revoke: 5ms, assign: 5ms}}
topics: [{{name: T, partitions: 12}}, {{name: U, partitions: 5}}]
members: {{count: 6, prefix: m, subscribe: [T, U]}}
events:
{})",
                     // Kafka's consumer refuses the classic client's group settings.
                     protocol == "consumer" ? "" : "session.timeout.ms: 10000, heartbeat.interval.ms: 3000, ", protocol, events);
}

}  // namespace

TEST_SUITE("protocols") {
TEST_CASE("every embedded protocol: no double ownership over 200 random scenarios, and the group converges") {
  for (const std::string protocol : {"eager", "cooperative", "deferred", "incremental", "connect", "consumer"}) {
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      CAPTURE(protocol);
      CAPTURE(seed);
      const auto x = run(random_scenario(seed, protocol), seed);
      if (x.m.violation) FAIL(metrics::describe(*x.m.violation));
      // Epochs (generations) only grow, for the group and for each member.
      std::map<std::string, std::int64_t> epoch;
      for (const auto& ev : x.r.trace.events()) {
        if (ev.kind != "assigned" && ev.kind != "generation") continue;
        const auto g = ev.integer("generation");
        if (!g) continue;
        CHECK(*g >= epoch[ev.actor]);
        epoch[ev.actor] = *g;
      }
      // 4 minutes leave every hold and delay (20 s) long expired: every
      // partition is owned once at the end.
      std::size_t owned = 0;
      for (const auto& [member, rs] : x.m.final_assignment) owned += rs.size();
      CHECK(owned == 17);
    }
  }
}

TEST_CASE("every bundled scenario: eager stops the world, cooperative does not") {
  int scenarios = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(RSIM_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    const auto s = scenario::load_file(e.path().string());
    if (!s.subtopologies.empty()) continue;  // Streams scenarios run under streams only
    ++scenarios;
    CAPTURE(e.path().string());
    scenario::RunOptions eager, cooperative;
    eager.protocol = "eager";
    eager.assignor = "range";
    cooperative.protocol = "cooperative";
    cooperative.assignor = "cooperative-sticky";
    const auto me = metrics::summarize(s, scenario::run(s, eager));
    const auto mc = metrics::summarize(s, scenario::run(s, cooperative));
    CHECK(me.stop_the_world > Duration{0});
    CHECK(mc.stop_the_world == Duration{0});
    CHECK_FALSE(me.violation);
    CHECK_FALSE(mc.violation);
  }
  CHECK(scenarios >= 8);
}

TEST_CASE("online migration: over 100 random scenarios per classic protocol, no double ownership, and convergence") {
  int converted = 0, back = 0, overlaps = 0;
  for (const std::string protocol : {"eager", "cooperative", "deferred", "incremental", "connect"}) {
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
      CAPTURE(protocol);
      CAPTURE(seed);
      const auto x = run(random_scenario(seed, protocol, true), seed);
      if (x.m.violation) FAIL(metrics::describe(*x.m.violation));
      std::size_t owned = 0;
      for (const auto& [member, rs] : x.m.final_assignment) owned += rs.size();
      CHECK(owned == 17);
      for (const auto& ev : x.r.trace.events())
        if (ev.kind == "converted") ++(*ev.text("from") == "classic" ? converted : back);
      // Kafka's overlap: the conversion takes each member's last synced
      // assignment for what it owns (ConsumerGroup.fromClassicGroup), so what
      // a member still revoked then may go to another at once. A zombie, not
      // a violation.
      for (const auto& z : x.m.zombies) overlaps += z.cause == "conversion" ? 1 : 0;
    }
  }
  // The sample does migrate, both ways; the overlap at a conversion is rare.
  CHECK(converted >= 100);
  CHECK(back >= 10);
  MESSAGE("conversions ", converted, ", back ", back, ", overlaps at a conversion (Kafka's) ", overlaps);
}
}
