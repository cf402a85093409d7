// Kafka Connect's incremental cooperative assignor: the pieces the vectors
// check only through allocation counts, checked by name here.
#include "protocols/assignors/connect.hpp"

#include <doctest/doctest.h>

using namespace rsim::protocols;
using connect::IncrementalCooperativeAssignor;
using connect::Work;
using connect::WorkerLoad;

namespace {
Work configured(int connectors, int tasks_each) {
  Work w;
  for (int c = 0; c < connectors; ++c) {
    const std::string name = "c" + std::to_string(c);
    w.connectors.push_back({name, -1});
    for (int t = 0; t < tasks_each; ++t) w.tasks.push_back({name, t});
  }
  return w;
}
}  // namespace

TEST_SUITE("assignors") {
TEST_CASE("connect: successive revoking rounds back off 40, 1600, 64000 ms, then the max delay") {
  CHECK(connect::exponential_backoff(1, 40, 300000, 1) == 40);
  CHECK(connect::exponential_backoff(1, 40, 300000, 2) == 1600);
  CHECK(connect::exponential_backoff(1, 40, 300000, 3) == 64000);
  CHECK(connect::exponential_backoff(1, 40, 300000, 4) >= 299999);
  CHECK(connect::exponential_backoff(1, 40, 300000, 9) <= 300000);
  // scheduled.rebalance.max.delay.ms = 0 disables it; 1 caps it at 1.
  CHECK(connect::exponential_backoff(0, 40, 0, 3) == 0);
  CHECK(connect::exponential_backoff(1, 40, 1, 3) == 1);
}

TEST_CASE("connect: a new worker gets work only after its owners revoked it, in the follow-up round") {
  IncrementalCooperativeAssignor a(300000, 1);
  const Work all = configured(2, 3);  // 2 connectors, 6 tasks
  auto r1 = a.assign(all, 1, 2, {WorkerLoad{"w1", {}}}, 1000);
  CHECK(r1.assigned.at("w1").connectors.size() == 2);
  CHECK(r1.assigned.at("w1").tasks.size() == 6);
  CHECK(a.delay() == 0);
  // w2 joins: w1 revokes one connector and three tasks; nobody gets them yet.
  auto r2 = a.assign(all, 2, 3, {WorkerLoad{"w1", r1.all.at("w1")}, WorkerLoad{"w2", {}}}, 2000);
  CHECK(r2.revoked.at("w1").connectors.size() == 1);
  CHECK(r2.revoked.at("w1").tasks.size() == 3);
  CHECK(r2.assigned.at("w2").empty());
  CHECK(r2.all.at("w1").tasks.size() == 3);
  // The follow-up: the revoked work goes to w2, nothing is revoked.
  auto r3 = a.assign(all, 3, 4, {WorkerLoad{"w1", r2.all.at("w1")}, WorkerLoad{"w2", {}}}, 3000);
  CHECK(r3.revoked.at("w1").empty());
  CHECK(r3.assigned.at("w2").connectors == r2.revoked.at("w1").connectors);
  CHECK(r3.assigned.at("w2").tasks == r2.revoked.at("w1").tasks);
  CHECK(a.delay() == 0);
}

TEST_CASE("connect: lost work waits for the delay even when its worker is back, then goes back to it") {
  IncrementalCooperativeAssignor a(10000, 1);
  const Work all = configured(2, 2);
  auto r1 = a.assign(all, 1, 2, {WorkerLoad{"w1", {}}, WorkerLoad{"w2", {}}}, 0 + 1);
  const Work w2_had = r1.all.at("w2");
  REQUIRE_FALSE(w2_had.empty());
  // w2 is gone: its work is held, the delay is the max.
  auto r2 = a.assign(all, 2, 3, {WorkerLoad{"w1", r1.all.at("w1")}}, 1001);
  CHECK(a.delay() == 10000);
  CHECK(r2.assigned.at("w1").empty());
  // w2 is back (a new member, empty) after 4 s: still held, 6 s to go.
  auto r3 = a.assign(all, 3, 4, {WorkerLoad{"w1", r1.all.at("w1")}, WorkerLoad{"w2b", {}}}, 5001);
  CHECK(a.delay() == 6000);
  CHECK(r3.assigned.at("w2b").empty());
  // At the deadline the empty newcomer gets exactly the lost work.
  auto r4 = a.assign(all, 4, 5, {WorkerLoad{"w1", r1.all.at("w1")}, WorkerLoad{"w2b", {}}}, 11001);
  CHECK(a.delay() == 0);
  CHECK(r4.assigned.at("w2b").connectors == w2_had.connectors);
  CHECK(r4.assigned.at("w2b").tasks == w2_had.tasks);
  CHECK(r4.assigned.at("w1").empty());
}
}
