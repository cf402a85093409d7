// The cooperative protocol (KIP-429, seed 1 "Simple Cooperative") with the
// cooperative-sticky assignor: the seed's worked examples as exact timelines.
#include "protocols/classic/cooperative.hpp"
#include "tests/protocols/run_helpers.hpp"

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

using namespace rsim;
using testing::handovers;
using testing::run;

TEST_SUITE("protocols") {
TEST_CASE("a member joins: the moving partition is revoked in round one and assigned in round two") {
  const auto x = testing::run_bundled("scenarios/seed/cooperative-join.yaml");
  CHECK(handovers(x.r, {"generation", "assigned", "revoking", "revoked"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0,T-3]\n"
        "0.000s B assigned [T-1]\n"
        "0.000s C assigned [T-2]\n"
        "12.003s coordinator generation g2\n"
        "12.006s A revoking [T-3]\n"
        "12.006s A revoked [T-3]\n"
        "15.009s coordinator generation g3\n"
        "15.012s D assigned [T-3]\n");
  CHECK(x.m.rebalances == 2);
  CHECK(x.m.moves == 1);
  CHECK(x.m.stop_the_world == Duration{0});
  CHECK(x.m.downtime.total == Duration{3'006'000});  // T-3 only: 12.006 to 15.012 s
  CHECK(x.m.time_to_stable == Duration{5'012'000});  // the join at 10 s until D has T-3
  REQUIRE(x.m.recoveries.size() == 1);
  CHECK(x.m.recoveries[0].rebalances == 2);
  CHECK_FALSE(x.m.violation);
}

TEST_CASE("a member leaves: one rebalance, its partition goes straight to a survivor") {
  const auto x = run(R"(
name: seed-cooperative-leave
duration: 1m
protocol: cooperative
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}, {id: C, subscribe: [T]}, {id: D, subscribe: [T]}]
initial-assignment: {A: [T-0], B: [T-1], C: [T-2], D: [T-3]}
events: [{at: 10s, leave: D}]
)");
  CHECK(handovers(x.r, {"generation", "assigned", "revoking"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0]\n"
        "0.000s B assigned [T-1]\n"
        "0.000s C assigned [T-2]\n"
        "0.000s D assigned [T-3]\n"
        "10.000s D revoking [T-3]\n"
        "12.003s coordinator generation g2\n"
        "12.006s A assigned [T-3]\n");
  CHECK(x.m.rebalances == 1);
  CHECK(x.m.moves == 1);
  CHECK(x.m.stop_the_world == Duration{0});
}

TEST_CASE("a revocation longer than max.poll.interval.ms makes the member leave: a rebalance storm") {
  const auto x = run(R"(
name: long-revoke
protocol: cooperative
duration: 60s
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, max.poll.interval.ms: 20000}
costs: {revoke: 25s}
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events:
  - {at: 6s, join: C, subscribe: [T]}
)");
  CHECK(handovers(x.r, {"generation", "assigned", "revoking", "revoked", "lost", "poll-timeout", "member-removed"}) ==
        "0.000s coordinator generation g1\n"
        "0.000s A assigned [T-0,T-1]\n"
        "0.000s B assigned [T-2,T-3]\n"
        "9.003s coordinator generation g2\n"
        "9.006s B revoking [T-3]\n"
        "29.006s B poll-timeout\n"
        "29.007s coordinator member-removed\n"
        "30.009s coordinator generation g3\n"
        "30.012s C assigned [T-2,T-3]\n"
        "34.006s B revoked [T-3]\n"
        "34.006s B lost [T-2]\n"
        "36.015s coordinator generation g4\n"
        "36.018s C revoking [T-3]\n"
        "56.018s C poll-timeout\n"
        "56.019s coordinator member-removed\n"
        "57.021s coordinator generation g5\n"
        "57.024s B assigned [T-2,T-3]\n");
  CHECK_FALSE(x.m.violation);
  REQUIRE(x.m.zombies.size() >= 1);
  CHECK(x.m.zombies[0].holder == "B");
  CHECK(x.m.zombies[0].from == time_at(Duration{30'012'000}));
  CHECK(x.m.zombies[0].to == time_at(Duration{34'006'000}));
}

// ConsumerCoordinator.onJoinPrepare under COOPERATIVE: only partitions of
// topics no longer subscribed are revoked before the rejoin, whatever order
// the subscription lists its topics in.
TEST_CASE("cooperative: before a rejoin, only partitions of topics no longer subscribed are revoked") {
  const protocols::classic::CooperativeProtocol p;
  const std::vector<protocols::TopicPartition> owned{{"a", 0}, {"b", 1}, {"c", 2}, {"c", 3}, {"d", 0}};
  using List = std::vector<protocols::TopicPartition>;
  CHECK(p.revoke_before_join(owned, {"a", "c", "d"}) == List{{"b", 1}});
  CHECK(p.revoke_before_join(owned, {"d", "a", "c"}) == List{{"b", 1}});  // not sorted
  CHECK(p.revoke_before_join(owned, {"e", "b"}) == List{{"a", 0}, {"c", 2}, {"c", 3}, {"d", 0}});
  CHECK(p.revoke_before_join(owned, {}) == owned);
  CHECK(p.revoke_before_join({}, {"a"}).empty());
  // The handles kept for one shared list answer only for that list.
  const protocols::TopicNames ac{"a", "c"}, bd{"b", "d"}, ac_again{"a", "c"};
  CHECK(p.revoke_before_join(owned, ac) == List{{"b", 1}, {"d", 0}});
  CHECK(p.revoke_before_join(owned, ac) == List{{"b", 1}, {"d", 0}});
  CHECK(p.revoke_before_join(owned, bd) == List{{"a", 0}, {"c", 2}, {"c", 3}});
  CHECK(p.revoke_before_join(owned, ac_again) == List{{"b", 1}, {"d", 0}});
  CHECK(p.revoke_before_join(owned, {}) == owned);
  // Partitions of few and of many topics, in and out of order, one topic in
  // two runs; the subscription out of name order.
  for (int topics : {3, 40}) {
    CAPTURE(topics);
    List many, expected;
    std::vector<std::string> subscription;
    for (int t = topics - 1; t >= 0; --t) {  // t9 before t10 by number, after it by name
      const std::string name = "t" + std::to_string(t);
      if (t % 3 != 1) subscription.push_back(name);
    }
    for (int t = 0; t < topics; ++t)
      for (int partition : {0, 1}) {
        many.push_back({"t" + std::to_string(t), partition});
        if (t % 3 == 1) expected.push_back(many.back());
      }
    many.push_back({"t1", 5});  // t1 again, after the others: a run of its own
    expected.push_back(many.back());
    CHECK(p.revoke_before_join(many, subscription) == expected);
    std::reverse(many.begin(), many.end());
    std::reverse(expected.begin(), expected.end());
    CHECK(p.revoke_before_join(many, subscription) == expected);
  }
}

// A group on 1,000 topics copied every member's names into each JoinGroup
// and again into the leader's snapshot, at every rebalance (issue 16): the
// member's one list is what both carry.
TEST_CASE("a member's subscription is one list, shared by its JoinGroup and the leader's snapshot") {
  const protocols::TopicNames names{"t0", "t1", "t2"};
  const protocols::classic::CooperativeProtocol p;
  const auto assignor = protocols::make_classic_assignor("cooperative-sticky");
  REQUIRE(assignor != nullptr);
  const protocols::classic::Subscription s = p.subscription(*assignor, names, {}, {}, 1);
  CHECK(s.topics.shared() == names.shared());
  const std::vector<protocols::classic::JoinedMember> members{{"m1", std::nullopt, s}, {"m2", std::nullopt, s}};
  const auto g = protocols::classic::snapshot_of(*assignor, {{"t0", 2}, {"t1", 1}}, members, 1);
  REQUIRE(g.members.size() == 2);
  for (const auto& m : g.members) CHECK(m.topics.shared() == names.shared());
  CHECK(g.members[0].topics == std::vector<std::string>{"t0", "t1", "t2"});
  CHECK(g.topics == std::map<std::string, int>{{"t0", 2}, {"t1", 1}});
}
}
