// Encoded message sizes (hand-counted from Kafka's schemas) and what they
// cost a run: protocol-bytes, and transfer time with network.bandwidth.
#include "protocols/classic/wire_size.hpp"
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>

using namespace rsim;
using namespace rsim::protocols;
using namespace rsim::protocols::classic;

TEST_SUITE("protocols") {
TEST_CASE("subscription and assignment sizes follow ConsumerProtocol v3's layout") {
  Subscription s;
  s.topics = {"orders"};
  // version 2, topics 4 + (2 + 6), user data length 4 (null), owned count 4,
  // generation 4, rack 2 (null)
  CHECK(wire_size(s) == 2 + 12 + 4 + 4 + 4 + 2);
  s.owned = {{"orders", 0}, {"orders", 1}};
  // owned: count 4 + (name 2 + 6, partitions 4 + 2 x 4)
  CHECK(wire_size(s) == 28 + 20);
  s.owned.push_back({"payments", 0});
  CHECK(wire_size(s) == 48 + (2 + 8 + 4 + 4));
  // The sticky assignor's user data: the last assignment and a generation.
  Subscription sticky;
  sticky.topics = {"orders"};
  sticky.last_assignment = {{"orders", 0}};
  CHECK(wire_size(sticky) == 28 + (4 + 2 + 6 + 4 + 4) + 4);

  MemberAssignment a;
  a.partitions = {{"orders", 0}};
  CHECK(wire_size(a) == 2 + (4 + 2 + 6 + 4 + 4) + 4);
  a.scheduled_rebalance = Duration{1000};
  CHECK(wire_size(a) == 26 + 6);
}

TEST_CASE("a leader's JoinGroup response carries every member's subscription") {
  JoinGroupResponse r;
  r.member_id = "m1";
  r.leader = "m1";
  const std::size_t empty = wire_size(r);
  JoinedMember m;
  m.member_id = "m1";
  m.subscription.topics = {"orders"};
  r.members.push_back(m);
  // member id (1 + 2), instance id null 1, metadata (1 + 28), tags 1
  CHECK(wire_size(r) == empty + 3 + 1 + 29 + 1);
  m.subscription.owned = {{"orders", 0}};
  r.members.push_back(m);
  CHECK(wire_size(r) == empty + 34 + 3 + 1 + (1 + 28 + 16) + 1);
}

TEST_CASE("carrying owned partitions costs bytes and, over a slow link, rebalance time") {
  // The bundled MirrorMaker-like group: 40 consumers, 10,000 partitions.
  const auto coop = testing::run_bundled("scenarios/mirrormaker.yaml");
  auto eager_s = coop.s;
  eager_s.protocol = "eager";
  eager_s.assignor = "range";
  const auto eager = testing::run_loaded(eager_s, 1);
  // Eager members revoke everything before they rejoin: their JoinGroups
  // carry no owned partitions. Cooperative ones carry theirs: 250 each over
  // 100 topics, about 2.9KB beside the 1.5KB topic list. The leader's
  // JoinGroup round trip at the scale-out (the largest: every member's
  // subscription) is so nearly three times the eager one.
  auto leader_join_bytes = [](const testing::Run& r) {
    std::int64_t most = 0;
    for (const auto& ev : r.r.trace.events())
      if (ev.kind == "joined" && ev.at > time_at(std::chrono::seconds(60)) && ev.at < time_at(std::chrono::seconds(90)))
        most = std::max(most, ev.integer("bytes").value_or(0));
    return most;
  };
  CHECK(leader_join_bytes(eager) > 41 * 1500);
  CHECK(leader_join_bytes(coop) > 2.5 * static_cast<double>(leader_join_bytes(eager)));
  CHECK(coop.m.protocol_bytes > eager.m.protocol_bytes);

  // The same group without the bandwidth limit converges sooner after the
  // scale-out: the leader's JoinGroup response (40 subscriptions of 100
  // topics and 250 owned partitions each) alone takes over 100 ms at 1MB/s.
  auto fast_s = coop.s;
  fast_s.bandwidth_bytes_per_s = 0;
  const auto fast = testing::run_loaded(fast_s, 1);
  CHECK(fast.m.protocol_bytes == coop.m.protocol_bytes);
  CHECK(coop.m.time_to_stable > fast.m.time_to_stable);
  auto stable_after = [](const testing::Run& r, Time t) {
    for (const auto& ev : r.r.trace.events())
      if (ev.at > t && ev.actor == "coordinator" && ev.kind == "stable") return ev.at;
    return Time{};
  };
  const Time scale_out = time_at(std::chrono::seconds(60));
  CHECK(stable_after(coop, scale_out) - stable_after(fast, scale_out) > Duration{100'000});
}
}
