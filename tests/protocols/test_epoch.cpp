// The epoch-group core over an assignment type other than topic-partitions:
// a Streams-like pair of task sets (active, standby) whose members share
// processes, so the Streams group is an instantiation, not a copy. Checks
// revoke-before-assign, Kafka's isUnreleasedTask rules (an active task waits
// for every other owner; any copy waits for the asker's own process), the
// group and member epochs, and the log replay.
#include "protocols/epoch/group_impl.hpp"

#include <doctest/doctest.h>

#include <optional>
#include <set>
#include <string>

using namespace rsim;
using namespace std::chrono_literals;
namespace epoch = rsim::protocols::epoch;

// A named namespace, not an anonymous one: the explicit instantiation below
// then has external linkage, and its members unused here draw no warning.
namespace epoch_test {

struct ToyTasks {
  struct Tuple {
    std::set<int> active, standby;
    friend bool operator==(const Tuple&, const Tuple&) = default;
  };
  struct Unit {
    int task;
    bool active;
  };
  struct MemberMetadata {
    std::string member_id, client_id;
    std::optional<std::string> instance_id;
    Duration rebalance_timeout{0};
    std::string process_id;
    friend bool operator==(const MemberMetadata&, const MemberMetadata&) = default;
  };
  using Assignment = Tuple;
  using Owned = Tuple;
  using GroupMetadata = int;
  static std::vector<Unit> units(const Tuple& t) {
    std::vector<Unit> out;
    for (int a : t.active) out.push_back({a, true});
    for (int s : t.standby) out.push_back({s, false});
    return out;
  }

  template <class Held>
  static epoch::Step<Tuple> step(const Tuple& assigned, const Tuple& target, const Held& held) {
    auto a = epoch::split(assigned.active, target.active, [&](int t) { return held(Unit{t, true}); });
    auto s = epoch::split(assigned.standby, target.standby, [&](int t) { return held(Unit{t, false}); });
    return {{a.keep, s.keep}, {a.revoke, s.revoke}, {a.add, s.add}, a.withheld || s.withheld};
  }
  static bool has(const Tuple& t, int task) { return t.active.count(task) != 0 || t.standby.count(task) != 0; }
  template <class M>
  static bool unreleased(const M& other, const M& asker, Unit u) {
    if (u.active && (other.assigned.active.count(u.task) != 0 || other.revoking.active.count(u.task) != 0)) return true;
    return other.process_id == asker.process_id && (has(other.assigned, u.task) || has(other.revoking, u.task));
  }
  static bool empty(const Tuple& t) { return t.active.empty() && t.standby.empty(); }
  static Tuple merge(Tuple keep, const Tuple& add) {
    keep.active.insert(add.active.begin(), add.active.end());
    keep.standby.insert(add.standby.begin(), add.standby.end());
    return keep;
  }
  static bool owns_any(const Tuple& owned, const Tuple& revoking) {
    for (int t : revoking.active)
      if (owned.active.count(t) != 0) return true;
    for (int t : revoking.standby)
      if (owned.standby.count(t) != 0) return true;
    return false;
  }
  static bool within(const Tuple& owned, const Tuple& assigned, const Tuple& revoking) {
    return merge(assigned, revoking) == merge(merge(assigned, revoking), owned);
  }
};

using Tuple = ToyTasks::Tuple;

// The protocol layer a Streams coordinator would be: members and targets set
// by hand instead of a heartbeat and an assignor.
class ToyGroup final : public epoch::EpochGroup<ToyTasks> {
 public:
  ToyGroup(Kernel& kernel, Trace& trace) : EpochGroup(kernel, trace, 45s) {}
  std::map<std::string, Tuple> next_target;

  void join(const std::string& id, const std::string& process) {
    MemberView m;
    m.member_id = m.client_id = id;
    m.process_id = process;
    m.rebalance_timeout = 300s;
    add_member(m);
    bump_group_epoch("member joined");
  }
  const MemberView& heartbeat(const std::string& id, std::optional<Tuple> owned) { return advance(id, owned); }

 private:
  int group_metadata() const override { return 0; }
  std::vector<epoch::CoordinatorRecord> coordinator_records(const epoch::Record<ToyTasks>&, bool) const override { return {}; }
  std::optional<Targets> assign() override {
    Targets t;
    for (const auto& [id, m] : state_.members)
      if (keep_target.count(id) != 0) t.emplace_back(id, std::nullopt);
      else t.emplace_back(id, next_target[id]);
    return t;
  }

 public:
  std::set<std::string> keep_target;  // answered unset: the target stays
};

}  // namespace epoch_test

template class rsim::protocols::epoch::EpochGroup<epoch_test::ToyTasks>;
using namespace epoch_test;

namespace {
// The group's first member: a, on process P1, given active tasks 0 and 1.
void join_a(ToyGroup& g) {
  g.next_target["a"] = Tuple{{0, 1}, {}};
  g.join("a", "P1");
  CHECK(g.heartbeat("a", Tuple{}).assigned == Tuple{{0, 1}, {}});
}
}  // namespace

TEST_SUITE("protocols") {
TEST_CASE("epoch core: a task-set assignment reconciles as Streams' CurrentAssignmentBuilder does") {
  using epoch::MemberState;
  Kernel kernel;
  Trace trace;
  ToyGroup g(kernel, trace);
  join_a(g);

  // b (process P2) is to take active 1 and a standby of 0; c (also P2) is
  // to take that standby over from b later.
  g.next_target = {{"a", Tuple{{0}, {}}}, {"b", Tuple{{1}, {0}}}};
  g.join("b", "P2");
  const auto& b = g.heartbeat("b", Tuple{});
  CHECK(b.state == MemberState::UnreleasedPartitions);  // active 1 is still a's
  CHECK(b.assigned == Tuple{{}, {0}});                  // a standby on another process is free
  CHECK(b.epoch == 2);
  const auto& a = g.heartbeat("a", Tuple{{0, 1}, {}});
  CHECK(a.state == MemberState::UnrevokedPartitions);  // revoke first, at the old epoch
  CHECK(a.epoch == 1);
  CHECK(a.revoking == Tuple{{1}, {}});
  CHECK(g.heartbeat("b", Tuple{{}, {0}}).state == MemberState::UnreleasedPartitions);
  CHECK(g.heartbeat("a", Tuple{{0}, {}}).state == MemberState::Stable);  // released
  CHECK(g.heartbeat("b", Tuple{{}, {0}}).assigned == Tuple{{1}, {0}});

  g.next_target = {{"a", Tuple{{0}, {}}}, {"b", Tuple{{1}, {}}}, {"c", Tuple{{}, {0}}}};
  g.join("c", "P2");
  const auto& c = g.heartbeat("c", Tuple{});
  CHECK(c.state == MemberState::UnreleasedPartitions);  // b, on c's process, still has the standby
  CHECK(c.assigned == Tuple{});
  CHECK(g.heartbeat("b", Tuple{{1}, {0}}).state == MemberState::UnrevokedPartitions);

  ToyGroup rebuilt(kernel, trace);
  rebuilt.replay(g.log());
  CHECK(rebuilt.state() == g.state());

  CHECK(g.heartbeat("b", Tuple{{1}, {}}).state == MemberState::Stable);
  CHECK(g.heartbeat("c", Tuple{}).assigned == Tuple{{}, {0}});
  CHECK(g.state().group_epoch == 3);
  CHECK(g.state().target_epoch == 3);
}

// The shortcut for a member whose target did not change (most members at a
// new epoch): the answer the full step gives, whatever state it was in.
TEST_CASE("epoch core: a member whose target did not change moves to the target epoch, nothing kept back") {
  using epoch::MemberState;
  epoch::CurrentAssignment<Tuple> current;
  current.epoch = 3;
  current.previous_epoch = 2;
  current.state = MemberState::UnreleasedPartitions;
  current.assigned = Tuple{{0, 1}, {2}};
  current.revoking = Tuple{{5}, {}};
  auto never_called = [](const ToyTasks::Unit&) {
    FAIL("nothing to add: nobody is asked");
    return true;
  };
  const auto next = epoch::next_assignment<ToyTasks>(current, Tuple{{0, 1}, {2}}, 7, std::optional<Tuple>(Tuple{{0, 1, 5}, {2}}), never_called);
  CHECK(next.epoch == 7);
  CHECK(next.previous_epoch == 3);
  CHECK(next.state == MemberState::Stable);
  CHECK(next.assigned == Tuple{{0, 1}, {2}});
  CHECK(next.revoking == Tuple{});

  // One task more: the full step, the same epochs.
  const auto grown = epoch::next_assignment<ToyTasks>(current, Tuple{{0, 1, 3}, {2}}, 7, std::optional<Tuple>(Tuple{{0, 1}, {2}}),
                                                      [](const ToyTasks::Unit&) { return false; });
  CHECK(grown.epoch == 7);
  CHECK(grown.previous_epoch == 3);
  CHECK(grown.state == MemberState::Stable);
  CHECK(grown.assigned == Tuple{{0, 1, 3}, {2}});
  CHECK(grown.revoking == Tuple{});
}

TEST_CASE("epoch core: a target answered unset stays as it was, and its member still moves to the new epoch") {
  Kernel kernel;
  Trace trace;
  ToyGroup g(kernel, trace);
  join_a(g);
  // The next answer leaves a's target unset: what it would have said is not
  // taken.
  g.keep_target = {"a"};
  g.next_target = {{"a", Tuple{{0}, {}}}, {"b", Tuple{{1}, {}}}};
  g.join("b", "P2");
  const auto& a = g.heartbeat("a", Tuple{{0, 1}, {}});
  CHECK(g.state().target.at("a") == Tuple{{0, 1}, {}});
  CHECK(g.state().target.at("b") == Tuple{{1}, {}});
  CHECK(a.epoch == 2);
  CHECK(a.previous_epoch == 1);
  CHECK(a.assigned == Tuple{{0, 1}, {}});
  CHECK(a.state == epoch::MemberState::Stable);
  ToyGroup rebuilt(kernel, trace);
  rebuilt.replay(g.log());
  CHECK(rebuilt.state() == g.state());
}
}
