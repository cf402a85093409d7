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

TasksTuple tuple_of(const std::vector<RoleTask>& units) {
  TasksTuple t;
  for (const auto& u : units) role_set(t, u.role).insert(u.task);
  return t;
}

}  // namespace rsim::protocols::streams

namespace rsim::protocols::epoch {
template class EpochGroup<streams::StreamsTasks>;
}
