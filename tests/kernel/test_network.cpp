#include "sim/network.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace rsim;
using namespace std::chrono_literals;

namespace {
struct Net {
  Kernel kernel;
  Trace trace;
  Network net;
  NodeId a, b;
  explicit Net(LatencyModel lat, double drop = 0.0, std::uint64_t seed = 1)
      : net(kernel, trace, lat, drop, Rng::stream(seed, "network")), a(net.add_node("a")), b(net.add_node("b")) {}
};
}  // namespace

TEST_SUITE("kernel") {
TEST_CASE("fixed latency delivers exactly after the latency") {
  Net n(LatencyModel::fixed(2ms));
  Time got{};
  n.kernel.schedule_at(time_at(10ms), [&] { n.net.send(n.a, n.b, "m", [&] { got = n.kernel.now(); }); });
  n.kernel.run();
  CHECK(got == time_at(12ms));
  CHECK(n.net.stats().delivered == 1);
}

TEST_CASE("uniform and exponential latencies have the configured means") {
  for (const auto& [model, mean] : {std::pair{LatencyModel::uniform(1ms, 3ms), 2000.0},
                                    std::pair{LatencyModel::exponential(2ms), 2000.0}}) {
    Net n(model);
    Rng rng = Rng::stream(9, "latency");
    double sum = 0;
    const int draws = 100000;
    for (int i = 0; i < draws; ++i) {
      const Duration d = model.sample(rng);
      REQUIRE(d >= Duration{0});
      if (model.kind == LatencyModel::Kind::Uniform) {
        REQUIRE(d >= 1ms);
        REQUIRE(d <= 3ms);
      }
      sum += static_cast<double>(d.count());
    }
    CHECK(sum / draws == doctest::Approx(mean).epsilon(0.02));
    CHECK(model.mean_us() == mean);
  }
}

TEST_CASE("messages on one link arrive in the order they were sent") {
  Net n(LatencyModel::exponential(5ms));
  std::vector<int> got;
  for (int i = 0; i < 200; ++i)
    n.kernel.schedule_at(time_at(Duration{i * 100}), [&n, &got, i] { n.net.send(n.a, n.b, "m", [&got, i] { got.push_back(i); }); });
  n.kernel.run();
  REQUIRE(got.size() == 200);
  for (int i = 0; i < 200; ++i) CHECK(got[static_cast<std::size_t>(i)] == i);
}

TEST_CASE("drop probability loses about that share of messages, and traces each loss") {
  Net n(LatencyModel::fixed(1ms), 0.3);
  int delivered = 0;
  for (int i = 0; i < 10000; ++i) n.net.send(n.a, n.b, "m", [&] { ++delivered; });
  n.kernel.run();
  CHECK(delivered == doctest::Approx(7000).epsilon(0.05));
  CHECK(n.net.stats().dropped == static_cast<std::uint64_t>(10000 - delivered));
  CHECK(n.trace.events().size() == n.net.stats().dropped);
  CHECK(n.trace.events().front().kind == "message-lost");
  CHECK(*n.trace.events().front().text("reason") == "drop");
}

TEST_CASE("a cut loses messages sent during it and messages arriving during it") {
  Net n(LatencyModel::fixed(10ms));
  std::vector<int> got;
  n.net.send(n.a, n.b, "m", [&] { got.push_back(1); });  // arrives at 10ms, during the cut
  n.kernel.schedule_at(time_at(5ms), [&] { n.net.cut(n.a, n.b); });
  n.kernel.schedule_at(time_at(6ms), [&] { n.net.send(n.b, n.a, "m", [&] { got.push_back(2); }); });
  n.kernel.schedule_at(time_at(20ms), [&] { n.net.heal(n.a, n.b); });
  n.kernel.schedule_at(time_at(21ms), [&] { n.net.send(n.a, n.b, "m", [&] { got.push_back(3); }); });
  n.kernel.run();
  CHECK(got == std::vector<int>{3});
  CHECK(n.net.stats().cut == 2);
}

TEST_CASE("a message to a process that died, even one that restarted since, is lost") {
  Net n(LatencyModel::fixed(10ms));
  std::vector<int> got;
  n.net.send(n.a, n.b, "m", [&] { got.push_back(1); });
  n.kernel.schedule_at(time_at(2ms), [&] { n.net.crash(n.b); });
  n.kernel.schedule_at(time_at(4ms), [&] { n.net.restart(n.b); });
  n.kernel.schedule_at(time_at(5ms), [&] { n.net.send(n.a, n.b, "m", [&] { got.push_back(2); }); });
  n.kernel.run();
  CHECK(got == std::vector<int>{2});
  CHECK(n.net.stats().dead == 1);
  // A dead process sends nothing.
  n.net.crash(n.a);
  n.net.send(n.a, n.b, "m", [&] { got.push_back(3); });
  n.kernel.run();
  CHECK(got == std::vector<int>{2});
}
}

TEST_SUITE("kernel") {
TEST_CASE("bandwidth adds bytes / bandwidth to a message's latency, rounded up to a microsecond") {
  Net n(LatencyModel::fixed(2ms));
  n.net.set_bandwidth(1024 * 1024);  // 1MB/s
  std::vector<Time> got;
  n.kernel.schedule_at(time_at(10ms), [&] {
    n.net.send(n.a, n.b, "1MB", [&] { got.push_back(n.kernel.now()); }, 1024 * 1024);
    n.net.send(n.b, n.a, "1 byte", [&] { got.push_back(n.kernel.now()); }, 1);
    n.net.send(n.b, n.a, "empty", [&] { got.push_back(n.kernel.now()); });
  });
  n.kernel.run();
  REQUIRE(got.size() == 3);
  CHECK(got[0] == time_at(12ms) + Duration{1});  // 1 byte: 1e6/1048576 µs, rounded up
  CHECK(got[1] == time_at(12ms) + Duration{1});  // nothing, FIFO behind it on the b->a link
  CHECK(got[2] == time_at(1s + 12ms));           // 1MB: 1 s of transfer
  CHECK(n.net.transfer_time(3 * 1024 * 1024) == Duration{3'000'000});
  n.net.set_bandwidth(0);
  CHECK(n.net.transfer_time(1 << 30) == Duration{0});
}
}

TEST_SUITE("kernel") {
TEST_CASE("each directed link keeps its own order, whichever of its ends was added first") {
  Kernel kernel;
  Trace trace;
  Network net(kernel, trace, LatencyModel::exponential(5ms), 0.0, Rng::stream(3, "network"));
  // The hub has members on both sides of its id: a link's order is kept
  // with its higher-numbered end, so both ends must hold links.
  std::vector<NodeId> members;
  for (int i = 0; i < 10; ++i) members.push_back(net.add_node("m" + std::to_string(i)));
  const NodeId hub = net.add_node("hub");
  for (int i = 10; i < 20; ++i) members.push_back(net.add_node("m" + std::to_string(i)));
  std::map<std::pair<NodeId, NodeId>, std::vector<int>> got;
  for (int i = 0; i < 2000; ++i) {
    const NodeId member = members[static_cast<std::size_t>(i * 7 % 20)];
    // Named variables, not a structured binding: lambdas capture them under
    // clang 14 too.
    const NodeId from = i % 3 == 0 ? hub : member;
    const NodeId to = i % 3 == 0 ? member : hub;
    kernel.schedule_at(time_at(Duration{i * 50}), [&, from, to, i] {
      net.send(from, to, "m", [&got, from, to, i] { got[{from, to}].push_back(i); });
    });
  }
  kernel.run();
  REQUIRE(got.size() == 40);
  for (const auto& [link, order] : got) CHECK(std::is_sorted(order.begin(), order.end()));
}

TEST_CASE("a slow message holds back only its own directed link") {
  Kernel kernel;
  Trace trace;
  Network net(kernel, trace, LatencyModel::fixed(1ms), 0.0, Rng::stream(1, "network"));
  const NodeId x = net.add_node("x"), hub = net.add_node("hub"), y = net.add_node("y");
  net.set_bandwidth(1024 * 1024);
  std::map<std::string, Time> got;
  auto at_arrival = [&](std::string what) { return [&got, &kernel, what] { got[what] = kernel.now(); }; };
  net.send(hub, x, "1MB", at_arrival("hub->x"), 1024 * 1024);
  net.send(x, hub, "empty", at_arrival("x->hub"));
  net.send(hub, y, "empty", at_arrival("hub->y"));
  net.send(y, hub, "empty", at_arrival("y->hub"));
  net.send(hub, x, "empty", at_arrival("hub->x behind"));
  kernel.run();
  CHECK(got["hub->x"] == time_at(1s + 1ms));
  CHECK(got["hub->x behind"] == time_at(1s + 1ms));
  CHECK(got["x->hub"] == time_at(1ms));
  CHECK(got["hub->y"] == time_at(1ms));
  CHECK(got["y->hub"] == time_at(1ms));
}
}

namespace {
// Sends a message from `from` to `to` at each of the first 20 losses: the
// slot the lost message held is free by then and is taken again while its
// loss is being traced.
struct SendOnLoss : TraceObserver {
  Network* net = nullptr;
  NodeId from = 0, to = 0;
  std::vector<std::string> lost;
  std::vector<std::string>* delivered = nullptr;
  void observe(const TraceEvent& ev) override {
    if (ev.kind != "message-lost") return;
    lost.push_back(*ev.text("message"));
    if (lost.size() > 20) return;
    const std::string what = "after-loss-" + std::to_string(lost.size());
    net->send(from, to, what, [d = delivered, what] { d->push_back(what); });
  }
};
}  // namespace

TEST_SUITE("kernel") {
TEST_CASE("a freed message slot is reused without mixing up messages, their deliveries or their losses") {
  // Deliveries that send (the slot just freed is taken again at once), sends
  // while many are in flight, and losses whose observer sends: each message
  // must arrive or be lost under its own name, exactly once.
  Kernel kernel;
  Trace trace;
  Network net(kernel, trace, LatencyModel::uniform(1ms, 9ms), 0.0, Rng::stream(3, "network"));
  const NodeId a = net.add_node("a"), b = net.add_node("b"), dead = net.add_node("dead");
  std::vector<std::string> delivered;
  SendOnLoss observer;
  observer.net = &net;
  observer.from = a;
  observer.to = b;
  observer.delivered = &delivered;
  trace.observe(&observer, true);
  net.crash(dead);
  std::function<void(int)> hop = [&](int i) {  // a chain: each delivery sends the next
    if (i == 50) return;
    const std::string what = "hop-" + std::to_string(i);
    net.send(i % 2 == 0 ? a : b, i % 2 == 0 ? b : a, what, [&, what, i] {
      delivered.push_back(what);
      hop(i + 1);
    });
  };
  hop(0);
  std::vector<std::string> sent_to_dead;
  for (int i = 0; i < 200; ++i)
    kernel.schedule_at(time_at(Duration{i * 700}), [&, i] {
      const std::string what = "burst-" + std::to_string(i);
      if (i % 5 == 0) {
        // The dead node still receives sends (a dead *sender* sends nothing):
        // the loss is found at arrival, when the slot is freed.
        const std::string lost = "to-dead-" + std::to_string(i);
        sent_to_dead.push_back(lost);
        net.send(a, dead, lost, [&delivered, lost] { delivered.push_back("DELIVERED " + lost); });
      }
      net.send(b, a, what, [&delivered, what] { delivered.push_back(what); });
    });
  kernel.run();
  // Every message sent arrived once under its own name, or was lost.
  std::vector<std::string> expected;
  for (int i = 0; i < 50; ++i) expected.push_back("hop-" + std::to_string(i));
  for (int i = 0; i < 200; ++i) expected.push_back("burst-" + std::to_string(i));
  for (int i = 1; i <= 20; ++i) expected.push_back("after-loss-" + std::to_string(i));
  std::vector<std::string> got = delivered;
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  CHECK(got == expected);
  // The losses, named as sent, in the order sent (one link, FIFO).
  CHECK(observer.lost == sent_to_dead);
  // The chain kept its order, deliveries and sends interleaved with it.
  std::vector<std::string> hops;
  for (const auto& d : delivered)
    if (d.rfind("hop-", 0) == 0) hops.push_back(d);
  REQUIRE(hops.size() == 50);
  for (std::size_t i = 0; i < hops.size(); ++i) CHECK(hops[i] == "hop-" + std::to_string(i));
  CHECK(net.stats().delivered == expected.size());
  CHECK(net.stats().dead == sent_to_dead.size());
  CHECK(net.stats().sent == expected.size() + sent_to_dead.size());
}
}
