#include "protocols/streams/group.hpp"

#include "protocols/epoch/group_impl.hpp"

#include <algorithm>

namespace rsim::protocols::streams {

namespace {
const TaskSet& role_set(const TasksTuple& t, Role r) {
  return r == Role::Active ? t.active : r == Role::Standby ? t.standby : t.warmup;
}
TaskSet& role_set(TasksTuple& t, Role r) {
  return r == Role::Active ? t.active : r == Role::Standby ? t.standby : t.warmup;
}
constexpr Role kRoles[] = {Role::Active, Role::Standby, Role::Warmup};
}  // namespace

std::uint64_t StreamsHolders::key(const TaskId& t) {
  return (static_cast<std::uint64_t>(t.subtopology.id()) << 32) | static_cast<std::uint32_t>(t.partition);
}

// One merge walk per role set: only the tasks that differ touch the counts
// (a member's record is rewritten at every epoch, mostly with the same
// tasks). A count back to zero is dropped: the tables hold what is held
// now, not every process each task ever visited (which grows with the run).
void StreamsHolders::change(std::uint32_t process, const TaskSet& before, const TaskSet& after, bool active) {
  auto bump = [](auto& counts, const auto& k, std::int64_t delta) {
    const auto it = counts.try_emplace(k, 0).first;
    it->second = static_cast<std::uint32_t>(static_cast<std::int64_t>(it->second) + delta);
    if (it->second == 0) counts.erase(it);
  };
  auto add = [&](const TaskId& t, std::int64_t delta) {
    if (active) bump(active_, key(t), delta);
    bump(in_process_, ProcessTask{process, key(t)}, delta);
  };
  if (before == after) return;  // the common case, compared at memory speed
  auto b = before.begin();
  auto a = after.begin();
  while (b != before.end() || a != after.end()) {
    if (a == after.end() || (b != before.end() && *b < *a)) {
      add(*b++, -1);
    } else if (b == before.end() || *a < *b) {
      add(*a++, +1);
    } else {
      ++a;
      ++b;
    }
  }
}

void StreamsHolders::change(std::uint32_t process, const Current& before, const Current& after) {
  for (auto part : {&Current::assigned, &Current::revoking})
    for (Role r : kRoles) change(process, role_set(before.*part, r), role_set(after.*part, r), r == Role::Active);
}

void StreamsHolders::record(const std::string& member_id, const MemberView* live, const Current* before,
                            const Current* after) {
  static const Current kNone{};
  const auto counted = process_of_.find(member_id);
  const std::uint32_t was = counted != process_of_.end() ? counted->second : Name().id();
  if (before == nullptr || counted == process_of_.end()) before = &kNone;
  if (after == nullptr) {
    change(was, *before, kNone);
    if (counted != process_of_.end()) process_of_.erase(counted);
    return;
  }
  const std::uint32_t process = live != nullptr ? Name(live->process_id).id() : was;
  if (process == was) {
    change(process, *before, *after);
  } else {  // counted under another process (not expected: a member id keeps its process)
    change(was, *before, kNone);
    change(process, kNone, *after);
  }
  if (counted != process_of_.end()) counted->second = process;
  else process_of_.emplace(member_id, process);
}

void StreamsHolders::rebuild(const epoch::CompactedLog<StreamsTasks>& log,
                             const std::map<std::string, MemberView>& members) {
  active_.clear();
  in_process_.clear();
  process_of_.clear();
  log.for_each_current([&](const std::string& member_id, const Current& c) {
    const auto live = members.find(member_id);
    record(member_id, live == members.end() ? nullptr : &live->second, nullptr, &c);
  });
}

bool StreamsHolders::held_by_other(const MemberView& asker, const Current* logged, const RoleTask& unit) const {
  const std::uint64_t task = key(unit.task);
  auto in = [](const auto& map, const auto& k) -> std::uint32_t {
    const auto it = map.find(k);
    return it == map.end() ? 0 : it->second;
  };
  if (unit.role == Role::Active) {
    std::uint32_t mine = 0;
    if (logged != nullptr) mine = static_cast<std::uint32_t>(logged->assigned.active.count(unit.task) + logged->revoking.active.count(unit.task));
    if (in(active_, task) > mine) return true;
  }
  const std::uint32_t process = Name(asker.process_id).id();
  std::uint32_t mine = 0;
  const auto counted = process_of_.find(asker.member_id);
  if (logged != nullptr && counted != process_of_.end() && counted->second == process)
    for (const TasksTuple* x : {&logged->assigned, &logged->revoking})
      for (Role r : kRoles) mine += static_cast<std::uint32_t>(role_set(*x, r).count(unit.task));
  if (in(in_process_, ProcessTask{process, task}) > mine) return true;
  return StreamsTasks::unreleased(asker, asker, unit);
}

TasksTuple StreamsTasks::merge(TasksTuple keep, const TasksTuple& add) {
  for (Role r : kRoles) role_set(keep, r).insert(role_set(add, r).begin(), role_set(add, r).end());
  return keep;
}

bool StreamsTasks::owns_any(const TasksTuple& owned, const TasksTuple& revoking) {
  for (Role r : kRoles)
    for (const auto& t : role_set(revoking, r))
      if (has(role_set(owned, r), t)) return true;
  return false;
}

bool StreamsTasks::within(const TasksTuple& owned, const TasksTuple& assigned, const TasksTuple& revoking) {
  for (Role r : kRoles)
    for (const auto& t : role_set(owned, r))
      if (!has(role_set(assigned, r), t) && !has(role_set(revoking, r), t)) return false;
  return true;
}

std::vector<RoleTask> units_of(const TasksTuple& t) {
  std::vector<RoleTask> out;
  for (Role r : kRoles)
    for (const auto& task : role_set(t, r)) out.push_back({r, task});
  return out;  // sorted: roles in order, tasks sorted within each
}

std::vector<RoleTask> StreamsTasks::units(const TasksTuple& t) { return units_of(t); }

TasksTuple tuple_of(const std::vector<RoleTask>& units) {
  TasksTuple t;
  for (const auto& u : units) role_set(t, u.role).insert(u.task);
  return t;
}

}  // namespace rsim::protocols::streams

namespace rsim::protocols::epoch {
template class EpochGroup<streams::StreamsTasks>;
}
