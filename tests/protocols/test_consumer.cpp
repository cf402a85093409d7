// The KIP-848 `consumer` protocol: exact timelines for a join, a crash, a
// member that does not revoke in time and a coordinator failover in the
// middle of a reconciliation; the log replay rebuilding the same group.
#include "protocols/assignors/server.hpp"
#include "protocols/consumer/coordinator.hpp"
#include "protocols/consumer/wire_size.hpp"
#include "protocols/epoch/compacted_log.hpp"
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>

#include <map>
#include <variant>

using namespace rsim;
using namespace std::chrono_literals;

namespace {

const char* kGroup = R"(
name: kip848
duration: DURATION
protocol: consumer
CONFIG
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events:
EVENTS)";

// The two-member group above with its duration, config lines and events.
testing::Run group(const std::string& duration, const std::string& config, const std::string& events) {
  std::string text = kGroup;
  text.replace(text.find("DURATION"), 8, duration);
  text.replace(text.find("CONFIG"), 6, config);
  text.replace(text.find("EVENTS"), 6, events);
  return testing::run(text);
}

std::string lines(const scenario::RunResult& r) {
  return testing::timeline(r, {"generation", "member-removed", "revoking", "revoked", "assigned", "lost", "stable"}, true);
}

// The timeline of the group above when C joins at 12 s: group epoch 2, C
// told at once, A at its 15 s heartbeat; then `rest`.
std::string after_c_joins(const std::vector<std::string>& rest) {
  std::vector<std::string> all{"0.000s coordinator generation g1", "0.000s coordinator stable g1",
                               "0.000s A assigned g1 [T-0,T-1]",  "0.000s B assigned g1 [T-2,T-3]",
                               "12.001s coordinator generation g2", "12.002s C assigned g2 []",
                               "15.002s A assigned g2 []"};
  all.insert(all.end(), rest.begin(), rest.end());
  return testing::joined(all);
}

// One heartbeat straight to the coordinator (no network), its answer.
protocols::consumer::HeartbeatResponse heartbeat(protocols::consumer::ConsumerCoordinator& c, const std::string& client,
                                                 const std::string& id, int epoch,
                                                 std::optional<std::vector<protocols::TopicPartition>> owned,
                                                 std::vector<std::string> topics,
                                                 std::optional<std::string> instance = std::nullopt,
                                                 std::uint32_t slot = protocols::epoch::kNoMemberSlot) {
  protocols::consumer::HeartbeatRequest req;
  req.member_id = id;
  req.member_slot = slot;
  req.member_epoch = epoch;
  req.client_id = client;
  req.instance_id = std::move(instance);
  req.topics = std::move(topics);
  req.owned = std::move(owned);
  req.rebalance_timeout = std::chrono::seconds(300);
  protocols::consumer::HeartbeatResponse answer;
  c.handle_heartbeat(req, [&](protocols::consumer::HeartbeatResponse r) { answer = std::move(r); });
  return answer;
}

}  // namespace

TEST_SUITE("protocols") {
TEST_CASE("consumer: ConsumerGroupHeartbeat sizes as Kafka encodes them, fields only when sent") {
  namespace c = protocols::consumer;
  c::HeartbeatRequest join;
  join.member_epoch = 0;
  join.topics = {"orders"};
  join.owned = std::vector<protocols::TopicPartition>{};
  // Header 27 (api key, version, correlation, 16-byte client id, tags),
  // group id 1 + 16, member id "" 1, epoch 4, instance and rack null 1 + 1,
  // rebalance timeout 4, topics 1 + (1 + 6), regex and assignor null 1 + 1,
  // owned (an empty array) 1, tags 1.
  CHECK(c::request_size(join, true) == 67);
  CHECK(c::request_size(join, false) == 67 - 8 + 1);  // topics unchanged: null
  c::HeartbeatResponse r;
  r.member_id = "A-0";
  r.assignment = {{"orders", 0}, {"orders", 1}};
  // Header 5, throttle 4, error 2, message null 1, member id 1 + 3, epoch 4,
  // interval 4, assignment: present 1, one topic (count 1, id 16,
  // partitions 1 + 8, tags 1), tags 1; tags 1.
  CHECK(c::response_size(r, true) == 54);
  CHECK(c::response_size(r, false) == 54 - 29 + 1);  // unchanged: null
}

// C joins at 12 s (heard at 12.001 s): group epoch 2, and the uniform
// target moves T-3 from B to C. C is told its epoch at once but gets
// nothing yet: T-3 is still B's (UNRELEASED). A and B hear at their 15 s
// heartbeats; B revokes T-3 and acknowledges at once (15.003 s); C gets T-3
// at its own next heartbeat, 5 s after its join (17.001 s). Nobody else
// stops; only T-3 is down, 2 s.
TEST_CASE("consumer: a member joins a stable group; the partition it gets is revoked by its owner first") {
  const auto x = group("40s", "", "  - {at: 12s, join: C, subscribe: [T]}\n");
  CHECK(lines(x.r) == after_c_joins({
                          "15.002s B revoking [T-3]",
                          "15.002s B revoked [T-3]",
                          "15.004s B assigned g2 []",
                          "17.001s coordinator stable g2",
                          "17.002s C assigned g2 [T-3]",
                      }));
  CHECK(x.m.stop_the_world == Duration{0});
  CHECK(x.m.moves == 1);
  CHECK(x.m.downtime_by_resource.at("T-3") == Duration{2'000'000});
  CHECK(x.m.downtime_by_resource.at("T-0") == Duration{0});
  CHECK(x.m.downtime_by_resource.at("T-2") == Duration{0});
  CHECK(x.m.final_assignment.at("C") == std::vector<std::string>{"T-3"});
}

// A's last heartbeat reached the coordinator at 10.001 s; its session
// (group.consumer.session.timeout.ms, 45 s) expires at 55.001 s: fenced,
// group epoch 2, and B, the only member left, gets T-0 and T-1 at its
// heartbeat of the same moment.
TEST_CASE("consumer: a crashed member is fenced when its session times out") {
  const auto x = group("90s", "", "  - {at: 12s, crash: A}\n");
  CHECK(lines(x.r) == testing::joined({
                          "0.000s coordinator generation g1",
                          "0.000s coordinator stable g1",
                          "0.000s A assigned g1 [T-0,T-1]",
                          "0.000s B assigned g1 [T-2,T-3]",
                          "55.001s coordinator member-removed (session timeout expired)",
                          "55.001s coordinator generation g2",
                          "55.001s coordinator stable g2",
                          "55.002s B assigned g2 [T-0,T-1]",
                      }));
  CHECK(x.m.downtime_by_resource.at("T-0") == Duration{43'002'000});
}

// B must give up T-3 (heard at 15.001 s) but its revocation takes 30 s; its
// rebalance timeout (max.poll.interval.ms, 20 s) runs from 15.001 s: B is
// fenced at 35.001 s, learns it at its next heartbeat (UNKNOWN_MEMBER_ID),
// loses everything and rejoins as a new member.
TEST_CASE("consumer: a member that does not revoke within its rebalance timeout is fenced") {
  const auto x = group("60s", "config: {max.poll.interval.ms: 20000}\ncosts: {revoke: 30s}",
                       "  - {at: 12s, join: C, subscribe: [T]}\n");
  CHECK(lines(x.r) == after_c_joins({
                          "15.002s B revoking [T-3]",
                          "35.001s coordinator member-removed (rebalance timeout expired)",
                          "35.001s coordinator generation g3",
                          "35.002s A assigned g3 []",
                          "35.002s B lost [T-2,T-3]",
                          "35.003s coordinator generation g4",
                          "35.004s B assigned g4 [T-3]",
                          "37.002s C assigned g4 [T-2]",
                          "40.001s coordinator stable g4",
                          "40.002s A assigned g4 []",
                      }));
  CHECK_FALSE(x.m.violation);
}

// The new consumer's callbacks run in the application thread, in poll():
// B, in an 8 s batch from 10 s, hears at 15.001 s that it must give up T-3
// but revokes it only when the batch ends (18 s), and acknowledges at once;
// C gets T-3 at its next heartbeat (22.002 s). T-3 was processed by B until
// 18 s, so it is down 4.002 s; nobody else stops.
TEST_CASE("consumer: a member in a long batch revokes at its next poll") {
  const auto x = group("60s", "config: {max.poll.interval.ms: 20000}",
                       "  - {at: 10s, slow: B, batch: 8s, for: 5s}\n  - {at: 12s, join: C, subscribe: [T]}\n");
  CHECK(lines(x.r) == after_c_joins({
                          "18.000s B revoking [T-3]",
                          "18.000s B revoked [T-3]",
                          "18.002s B assigned g2 []",
                          "22.001s coordinator stable g2",
                          "22.002s C assigned g2 [T-3]",
                      }));
  CHECK(x.m.downtime.total == Duration{4'002'000});
  CHECK_FALSE(x.m.violation);
}

// B's 25 s batch (10-35 s) outlives max.poll.interval.ms: at 30 s the
// background thread leaves the group (epoch -1), which frees T-2 and T-3 at
// once (group epoch 3) and C takes them at its 32.002 s heartbeat, while B,
// still in its batch, holds them: a zombie until its poll at 35 s loses them
// and it joins again with epoch 0 (as B-2). The poll timeout came before
// B's rebalance timeout (35.001 s) would have fenced it.
TEST_CASE("consumer: a batch longer than max.poll.interval.ms makes the member leave, then rejoin at its next poll") {
  const auto x = group("60s", "config: {max.poll.interval.ms: 20000}",
                       "  - {at: 10s, slow: B, batch: 25s, for: 5s}\n  - {at: 12s, join: C, subscribe: [T]}\n");
  CHECK(lines(x.r) == after_c_joins({
                          "30.001s coordinator member-removed (left the group)",
                          "30.001s coordinator generation g3",
                          "30.002s A assigned g3 []",
                          "32.001s coordinator stable g3",
                          "32.002s C assigned g3 [T-2,T-3]",
                          "35.000s B lost [T-2,T-3]",
                          "35.001s coordinator generation g4",
                          "35.002s B assigned g4 []",
                          "35.002s A assigned g4 []",
                          "37.004s C revoking [T-3]",
                          "37.004s C revoked [T-3]",
                          "37.006s C assigned g4 []",
                          "40.001s coordinator stable g4",
                          "40.002s B assigned g4 [T-3]",
                      }));
  CHECK_FALSE(x.m.violation);
  REQUIRE(x.m.zombies.size() == 2);
  CHECK(x.m.zombies[0].holder == "B");
  CHECK(x.m.zombies[0].from == time_at(Duration{32'002'000}));
  CHECK(x.m.zombies[0].to == time_at(35s));
}

// The coordinator fails over at 16 s, while B is revoking T-3 (2 s, until
// 17.002 s). The new coordinator replays the log at 18 s: B is still
// UNREVOKED_PARTITIONS there. Members look it up with FindCoordinator backing
// off 100, 200, 400, 800 ms, then 1 s (retry.backoff.max.ms), and find it at
// 18.512 s; B's heartbeat no longer lists T-3, so C gets it: the same target
// as without the failover.
TEST_CASE("consumer: a coordinator failover mid-reconciliation converges to the same target") {
  const auto with = group("60s", "costs: {revoke: 2s}",
                          "  - {at: 12s, join: C, subscribe: [T]}\n  - {at: 16s, coordinator-failover: true, down: 2s}\n");
  const auto without = group("60s", "costs: {revoke: 2s}", "  - {at: 12s, join: C, subscribe: [T]}\n");
  CHECK(with.m.final_assignment == without.m.final_assignment);
  CHECK(with.m.final_generation == without.m.final_generation);
  CHECK(lines(with.r).find("18.514s C assigned g2 [T-3]") != std::string::npos);
  CHECK_FALSE(with.m.violation);
}

// The log is the group: a coordinator that replays it has the state of the
// one that wrote it, field by field, at any point (here, one member
// UNREVOKED, one UNRELEASED, one STABLE).
TEST_CASE("consumer: replaying the records rebuilds the group field by field") {
  using namespace protocols::consumer;
  Kernel kernel;
  Trace trace;
  const Metadata cluster{{"T", 4}};
  const protocols::UniformAssignor assignor;
  ConsumerCoordinator c(kernel, trace, cluster, assignor, CoordinatorConfig{});
  std::map<std::string, HeartbeatResponse> last;
  auto beat = [&](const std::string& client, const std::string& id, int epoch, std::vector<protocols::TopicPartition> owned) {
    HeartbeatRequest req;
    req.member_id = id;
    req.member_epoch = epoch;
    req.client_id = client;
    req.topics = {"T"};
    req.owned = std::move(owned);
    req.rebalance_timeout = std::chrono::seconds(300);
    c.handle_heartbeat(req, [&, client](HeartbeatResponse r) { last[client] = r; });
    return last[client];
  };
  const auto a = beat("A", "", 0, {});
  REQUIRE(a.error == Error::None);
  CHECK(a.assignment.size() == 4);  // alone: everything
  const auto b = beat("B", "", 0, {});
  CHECK(b.assignment.empty());  // its share is still A's
  const auto a2 = beat("A", a.member_id, a.member_epoch, a.assignment);
  CHECK(a2.assignment.size() == 2);  // A must give up two: UNREVOKED
  CHECK(a2.member_epoch == a.member_epoch);
  const auto cc = beat("C", "", 0, {});
  const GroupImage& before = c.state();
  CHECK(before.members.at(a.member_id).state == MemberState::UnrevokedPartitions);
  CHECK(before.members.at(b.member_id).state == MemberState::UnreleasedPartitions);
  ConsumerCoordinator rebuilt(kernel, trace, cluster, assignor, CoordinatorConfig{});
  rebuilt.replay(c.log());
  const GroupImage& after = rebuilt.state();
  CHECK(after.group_epoch == before.group_epoch);
  CHECK(after.target_epoch == before.target_epoch);
  CHECK(after.target == before.target);
  CHECK(after.subscribed_metadata == before.subscribed_metadata);
  REQUIRE(after.members.size() == before.members.size());
  for (const auto& entry : before.members) {  // not a structured binding: CAPTURE is a lambda
    const std::string& id = entry.first;
    const MemberView& m = entry.second;
    CAPTURE(id);
    const MemberView& r = after.members.at(id);
    CHECK(r.client_id == m.client_id);
    CHECK(r.topics == m.topics);
    CHECK(r.rebalance_timeout == m.rebalance_timeout);
    CHECK(r.epoch == m.epoch);
    CHECK(r.previous_epoch == m.previous_epoch);
    CHECK(r.state == m.state);
    CHECK(r.assigned == m.assigned);
    CHECK(r.revoking == m.revoking);
  }
  CHECK(after == before);
  // A member leaving writes tombstones: gone after a replay too.
  beat("C", cc.member_id, -1, {});
  ConsumerCoordinator again(kernel, trace, cluster, assignor, CoordinatorConfig{});
  again.replay(c.log());
  CHECK(again.state() == c.state());
  CHECK(again.state().members.count(cc.member_id) == 0);
  // The replayed coordinator knows its members' client ids by member id
  // too: the next target names them (its index is rebuilt with the group).
  HeartbeatRequest join;
  join.member_epoch = 0;
  join.client_id = "D";
  join.topics = {"T"};
  join.rebalance_timeout = std::chrono::seconds(300);
  again.handle_heartbeat(join, [](HeartbeatResponse) {});
  const NameList* named = nullptr;
  for (const TraceEvent& ev : trace.events())
    if (ev.kind == "generation") named = ev.list("members");
  REQUIRE(named != nullptr);
  CHECK(named->strings() == std::vector<std::string>{"A", "B", "D"});
  // The group's members are named in text order as they come and go: C
  // left the first coordinator, and a member whose client id sorts first
  // joins it.
  join.client_id = "0";
  c.handle_heartbeat(join, [](HeartbeatResponse) {});
  named = nullptr;
  for (const TraceEvent& ev : trace.events())
    if (ev.kind == "generation") named = ev.list("members");
  REQUIRE(named != nullptr);
  CHECK(named->strings() == std::vector<std::string>{"0", "A", "B"});
}

// A heartbeat answers what the member may own as one shared list, the same
// object from one change of its assignment to the next, whatever the epoch
// does meanwhile; every answer lists exactly the member's assignment, and a
// member the coordinator knew to be at its target moves when the target
// does.
TEST_CASE("consumer: answers share the member's assignment list until it changes") {
  using namespace protocols::consumer;
  using protocols::TopicPartition;
  using protocols::epoch::SharedList;
  Kernel kernel;
  Trace trace;
  const Metadata cluster{{"T", 4}, {"U", 1}};
  const protocols::UniformAssignor assignor;
  ConsumerCoordinator c(kernel, trace, cluster, assignor, CoordinatorConfig{});
  auto beat = [&](const std::string& client, const std::string& id, int epoch,
                  std::optional<std::vector<TopicPartition>> owned, std::vector<std::string> topics = {"T"}) {
    const HeartbeatResponse answer = heartbeat(c, client, id, epoch, std::move(owned), std::move(topics));
    REQUIRE(answer.error == Error::None);
    // Whatever was shared: the member's assignment as the coordinator has it.
    const auto& m = c.state().members.at(answer.member_id);
    CHECK(answer.assignment.get() == as_list(m.assigned));
    // Stable at the target epoch: exactly its target.
    if (m.state == MemberState::Stable && m.epoch == c.state().target_epoch)
      CHECK(m.assigned == c.state().target.at(m.member_id));
    return answer;
  };
  const auto a = beat("A", "", 0, std::vector<TopicPartition>{});
  CHECK(a.assignment.size() == 4);
  const auto a1 = beat("A", a.member_id, a.member_epoch, std::nullopt);
  CHECK(a1.assignment.is(a.assignment));  // nothing moved: the same list
  const auto b = beat("B", "", 0, std::vector<TopicPartition>{});
  const auto a2 = beat("A", a.member_id, a.member_epoch, std::nullopt);  // still owns what it must revoke
  CHECK(a2.assignment.size() == 2);
  CHECK_FALSE(a2.assignment.is(a1.assignment));
  const auto a3 = beat("A", a.member_id, a2.member_epoch, a2.assignment.get());  // revoked: at the new epoch
  CHECK(a3.member_epoch > a2.member_epoch);
  CHECK(a3.assignment == a2.assignment);
  const auto a4 = beat("A", a.member_id, a3.member_epoch, std::nullopt);
  CHECK(a4.assignment.is(a3.assignment));
  // A new epoch that leaves A's target as it is (C reads another topic):
  // a new member epoch, the same list.
  const auto b1 = beat("B", b.member_id, b.member_epoch, std::vector<TopicPartition>{});
  CHECK(b1.assignment.size() == 2);
  const auto cc = beat("C", "", 0, std::vector<TopicPartition>{}, {"U"});
  CHECK(cc.assignment.get() == std::vector<TopicPartition>{{"U", 0}});
  const auto a5 = beat("A", a.member_id, a4.member_epoch, std::nullopt);
  CHECK(a5.member_epoch > a4.member_epoch);
  CHECK(a5.assignment.is(a4.assignment));
  // D reads T too: A's target changes while A is at its target; A must
  // give one up, in a new list.
  const auto b2 = beat("B", b.member_id, b1.member_epoch, std::nullopt);
  CHECK(b2.assignment.is(b1.assignment));
  const auto d = beat("D", "", 0, std::vector<TopicPartition>{});
  CHECK(d.assignment.empty());
  const auto a6 = beat("A", a.member_id, a5.member_epoch, std::nullopt);
  const auto b3 = beat("B", b.member_id, b2.member_epoch, std::nullopt);
  CHECK(a6.assignment.size() + b3.assignment.size() == 3);
  CHECK_FALSE((a6.assignment.is(a5.assignment) && b3.assignment.is(b2.assignment)));
  // Equal lists compare equal whether shared or not; empty ones too.
  const SharedList<TopicPartition> copy(a5.assignment.get());
  CHECK(copy == a5.assignment);
  CHECK_FALSE(copy.is(a5.assignment));
  CHECK(SharedList<TopicPartition>() == SharedList<TopicPartition>(std::vector<TopicPartition>{}));
  CHECK_FALSE(copy == SharedList<TopicPartition>());
}

// A heartbeat brings back the slot its last answer gave (not a Kafka
// field: epoch/heartbeat.hpp); the coordinator looks there first and takes
// the member found only when its id is the heartbeat's, else it looks the
// id up. A slot holding another member, a freed slot taken again, or none
// answers as the id alone does.
TEST_CASE("consumer: a heartbeat's slot finds its member only when the id there is the heartbeat's") {
  using namespace protocols::consumer;
  using protocols::TopicPartition;
  using protocols::epoch::kNoMemberSlot;
  Kernel kernel;
  Trace trace;
  const Metadata cluster{{"T", 4}};
  const protocols::UniformAssignor assignor;
  ConsumerCoordinator c(kernel, trace, cluster, assignor, CoordinatorConfig{});
  auto beat = [&](const std::string& client, const std::string& id, std::uint32_t slot, int epoch,
                  std::optional<std::vector<TopicPartition>> owned) {
    return heartbeat(c, client, id, epoch, std::move(owned), {"T"}, std::nullopt, slot);
  };
  const auto a = beat("A", "", kNoMemberSlot, 0, std::vector<TopicPartition>{});
  const auto b = beat("B", "", kNoMemberSlot, 0, std::vector<TopicPartition>{});
  REQUIRE(a.error == Error::None);
  REQUIRE(b.error == Error::None);
  CHECK(a.member_slot != kNoMemberSlot);
  CHECK(b.member_slot != kNoMemberSlot);
  CHECK(a.member_slot != b.member_slot);
  // A's heartbeats with its own slot, B's, none or one never given: each
  // answers A, at A's epoch, with A's slot.
  for (const std::uint32_t slot : {a.member_slot, b.member_slot, kNoMemberSlot, std::uint32_t{12345}}) {
    CAPTURE(slot);
    const auto again = beat("A", a.member_id, slot, a.member_epoch, std::nullopt);
    CHECK(again.error == Error::None);
    CHECK(again.member_id == a.member_id);
    CHECK(again.member_slot == a.member_slot);
    CHECK(c.state().members.at(a.member_id).epoch == again.member_epoch);
  }
  // B leaves; C joins and takes B's slot. B's id with that slot is unknown;
  // C's heartbeat with A's slot still answers C.
  CHECK(beat("B", b.member_id, b.member_slot, kLeaveEpoch, std::nullopt).error == Error::None);
  CHECK(c.state().members.count(b.member_id) == 0);
  const auto cc = beat("C", "", kNoMemberSlot, 0, std::vector<TopicPartition>{});
  REQUIRE(cc.error == Error::None);
  CHECK(cc.member_slot == b.member_slot);
  CHECK(beat("B", b.member_id, b.member_slot, b.member_epoch, std::nullopt).error == Error::UnknownMemberId);
  const auto c1 = beat("C", cc.member_id, a.member_slot, cc.member_epoch, std::nullopt);
  CHECK(c1.error == Error::None);
  CHECK(c1.member_id == cc.member_id);
  CHECK(c1.member_slot == cc.member_slot);
}

// A member's current-assignment record at a new epoch with nothing moved is
// written again with its units moved over from the record it replaces
// (EpochGroup::rewrite_current); wherever its units changed in between (a
// step, a release of what it was revoking, a static leave) the record is
// written from the member. At every heartbeat the log replays to the
// group, and its live records stay bounded by the group's size; the lists
// the assignor is given for the members' targets are the targets.
TEST_CASE("consumer: records at a new epoch keep their units; the log replays to the group at every step") {
  using namespace protocols::consumer;
  using protocols::TopicPartition;
  Kernel kernel;
  Trace trace;
  const Metadata cluster{{"T", 6}, {"U", 1}};
  const protocols::UniformAssignor assignor;
  ConsumerCoordinator c(kernel, trace, cluster, assignor, CoordinatorConfig{});
  int steps = 0;
  std::size_t lists = 0;
  auto replays = [&] {
    ++steps;
    CAPTURE(steps);
    CHECK(protocols::epoch::image_difference(c.state(), protocols::epoch::replay(c.log())) == "");
    CHECK(c.log().size() <= 2 + 3 * c.state().members.size() + 2);
    // The targets' kept lists (the assignor's view) are the targets.
    for (const auto& entry : c.target_lists()) {  // not a structured binding: CAPTURE is a lambda (clang 14)
      const auto& [id, list] = entry;
      CAPTURE(entry.first);
      REQUIRE(c.state().target.count(id) == 1);
      CHECK(list.get() == as_list(c.state().target.at(id)));
      ++lists;
    }
  };
  auto beat = [&](const std::string& client, const std::string& id, int epoch,
                  std::optional<std::vector<TopicPartition>> owned, std::vector<std::string> topics = {"T"},
                  std::optional<std::string> instance = std::nullopt) {
    const HeartbeatResponse answer = heartbeat(c, client, id, epoch, std::move(owned), std::move(topics), std::move(instance));
    REQUIRE(answer.error == Error::None);
    replays();
    return answer;
  };
  auto logged = [&](const std::string& id) {
    for (const auto& r : c.log())
      if (const auto* x = std::get_if<protocols::epoch::CurrentAssignmentRecord<Partitions>>(&r); x && x->member_id == id)
        return x->current;
    FAIL("no current-assignment record for " << id);
    return protocols::epoch::CurrentAssignment<Partitions::Assignment>{};
  };
  const auto a = beat("A", "", 0, std::vector<TopicPartition>{});
  const auto a1 = beat("A", a.member_id, a.member_epoch, a.assignment.get());
  // B joins: A revokes half (a record with units to revoke), then releases
  // them (the same assigned units, nothing left to revoke).
  const auto b = beat("B", "", 0, std::vector<TopicPartition>{});
  const auto a2 = beat("A", a.member_id, a1.member_epoch, std::nullopt);
  CHECK(logged(a.member_id).revoking.size() == 3);
  const auto a3 = beat("A", a.member_id, a2.member_epoch, a2.assignment.get());
  CHECK(a3.member_epoch > a2.member_epoch);
  CHECK(logged(a.member_id).revoking.empty());
  CHECK(logged(a.member_id).assigned.size() == 3);
  const auto b1 = beat("B", b.member_id, b.member_epoch, std::vector<TopicPartition>{});
  const auto b2 = beat("B", b.member_id, b1.member_epoch, b1.assignment.get());
  // New epochs that move nothing of A's or B's (C and D read another
  // topic): the records move on to each new epoch with the same units.
  const auto cc = beat("C", "", 0, std::vector<TopicPartition>{}, {"U"}, std::string("c"));
  const auto a4 = beat("A", a.member_id, a3.member_epoch, std::nullopt);
  CHECK(a4.member_epoch > a3.member_epoch);
  CHECK(logged(a.member_id).epoch == a4.member_epoch);
  CHECK(logged(a.member_id).previous_epoch == a3.member_epoch);
  CHECK(logged(a.member_id).assigned.size() == 3);
  // C, static, leaves (epoch -2: its record keeps its units at that epoch)
  // and comes back under a new member id: the group is where it was.
  const auto c1 = beat("C", cc.member_id, cc.member_epoch, cc.assignment.get(), {"U"}, std::string("c"));
  const auto c2 = beat("C", cc.member_id, -2, std::nullopt, {"U"}, std::string("c"));
  const auto c3 = beat("C", "", 0, std::vector<TopicPartition>{}, {"U"}, std::string("c"));
  CHECK(c3.assignment.get() == std::vector<TopicPartition>{{"U", 0}});
  // E reads T too: A's and B's targets change while their records are
  // current; the steps write them from the members again.
  const auto e = beat("E", "", 0, std::vector<TopicPartition>{});
  const auto a5 = beat("A", a.member_id, a4.member_epoch, std::nullopt);
  const auto b3 = beat("B", b.member_id, b2.member_epoch, std::nullopt);
  const auto a6 = beat("A", a.member_id, a5.member_epoch, a5.assignment.get());
  const auto b4 = beat("B", b.member_id, b3.member_epoch, b3.assignment.get());
  const auto e1 = beat("E", e.member_id, e.member_epoch, std::vector<TopicPartition>{});
  const auto e2 = beat("E", e.member_id, e1.member_epoch, e1.assignment.get());
  CHECK(a6.assignment.size() + b4.assignment.size() + e2.assignment.size() == 6);
  CHECK(logged(a.member_id).assigned.size() == a6.assignment.size());
  CHECK(steps == 19);
  CHECK(lists > 10);
  (void)c1;
  (void)c2;
}

// Members subscribing alike share one interned list (a group on 1,000
// topics no longer copies and compares them per member at each epoch); a
// topic that does not exist is left out of the assignor's view; the
// subscribed topics' counts are checked at every heartbeat, a topic among
// others the group does not read included.
TEST_CASE("consumer: equal subscriptions share one list; a subscribed topic's new count starts an epoch") {
  using namespace protocols::consumer;
  Kernel kernel;
  Trace trace;
  Metadata cluster{{"a", 2}, {"b", 3}, {"c", 2}, {"d", 1}};
  const protocols::UniformAssignor assignor;
  ConsumerCoordinator c(kernel, trace, cluster, assignor, CoordinatorConfig{});
  std::map<std::string, HeartbeatResponse> last;
  auto beat = [&](const std::string& client, std::vector<std::string> topics) {
    HeartbeatRequest req;
    if (auto it = last.find(client); it != last.end()) {
      req.member_id = it->second.member_id;
      req.member_epoch = it->second.member_epoch;
      req.owned = it->second.assignment;
    }
    req.client_id = client;
    req.topics = std::move(topics);
    req.rebalance_timeout = std::chrono::seconds(300);
    c.handle_heartbeat(req, [&, client](HeartbeatResponse r) { last[client] = r; });
    REQUIRE(last[client].error == Error::None);
    return last[client];
  };
  for (int round = 0; round < 3; ++round) {
    beat("A", {"c", "a", "missing"});
    beat("B", {"c", "a", "missing"});
  }
  const auto& members = c.state().members;
  const auto& a = members.at(last["A"].member_id);
  const auto& b = members.at(last["B"].member_id);
  CHECK(a.topics == std::vector<std::string>{"c", "a", "missing"});
  CHECK(a.topics.shared() == b.topics.shared());  // one list, not two equal ones
  CHECK(c.state().subscribed_metadata == Metadata{{"a", 2}, {"c", 2}});
  CHECK(last["A"].assignment.size() + last["B"].assignment.size() == 4);  // a and c, nothing of `missing`
  const int epoch = c.state().group_epoch;
  beat("A", {"c", "a", "missing"});
  CHECK(c.state().group_epoch == epoch);  // nothing changed
  cluster["b"] = 5;                       // not subscribed: no new epoch
  beat("A", {"c", "a", "missing"});
  CHECK(c.state().group_epoch == epoch);
  cluster["c"] = 4;                       // subscribed, between two the group does not read
  beat("A", {"c", "a", "missing"});
  CHECK(c.state().group_epoch == epoch + 1);
  CHECK(c.state().subscribed_metadata == Metadata{{"a", 2}, {"c", 4}});
  cluster.erase("a");                     // a subscribed topic is deleted
  beat("B", {"c", "a", "missing"});
  CHECK(c.state().group_epoch == epoch + 2);
  CHECK(c.state().subscribed_metadata == Metadata{{"c", 4}});
  beat("B", {"c"});                       // a new subscription: its own list
  CHECK(c.state().members.at(last["B"].member_id).topics.shared() != c.state().members.at(last["A"].member_id).topics.shared());
  CHECK(c.state().group_epoch == epoch + 3);
  // The table drops lists no member holds as it grows (past 2 x 2 + 16
  // here), never one a member still holds.
  for (int i = 0; i < 40; ++i) beat("B", {"c", "x" + std::to_string(i)});
  CHECK(c.state().members.at(last["B"].member_id).topics == std::vector<std::string>{"c", "x39"});
  beat("B", {"c", "a", "missing"});
  CHECK(c.state().members.at(last["B"].member_id).topics.shared() == c.state().members.at(last["A"].member_id).topics.shared());
}

// A group epoch records the metadata of every topic some member subscribes
// to, kept as members join, resubscribe and leave (counted per list, as
// Kafka counts subscribers per topic), and counted again from a replayed log.
TEST_CASE("consumer: the epoch's metadata follows subscriptions as members join, resubscribe and leave") {
  using namespace protocols::consumer;
  Kernel kernel;
  Trace trace;
  const Metadata cluster{{"a", 2}, {"b", 3}, {"c", 2}, {"d", 1}};
  const protocols::UniformAssignor assignor;
  ConsumerCoordinator c(kernel, trace, cluster, assignor, CoordinatorConfig{});
  std::map<std::string, HeartbeatResponse> last;
  auto beat = [&](ConsumerCoordinator& to, const std::string& client, std::vector<std::string> topics, int epoch) {
    HeartbeatRequest req;
    if (auto it = last.find(client); it != last.end()) req.member_id = it->second.member_id;
    req.member_epoch = epoch;
    req.client_id = client;
    req.topics = std::move(topics);
    req.rebalance_timeout = std::chrono::seconds(300);
    to.handle_heartbeat(req, [&, client](HeartbeatResponse r) {
      if (r.error == Error::None && !r.member_id.empty()) last[client] = r;
    });
  };
  const auto epoch_of = [&](const std::string& client) { return last.at(client).member_epoch; };
  beat(c, "A", {"a"}, 0);
  CHECK(c.state().subscribed_metadata == Metadata{{"a", 2}});
  beat(c, "B", {"b", "a"}, 0);
  beat(c, "C", {"b", "a"}, 0);
  CHECK(c.state().subscribed_metadata == Metadata{{"a", 2}, {"b", 3}});
  beat(c, "B", {"d"}, epoch_of("B"));  // C still holds {b, a}
  CHECK(c.state().subscribed_metadata == Metadata{{"a", 2}, {"b", 3}, {"d", 1}});
  beat(c, "C", {"c"}, epoch_of("C"));  // nobody holds {b, a} now
  CHECK(c.state().subscribed_metadata == Metadata{{"a", 2}, {"c", 2}, {"d", 1}});
  beat(c, "A", {"a"}, -1);  // leaves
  CHECK(c.state().subscribed_metadata == Metadata{{"c", 2}, {"d", 1}});
  ConsumerCoordinator replayed(kernel, trace, cluster, assignor, CoordinatorConfig{});
  replayed.replay(c.log());
  beat(replayed, "D", {"b"}, 0);
  CHECK(replayed.state().subscribed_metadata == Metadata{{"b", 3}, {"c", 2}, {"d", 1}});
  beat(replayed, "B", {"b"}, -1);
  CHECK(replayed.state().subscribed_metadata == Metadata{{"b", 3}, {"c", 2}});
}

// With the cluster's change count (GroupTopics keeps one), a heartbeat reads
// the subscribed topics' counts only when the count or the recorded metadata
// moved since a check found nothing; without it, at every heartbeat (above).
TEST_CASE("consumer: with the cluster's change count, the counts are read again only after a change") {
  using namespace protocols::consumer;
  using protocols::TopicNames;
  Kernel kernel;
  Trace trace;
  Metadata cluster{{"a", 2}, {"b", 3}};
  std::uint64_t version = 0;
  const protocols::UniformAssignor assignor;
  ConsumerCoordinator c(kernel, trace, cluster, assignor, CoordinatorConfig{});
  c.follow_cluster_version(&version);
  HeartbeatResponse last;
  const TopicNames just_a{"a"};  // one list object, sent at every heartbeat as a member does
  auto beat = [&](const TopicNames& topics) {
    HeartbeatRequest req;
    req.member_id = last.member_id;
    req.member_epoch = last.member_epoch;
    req.owned = last.assignment;
    req.client_id = "A";
    req.topics = topics;
    req.rebalance_timeout = std::chrono::seconds(300);
    c.handle_heartbeat(req, [&](HeartbeatResponse r) { last = r; });
    REQUIRE(last.error == Error::None);
  };
  for (int i = 0; i < 3; ++i) beat(just_a);
  const int epoch = c.state().group_epoch;
  cluster["a"] = 4;  // not counted: the coordinator relies on the count
  beat(just_a);
  CHECK(c.state().group_epoch == epoch);
  ++version;
  beat(just_a);
  CHECK(c.state().group_epoch == epoch + 1);
  CHECK(c.state().subscribed_metadata == Metadata{{"a", 4}});
  beat(TopicNames{"a"});  // an equal list in another object: the same subscription
  CHECK(c.state().group_epoch == epoch + 1);
  beat(TopicNames{"a", "b"});  // a new subscription records b's count
  CHECK(c.state().group_epoch == epoch + 2);
  CHECK(c.state().subscribed_metadata == Metadata{{"a", 4}, {"b", 3}});
  cluster["b"] = 5;
  ++version;
  beat(TopicNames{"a", "b"});
  CHECK(c.state().group_epoch == epoch + 3);
  CHECK(c.state().subscribed_metadata == Metadata{{"a", 4}, {"b", 5}});
}

// scenarios/kip848-add-partitions.yaml: the topic grows from 100 to 1,000
// partitions at 202 s. A classic leader notices at its next metadata refresh
// (metadata.max.age.ms: 300 s after it joined, so at 300 s) and only then
// rebalances; the KIP-848 coordinator notices at the first heartbeat after
// the change and every member takes its new partitions at its own next
// heartbeat: within one heartbeat interval (5 s).
TEST_CASE("consumer: added partitions are assigned within a heartbeat interval, classic waits for a metadata refresh") {
  const auto s = scenario::load_file(std::string(RSIM_SOURCE_DIR) + "/scenarios/kip848-add-partitions.yaml");
  auto time_to_stable = [&](const char* protocol, const char* assignor) {
    scenario::RunOptions o;
    o.protocol = protocol;
    o.assignor = assignor;
    const auto m = metrics::summarize(s, scenario::run(s, o));
    CHECK_FALSE(m.violation);
    CHECK(m.stop_the_world <= Duration{600'000});
    return m.time_to_stable;
  };
  const Duration consumer = time_to_stable("consumer", "uniform");
  const Duration cooperative = time_to_stable("cooperative", "cooperative-sticky");
  const Duration eager = time_to_stable("eager", "range");
  CHECK(consumer <= Duration{5'000'000});
  CHECK(cooperative >= Duration{98'000'000});  // 300 s - 202 s, then the rebalance
  CHECK(eager >= Duration{98'000'000});
  CHECK(cooperative > 20 * consumer);
}

// scenarios/rolling-upgrade.yaml: the rolling-bounce group, cooperative,
// upgraded member by member to the consumer protocol. c000 leaves at 30 s
// and the classic group rebalances without it; when c000 is back speaking
// the new protocol the group is converted (at the classic generation) and
// the other nine, still classic, keep working through JoinGroup/SyncGroup
// against the consumer group's coordinator until their turn.
TEST_CASE("consumer: a rolling upgrade from cooperative converts the group and never gives a partition to two members") {
  const auto x = testing::run_bundled("scenarios/rolling-upgrade.yaml");
  if (x.m.violation) FAIL(metrics::describe(*x.m.violation));
  CHECK(x.m.stop_the_world == Duration{0});
  std::size_t owned = 0;
  for (const auto& [member, rs] : x.m.final_assignment) owned += rs.size();
  CHECK(owned == 24);
  int conversions = 0;
  std::optional<Time> converted;
  std::set<std::string> classic_after, consumer_joins;
  std::map<std::string, bool> speaks_classic;  // a classic JoinGroup response names the leader
  for (const auto& ev : x.r.trace.events()) {
    if (ev.kind == "joined") speaks_classic[ev.actor] = ev.text("leader") != nullptr;
    if (ev.kind == "converted") {
      ++conversions;
      converted = ev.at;
      CHECK(ev.integer("epoch") == 2);  // the classic generation it continues
    }
    // A classic member's assignment given by the consumer group's
    // coordinator after the conversion: a classic member working in the
    // converted group.
    if (converted && ev.kind == "assigned" && speaks_classic[ev.actor] && !ev.list("resources")->empty())
      classic_after.insert(ev.actor);
    if (ev.kind == "joined" && !speaks_classic[ev.actor]) consumer_joins.insert(ev.actor);
  }
  CHECK(conversions == 1);
  CHECK(classic_after.size() >= 3);
  CHECK(consumer_joins.size() == 10);  // every member ends speaking the consumer protocol
  // Each step is over when its member is back (10 s down) and the group has
  // settled with it: 20.05 s at the longest.
  CHECK(x.m.time_to_stable < Duration{25'000'000});
}

// The way back and the policy. A is upgraded at 10 s (back at 15 s: the
// classic group, Stable at generation 2 without it, is converted); when A
// leaves at 60 s only classic members remain and, under the default policy
// (bidirectional), the group turns classic again at group epoch 4 and its
// members rejoin (generation 5). Under `disabled`, A's first heartbeat is
// answered GROUP_ID_NOT_FOUND ("not a consumer group"), fatal for the
// consumer: it stops (GroupMetadataManager.getOrMaybeCreateConsumerGroup).
TEST_CASE("consumer: the group turns classic again when its last consumer member leaves, as the policy allows") {
  const std::string text = R"(
name: migration-back
duration: 3m
protocol: cooperative
config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000, group.consumer.heartbeat.interval.ms: 3000POLICY}
topics: [{name: T, partitions: 6}]
members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}, {id: C, subscribe: [T]}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3], C: [T-4, T-5]}
events:
  - {at: 10s, upgrade: [A], to: consumer, down: 5s}
  - {at: 60s, leave: A}
)";
  auto with_policy = [&](const std::string& policy) {
    std::string t = text;
    t.replace(t.find("POLICY"), 6, policy.empty() ? "" : ", group.consumer.migration.policy: " + policy);
    return testing::run(t);
  };
  auto conversions = [](const testing::Run& x) {
    std::string out;
    for (const auto& ev : x.r.trace.events())
      if (ev.kind == "converted" || ev.kind == "fatal")
        out += fmt::format("{} {} {}\n", format_time(ev.at), ev.kind, ev.text("from") ? *ev.text("from") : *ev.text("error"));
    return out;
  };
  const auto both = with_policy("");
  // The conversion happens when A's first heartbeat reaches the coordinator.
  CHECK(conversions(both) == "15.001s converted classic\n60.001s converted consumer\n");
  CHECK(testing::timeline(both.r, {"generation"}, false).find("60.019s coordinator generation g5") != std::string::npos);
  CHECK_FALSE(both.m.violation);
  // Upgrade only: the group stays a consumer group with classic members.
  const auto up = with_policy("upgrade");
  CHECK(conversions(up) == "15.001s converted classic\n");
  CHECK_FALSE(up.m.violation);
  const auto off = with_policy("disabled");
  CHECK(conversions(off) == "15.002s fatal GROUP_ID_NOT_FOUND\n");
  CHECK(off.m.final_assignment.count("A") == 0);
  std::size_t owned = 0;
  for (const auto& [member, rs] : off.m.final_assignment) owned += rs.size();
  CHECK(owned == 6);
}

// A static member's clean shutdown is a leave with epoch -2: the coordinator
// keeps it and its assignment (no new group epoch); back within the session
// timeout under a new member id with the same instance id, it takes the old
// member's place and gets T-0 and T-1 back. Nobody else moves.
TEST_CASE("consumer: a static member restarting within its session timeout gets its partitions back without a new epoch") {
  const auto x = testing::run(R"(
name: kip848-static
duration: 60s
protocol: consumer
topics: [{name: T, partitions: 4}]
members: [{id: A, subscribe: [T], instance-id: a}, {id: B, subscribe: [T], instance-id: b}]
initial-assignment: {A: [T-0, T-1], B: [T-2, T-3]}
events: [{at: 12s, restart: A, down: 10s}]
)");
  CHECK(testing::timeline(x.r, {"generation", "member-left-static", "member-replaced", "assigned"}, false) ==
        testing::joined({
            "0.000s coordinator generation g1",
            "0.000s A assigned g1 [T-0,T-1]",
            "0.000s B assigned g1 [T-2,T-3]",
            "12.001s coordinator member-left-static",
            "22.001s coordinator member-replaced",
            "22.002s A assigned g1 [T-0,T-1]",
        }));
  CHECK(x.m.moves == 0);
  CHECK(x.m.final_generation == 1);
  // While A is away, C joins (group epoch 2) and the target gives it T-2 of
  // A's. A comes back at the epoch of the assignment it kept (1), so
  // reconciliation moves it on: epoch 2 with T-0 and T-1, and T-2 goes to C
  // at C's next heartbeat.
  const auto y = testing::run(R"(
name: kip848-static-moved
duration: 90s
protocol: consumer
topics: [{name: T, partitions: 6}]
members: [{id: A, subscribe: [T], instance-id: a}, {id: B, subscribe: [T], instance-id: b}]
initial-assignment: {A: [T-0, T-1, T-2], B: [T-3, T-4, T-5]}
events: [{at: 12s, restart: A, down: 10s}, {at: 15s, join: C, subscribe: [T]}]
)");
  CHECK(testing::timeline(y.r, {"member-replaced", "assigned"}, false).find(
            "22.001s coordinator member-replaced\n22.002s A assigned g2 [T-0,T-1]\n25.004s C assigned g2 [T-2]\n") !=
        std::string::npos);
  CHECK(y.m.final_assignment.at("C") == std::vector<std::string>{"T-2", "T-5"});
  CHECK_FALSE(y.m.violation);
}

// The compacted log replays to the image the whole log replays to, whatever
// the order of writes and tombstones, and holds one record per live key.
TEST_CASE("consumer: the coordinator's compacted log replays as the whole log does") {
  std::uint64_t x = 88172645463325252ULL;  // xorshift64: the draws, no std distributions
  auto next = [&x](std::uint64_t n) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x % n;
  };
  const std::vector<std::string> ids{"a", "b", "c", "d"};
  auto partitions = [&] {
    protocols::consumer::Partitions::Assignment a;
    for (int p = 0; p < 6; ++p)
      if (next(2) == 0) a.insert(protocols::TopicPartition{protocols::Topic("T"), p});
    return a;
  };
  for (int round = 0; round < 50; ++round) {
    std::vector<protocols::consumer::Record> whole;
    protocols::epoch::CompactedLog<protocols::consumer::Partitions> compacted;
    for (int i = 0; i < 400; ++i) {
      const std::string& id = ids[next(ids.size())];
      const protocols::consumer::Record r = [&]() -> protocols::consumer::Record {
      switch (next(6)) {
        case 0: return protocols::epoch::GroupEpochRecord<protocols::consumer::Partitions>{i, {{"T", static_cast<int>(next(9))}}};
        case 1: {
          protocols::consumer::MemberMetadata m;
          m.member_id = id;
          m.client_id = id + std::to_string(next(3));
          return protocols::epoch::MemberMetadataRecord<protocols::consumer::Partitions>{m};
        }
        case 2: return protocols::epoch::TargetAssignmentRecord<protocols::consumer::Partitions>{id, partitions()};
        case 3: return protocols::epoch::TargetEpochRecord{i};
        case 4: {
          protocols::epoch::CurrentAssignment<protocols::consumer::Partitions::Assignment> c;
          c.epoch = i;
          c.assigned = partitions();
          c.revoking = partitions();
          return protocols::epoch::CurrentAssignmentRecord<protocols::consumer::Partitions>{id, c};
        }
        default: return protocols::epoch::MemberTombstone{id};
      }
      }();
      whole.push_back(r);
      compacted.append(r);
      CHECK(compacted.back().index() == whole.back().index());  // back() is what was just written
    }
    CAPTURE(round);
    const auto kept = compacted.records();
    CHECK(protocols::epoch::replay(kept) == protocols::epoch::replay(whole));
    CHECK(kept.size() <= 2 + 4 * ids.size());  // two epochs, and per member three kinds and a tombstone
  }
  // And it can fail: a log missing its last tombstone replays differently.
  std::vector<protocols::consumer::Record> log{protocols::epoch::TargetAssignmentRecord<protocols::consumer::Partitions>{"a", partitions()},
                                    protocols::epoch::MemberTombstone{"a"}};
  protocols::epoch::CompactedLog<protocols::consumer::Partitions> c;
  c.append(log[0]);
  CHECK_FALSE(protocols::epoch::replay(c.records()) == protocols::epoch::replay(log));
}

// The coordinator counts holders from what append tells it: the member's
// current assignment that a current-assignment record or a tombstone
// replaces, through compactions (which move records in place), and nothing
// for other records; current_of agrees after each write. Half the current
// records are written through the member's position (set at its first
// write, forgotten at its tombstone), which must reach the same record.
TEST_CASE("consumer: the compacted log tells each write the current assignment it replaces") {
  using Current = protocols::epoch::CurrentAssignment<protocols::consumer::Partitions::Assignment>;
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;  // xorshift64
  auto next = [&x](std::uint64_t n) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x % n;
  };
  const std::vector<std::string> ids{"a", "b", "c"};
  protocols::epoch::CompactedLog<protocols::consumer::Partitions> log;
  std::map<std::string, Current> latest;  // the model: each member's current since its tombstone
  std::map<std::string, protocols::epoch::CompactedLog<protocols::consumer::Partitions>::Position> positions;
  int told = 0, tombstones_told = 0, by_position = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string& id = ids[next(ids.size())];
    protocols::consumer::Record r;
    switch (next(4)) {
      case 0: r = protocols::epoch::TargetAssignmentRecord<protocols::consumer::Partitions>{id, {}}; break;
      case 1: r = protocols::epoch::TargetEpochRecord{i}; break;
      case 2: {
        Current c;
        c.epoch = i;
        c.assigned.insert(protocols::TopicPartition{protocols::Topic("T"), static_cast<int>(next(5))});
        r = protocols::epoch::CurrentAssignmentRecord<protocols::consumer::Partitions>{id, c};
        break;
      }
      default: r = protocols::epoch::MemberTombstone{id};
    }
    const bool current = std::holds_alternative<protocols::epoch::CurrentAssignmentRecord<protocols::consumer::Partitions>>(r);
    const bool tombstone = std::holds_alternative<protocols::epoch::MemberTombstone>(r);
    const auto was = latest.find(id);
    int calls = 0;
    auto replacing = [&](const protocols::consumer::Record& incoming, const Current* before) {
      ++calls;
      CHECK(incoming.index() == r.index());
      CHECK((before != nullptr) == (was != latest.end()));
      if (before != nullptr && was != latest.end()) CHECK(before->epoch == was->second.epoch);
    };
    if (current && next(2) == 0) {
      by_position += positions[id] != nullptr ? 1 : 0;
      log.append(r, replacing, &positions[id]);
      REQUIRE(positions[id] != nullptr);
    } else {
      log.append(r, replacing);
    }
    if (tombstone) positions.erase(id);
    CAPTURE(i);
    CHECK(calls == (current || tombstone ? 1 : 0));
    told += current ? calls : 0;
    tombstones_told += tombstone ? calls : 0;
    if (current) latest[id] = std::get<protocols::epoch::CurrentAssignmentRecord<protocols::consumer::Partitions>>(r).current;
    if (tombstone) latest.erase(id);
    for (const auto& m : ids) {
      const Current* logged = log.current_of(m);
      const auto it = latest.find(m);
      REQUIRE((logged != nullptr) == (it != latest.end()));
      if (logged != nullptr) CHECK(logged->epoch == it->second.epoch);
      if (const auto p = positions.find(m); p != positions.end()) CHECK(&log.current_at(p->second) == logged);
    }
  }
  CHECK(told > 500);  // both kinds were told, many times over many compactions
  CHECK(tombstones_told > 500);
  CHECK(by_position > 100);  // and writes through a kept position, many
}
}
