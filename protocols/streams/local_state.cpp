#include "protocols/streams/local_state.hpp"

#include <algorithm>
#include <utility>

namespace rsim::protocols::streams {

LocalState::LocalState(StateCosts costs, std::set<std::string> stateful_subtopologies, Duration cleanup_delay)
    : costs_(costs), stateful_(std::move(stateful_subtopologies)), cleanup_delay_(cleanup_delay) {}

Duration LocalState::restore_time(std::uint64_t bytes) const {
  if (bytes == 0 || costs_.restore_rate == 0) return Duration{0};
  // Microseconds, rounded up; bytes * 1e6 stays within 64 bits up to 18 TB.
  const std::uint64_t us = (bytes / costs_.restore_rate) * 1'000'000 +
                           ((bytes % costs_.restore_rate) * 1'000'000 + costs_.restore_rate - 1) / costs_.restore_rate;
  return Duration{static_cast<std::int64_t>(us)};
}

const LocalState::Copy* LocalState::find(const std::string& process, const TaskId& t, Time now) const {
  const auto p = directories_.find(process);
  if (p == directories_.end()) return nullptr;
  const auto c = p->second.copies.find(t);
  return c == p->second.copies.end() || deleted(p->second, c->second, now) ? nullptr : &c->second;
}

// The cleaner ticks at start + k x delay (k >= 1) within a run and deletes
// a copy let go more than one delay before the tick.
bool LocalState::deleted(const Directory& d, const Copy& c, Time now) const {
  if (c.maintainers > 0) return false;
  const Time stale_after = c.left_at + cleanup_delay_;
  for (auto r = d.runs.rbegin(); r != d.runs.rend() && r->end > stale_after; ++r) {
    const Duration since = stale_after - r->start;
    const std::int64_t k = since < Duration{0} ? 1 : since / cleanup_delay_ + 1;
    const Time tick = r->start + k * cleanup_delay_;
    if (tick <= r->end && tick <= now) return true;  // a tick at the instant it stops ran (as while it was up)
  }
  return false;
}

void LocalState::sweep(Directory& d, Time now) {
  if (d.copies.size() <= 2 * d.kept + 64) return;
  std::erase_if(d.copies, [&](const auto& entry) { return deleted(d, entry.second, now); });
  d.kept = d.copies.size();
  trim_runs(d, now);
}

// A run that ended before every copy kept (and every copy let go from now
// on) went stale cannot delete any.
void LocalState::trim_runs(Directory& d, Time now) {
  Time oldest = now;
  for (const auto& [t, c] : d.copies)
    if (c.maintainers == 0) oldest = std::min(oldest, c.left_at);
  const Time stale_after = oldest + cleanup_delay_;
  std::erase_if(d.runs, [&](const Run& r) { return r.end <= stale_after; });
  d.runs_kept = d.runs.size();
}

void LocalState::member_alive(const std::string& process, bool alive, Time now) {
  Directory& d = directories_[process];
  if (alive && d.alive++ == 0) {
    d.runs.push_back(Run{now});
    if (d.runs.size() > 2 * d.runs_kept + 8) trim_runs(d, now);  // a process bounced often
  }
  if (!alive && --d.alive == 0) d.runs.back().end = now;
}

std::uint64_t LocalState::lag(const std::string& process, const TaskId& t, Time now) const {
  if (!stateful(t)) return 0;
  return lag_of(find(process, t, now), now);
}

std::uint64_t LocalState::lag_of(const Copy* found, Time at) const {
  if (found == nullptr) return costs_.state_bytes;
  const Copy& c = *found;
  if (c.maintainers > 0) {
    if (at >= c.caught_up_at) return 0;
    // Queued behind other restorations, a copy is behind by what its own
    // restoration will read, not by the wait for its turn (Kafka reports a
    // restoring task's changelog position).
    if (at < c.restore_from) return c.restore_bytes;
    const auto left = std::chrono::duration_cast<std::chrono::microseconds>(c.caught_up_at - at).count();
    return std::min(c.restore_bytes, static_cast<std::uint64_t>(left) * costs_.restore_rate / 1'000'000);
  }
  const auto idle = std::chrono::duration_cast<std::chrono::microseconds>(at - c.left_at).count();
  const std::uint64_t grown = static_cast<std::uint64_t>(idle) / 1'000 * costs_.changelog_rate / 1'000;
  return std::min(costs_.state_bytes, c.behind_bytes + grown);
}

Time LocalState::maintain(const std::string& process, const TaskId& t, Time taken, Time start) {
  if (!stateful(t)) return start;
  const std::uint64_t behind = lag_of(find(process, t, taken), taken);
  Copy& c = directories_[process].copies[t];
  if (c.maintainers++ > 0) return std::max(start, c.caught_up_at);  // another thread of the process has it
  c.caught_up_at = later(start, restore_time(behind));
  c.restore_from = start;
  c.restore_bytes = behind;
  return c.caught_up_at;
}

void LocalState::seed(const std::string& process, const TaskId& t) {
  if (!stateful(t)) return;
  Copy& c = directories_[process].copies[t];
  ++c.maintainers;
  c.caught_up_at = Time{};
}

void LocalState::release(const std::string& process, const TaskId& t, Time now, const std::string& holder) {
  const auto d = directories_.find(process);
  if (d == directories_.end()) return;
  const auto found = d->second.copies.find(t);
  if (found == d->second.copies.end() || found->second.maintainers == 0) return;
  Copy& c = found->second;
  if (c.maintainers > 1) {
    --c.maintainers;
    return;
  }
  const std::uint64_t behind = lag(process, t, now);  // a restoration cut short stays behind
  c.maintainers = 0;
  c.behind_bytes = behind;
  c.left_at = now;
  c.released_by = holder;
  sweep(d->second, now);
}

std::vector<std::pair<TaskId, std::uint64_t>> LocalState::released_copies(const std::string& process,
                                                                          const std::string& holder, Time now) const {
  std::vector<std::pair<TaskId, std::uint64_t>> out;
  const auto p = directories_.find(process);
  if (p == directories_.end()) return out;
  for (const auto& [t, c] : p->second.copies) {
    if (c.maintainers > 0 || deleted(p->second, c, now)) continue;
    if (c.released_by.empty() || c.released_by == holder) out.emplace_back(t, stateful(t) ? lag_of(&c, now) : 0);
  }
  return out;
}

}  // namespace rsim::protocols::streams
