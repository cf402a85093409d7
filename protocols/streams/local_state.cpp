#include "protocols/streams/local_state.hpp"

#include <algorithm>
#include <utility>

namespace rsim::protocols::streams {

LocalState::LocalState(StateCosts costs, std::set<std::string> stateful_subtopologies)
    : costs_(costs), stateful_(std::move(stateful_subtopologies)) {}

Duration LocalState::restore_time(std::uint64_t bytes) const {
  if (bytes == 0 || costs_.restore_rate == 0) return Duration{0};
  // Microseconds, rounded up; bytes * 1e6 stays within 64 bits up to 18 TB.
  const std::uint64_t us = (bytes / costs_.restore_rate) * 1'000'000 +
                           ((bytes % costs_.restore_rate) * 1'000'000 + costs_.restore_rate - 1) / costs_.restore_rate;
  return Duration{static_cast<std::int64_t>(us)};
}

const LocalState::Copy* LocalState::find(const std::string& process, const TaskId& t) const {
  const auto p = copies_.find(process);
  if (p == copies_.end()) return nullptr;
  const auto c = p->second.find(t);
  return c == p->second.end() ? nullptr : &c->second;
}

LocalState::Copy* LocalState::find(const std::string& process, const TaskId& t) {
  return const_cast<Copy*>(std::as_const(*this).find(process, t));
}

std::uint64_t LocalState::lag(const std::string& process, const TaskId& t, Time now) const {
  if (!stateful(t)) return 0;
  const Copy* found = find(process, t);
  if (found == nullptr) return costs_.state_bytes;
  const Copy& c = *found;
  if (c.maintainers > 0) {
    if (now >= c.caught_up_at) return 0;
    const auto left = std::chrono::duration_cast<std::chrono::microseconds>(c.caught_up_at - now).count();
    return std::min(costs_.state_bytes, static_cast<std::uint64_t>(left) * costs_.restore_rate / 1'000'000);
  }
  const auto idle = std::chrono::duration_cast<std::chrono::microseconds>(now - c.left_at).count();
  const std::uint64_t grown = static_cast<std::uint64_t>(idle) / 1'000 * costs_.changelog_rate / 1'000;
  return std::min(costs_.state_bytes, c.behind_bytes + grown);
}

Time LocalState::maintain(const std::string& process, const TaskId& t, Time start) {
  if (!stateful(t)) return start;
  const std::uint64_t behind = lag(process, t, start);
  Copy& c = copies_[process][t];
  if (c.maintainers++ > 0) return std::max(start, c.caught_up_at);  // another thread of the process has it
  c.caught_up_at = later(start, restore_time(behind));
  return c.caught_up_at;
}

void LocalState::seed(const std::string& process, const TaskId& t) {
  if (!stateful(t)) return;
  Copy& c = copies_[process][t];
  ++c.maintainers;
  c.caught_up_at = Time{};
}

void LocalState::release(const std::string& process, const TaskId& t, Time now, const std::string& holder) {
  Copy* found = find(process, t);
  if (found == nullptr || found->maintainers == 0) return;
  if (found->maintainers > 1) {
    --found->maintainers;
    return;
  }
  const std::uint64_t behind = lag(process, t, now);  // a restoration cut short stays behind
  Copy& c = *found;
  c.maintainers = 0;
  c.behind_bytes = behind;
  c.left_at = now;
  c.released_by = holder;
}

const std::string* LocalState::released_by(const std::string& process, const TaskId& t) const {
  const Copy* c = find(process, t);
  if (c == nullptr || c->maintainers > 0) return nullptr;
  return &c->released_by;
}

std::vector<TaskId> LocalState::copies_at(const std::string& process) const {
  std::vector<TaskId> out;
  if (const auto p = copies_.find(process); p != copies_.end())
    for (const auto& [t, c] : p->second) out.push_back(t);
  return out;
}

}  // namespace rsim::protocols::streams
