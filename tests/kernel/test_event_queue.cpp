#include "sim/kernel.hpp"

#include "sim/random.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include <string>
#include <vector>

using namespace rsim;
using namespace std::chrono_literals;

TEST_SUITE("kernel") {
TEST_CASE("events run in time order, equal times in scheduling order") {
  Kernel k;
  std::string order;
  k.schedule_at(time_at(5ms), [&] { order += "c"; });
  k.schedule_at(time_at(1ms), [&] { order += "a"; });
  for (char c = 'd'; c <= 'k'; ++c) k.schedule_at(time_at(5ms), [&order, c] { order += c; });
  k.schedule_at(time_at(2ms), [&] { order += "b"; });
  k.run();
  CHECK(order == "abcdefghijk");
  CHECK(k.now() == time_at(5ms));
}

TEST_CASE("an event scheduled for now by a running event runs after those already queued for now") {
  Kernel k;
  std::string order;
  k.schedule_at(time_at(1ms), [&] {
    order += "a";
    k.schedule_in(Duration{0}, [&] { order += "c"; });
  });
  k.schedule_at(time_at(1ms), [&] { order += "b"; });
  k.run();
  CHECK(order == "abc");
}

TEST_CASE("cancelled events never run, and a stale handle cancels nothing") {
  Kernel k;
  int ran = 0;
  const EventId a = k.schedule_at(time_at(1ms), [&] { ran += 1; });
  const EventId b = k.schedule_at(time_at(2ms), [&] { ran += 10; });
  CHECK(k.pending(a));
  CHECK(k.cancel(a));
  CHECK_FALSE(k.pending(a));
  CHECK_FALSE(k.cancel(a));
  k.run();
  CHECK(ran == 10);
  CHECK_FALSE(k.pending(b));
  // b's slot is reused by c; the old handle must not reach c.
  const EventId c = k.schedule_at(time_at(3ms), [&] { ran += 100; });
  CHECK(c.slot == b.slot);
  CHECK_FALSE(k.cancel(b));
  k.run();
  CHECK(ran == 110);
}

TEST_CASE("a cancelled event's slot is taken by the next event at once, and its queued entry runs nothing") {
  Kernel k;
  std::string order;
  // A session timer re-armed: the later deadline takes the slot the earlier
  // one had, while the earlier one's entry is still queued ahead of it.
  const EventId early = k.schedule_at(time_at(5ms), [&] { order += "x"; });
  CHECK(k.cancel(early));
  const EventId late = k.schedule_at(time_at(9ms), [&] { order += "b"; });
  CHECK(late.slot == early.slot);
  CHECK(k.pending(late));
  CHECK_FALSE(k.pending(early));
  CHECK_FALSE(k.cancel(early));  // the old handle does not reach the new event
  k.schedule_at(time_at(5ms), [&] { order += "a"; });
  CHECK(k.pending_count() == 2);
  CHECK(k.run_until(time_at(6ms)) == 1);  // the stale entry at 5 ms is passed over, not run as "b"
  CHECK(order == "a");
  CHECK(k.pending(late));
  k.run();
  CHECK(order == "ab");
  CHECK(k.pending_count() == 0);
}

TEST_CASE("a running event is no longer pending, cannot cancel itself, and keeps its slot until it returns") {
  Kernel k;
  int ran = 0;
  EventId self;
  EventId scheduled_inside;
  self = k.schedule_at(time_at(1ms), [&] {
    ++ran;
    CHECK_FALSE(k.pending(self));
    CHECK_FALSE(k.cancel(self));
    CHECK(k.pending_count() == 0);
    scheduled_inside = k.schedule_in(1ms, [&] { ran += 10; });
    CHECK(scheduled_inside.slot != self.slot);  // its slot is freed after the callback
  });
  k.run();
  CHECK(ran == 11);
  CHECK_FALSE(k.pending(self));
  // Both slots are free again; the two next events take them, and the
  // stale handle reaches neither.
  const EventId first = k.schedule_at(time_at(5ms), [&] { ran += 100; });
  const EventId second = k.schedule_at(time_at(5ms), [&] { ran += 1000; });
  CHECK(((first.slot == self.slot && second.slot == scheduled_inside.slot) ||
         (first.slot == scheduled_inside.slot && second.slot == self.slot)));
  CHECK_FALSE(k.cancel(self));
  CHECK_FALSE(k.cancel(scheduled_inside));
  k.run();
  CHECK(ran == 1111);
}

TEST_CASE("run_until stops at the horizon, runs events at it, and moves the clock there") {
  Kernel k;
  std::vector<int> seen;
  for (int i = 1; i <= 5; ++i) k.schedule_at(time_at(Duration{i * 1000}), [&seen, i] { seen.push_back(i); });
  CHECK(k.run_until(time_at(3ms)) == 3);
  CHECK(seen == std::vector<int>{1, 2, 3});
  CHECK(k.now() == time_at(3ms));
  CHECK(k.pending_count() == 2);
  k.run_until(time_at(10ms));
  CHECK(k.now() == time_at(10ms));
  CHECK(k.executed() == 5);
}

TEST_CASE("a re-armed timer fires once, at its last deadline") {
  Kernel k;
  Timer t(k);
  std::vector<Time> fired;
  t.arm_at(time_at(10ms), [&] { fired.push_back(k.now()); });
  k.schedule_at(time_at(5ms), [&] { t.arm_in(20ms, [&] { fired.push_back(k.now()); }); });
  k.run();
  REQUIRE(fired.size() == 1);
  CHECK(fired[0] == time_at(25ms));
  CHECK_FALSE(t.armed());
}

TEST_CASE("many interleaved schedules and cancels keep the order contract") {
  Kernel k;
  std::vector<std::pair<std::int64_t, int>> ran;
  std::vector<EventId> ids;
  for (int i = 0; i < 2000; ++i) {
    const std::int64_t at = (i * 7919) % 101;  // many equal times
    ids.push_back(k.schedule_at(time_at(Duration{at}), [&ran, at, i] { ran.emplace_back(at, i); }));
  }
  for (int i = 0; i < 2000; i += 3) k.cancel(ids[static_cast<std::size_t>(i)]);
  k.run();
  CHECK(ran.size() == 2000 - 667);
  for (std::size_t i = 1; i < ran.size(); ++i) {
    CHECK(ran[i - 1].first <= ran[i].first);
    if (ran[i - 1].first == ran[i].first) CHECK(ran[i - 1].second < ran[i].second);
  }
  for (const auto& r : ran) CHECK(r.second % 3 != 0);
}

TEST_CASE("an event scheduled between run_until calls, earlier than the queued ones, still runs first") {
  Kernel k;
  std::string order;
  k.schedule_at(time_at(10ms), [&] { order += "c"; });
  k.schedule_at(time_at(10ms), [&] { order += "d"; });
  k.run_until(time_at(2ms));  // looks ahead at the 10 ms events
  k.schedule_at(time_at(5ms), [&] { order += "b"; });
  k.schedule_at(time_at(2ms), [&] { order += "a"; });
  k.schedule_at(time_at(10ms), [&] { order += "e"; });
  k.run();
  CHECK(order == "abcde");
}

// Against a reference: random schedules (many equal times, far and near),
// random cancellations, and run_until boundaries; the kernel must run exactly
// the live events in (time, scheduling order).
TEST_CASE("the queue matches a reference ordering under random schedules, cancels and horizons") {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    Rng rng(seed);
    Kernel k;
    std::vector<std::pair<std::int64_t, int>> ran;  // (time, id)
    std::map<int, std::pair<std::int64_t, EventId>> live;
    int next_id = 0;
    auto schedule = [&](std::int64_t at) {
      const int id = next_id++;
      const EventId ev = k.schedule_at(time_at(Duration{at}), [&, id, at] {
        ran.emplace_back(at, id);
        live.erase(id);
      });
      live[id] = {at, ev};
    };
    std::map<int, std::int64_t> expected_runs;  // id -> time, for everything not cancelled
    std::int64_t horizon = 0;
    for (int round = 0; round < 50; ++round) {
      const int adds = static_cast<int>(rng.below(40));
      for (int i = 0; i < adds; ++i) {
        const std::int64_t at = micros(k.now()) + (rng.chance(0.3) ? 0 : static_cast<std::int64_t>(rng.below(rng.chance(0.5) ? 10 : 100000)));
        schedule(at);
        expected_runs[next_id - 1] = at;
      }
      for (auto it = live.begin(); it != live.end();) {
        if (rng.chance(0.1)) {
          CHECK(k.cancel(it->second.second));
          expected_runs.erase(it->first);
          it = live.erase(it);
        } else {
          ++it;
        }
      }
      horizon = micros(k.now()) + static_cast<std::int64_t>(rng.below(50000));
      k.run_until(time_at(Duration{horizon}));
    }
    k.run();
    // Reference order: by time, then by id (ids are scheduling order).
    std::vector<std::pair<std::int64_t, int>> want;
    for (const auto& [id, at] : expected_runs) want.emplace_back(at, id);
    std::sort(want.begin(), want.end());
    CHECK(ran == want);
    CHECK(k.pending_count() == 0);
  }
}
}
