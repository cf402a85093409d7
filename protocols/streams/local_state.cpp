#include "protocols/streams/local_state.hpp"

#include <algorithm>
#include <utility>

namespace rsim::protocols::streams {

LocalState::LocalState(StateCosts costs, std::set<std::string> stateful_subtopologies, Duration cleanup_delay)
    : costs_(costs), cleanup_delay_(cleanup_delay) {
  for (const auto& id : stateful_subtopologies) stateful_.push_back(SubtopologyId(id).id());
  std::sort(stateful_.begin(), stateful_.end());
}

LocalState::Directory* LocalState::directory(const std::string& process) const {
  if (last_ != nullptr && *last_process_ == process) return last_;
  const auto p = directories_.find(process);
  if (p == directories_.end()) return nullptr;
  last_process_ = &p->first;
  last_ = const_cast<Directory*>(&p->second);  // the map's own node: directories_ is ours to change
  return last_;
}

LocalState::Directory& LocalState::directory_for(const std::string& process) {
  if (Directory* d = directory(process)) return *d;
  const auto p = directories_.try_emplace(process).first;
  last_process_ = &p->first;
  last_ = &p->second;
  return *last_;
}

Duration LocalState::restore_time(std::uint64_t bytes) const {
  if (bytes == 0 || costs_.restore_rate == 0) return Duration{0};
  // Microseconds, rounded up; bytes * 1e6 stays within 64 bits up to 18 TB.
  const std::uint64_t us = (bytes / costs_.restore_rate) * 1'000'000 +
                           ((bytes % costs_.restore_rate) * 1'000'000 + costs_.restore_rate - 1) / costs_.restore_rate;
  return Duration{static_cast<std::int64_t>(us)};
}

const LocalState::Copy* LocalState::find(const std::string& process, const TaskId& t, Time now) const {
  const Directory* d = directory(process);
  if (d == nullptr) return nullptr;
  const auto c = d->copies.find(t);
  return c == d->copies.end() || deleted(*d, c->second, now) ? nullptr : &c->second;
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
  Directory& d = directory_for(process);
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
  Directory& d = directory_for(process);
  const auto [it, fresh] = d.copies.try_emplace(t);  // a deleted copy not swept yet is reused, as none
  Copy& c = it->second;
  const std::uint64_t behind = lag_of(fresh || deleted(d, c, taken) ? nullptr : &c, taken);
  if (c.maintainers++ > 0) return std::max(start, c.caught_up_at);  // another thread of the process has it
  c.caught_up_at = later(start, restore_time(behind));
  c.restore_from = start;
  c.restore_bytes = behind;
  return c.caught_up_at;
}

void LocalState::seed(const std::string& process, const TaskId& t) {
  if (!stateful(t)) return;
  Copy& c = directory_for(process).copies[t];
  ++c.maintainers;
  c.caught_up_at = Time{};
}

void LocalState::release(const std::string& process, const TaskId& t, Time now, const std::string& holder) {
  Directory* d = directory(process);
  if (d == nullptr) return;
  const auto found = d->copies.find(t);
  if (found == d->copies.end() || found->second.maintainers == 0) return;
  Copy& c = found->second;
  if (c.maintainers > 1) {
    --c.maintainers;
    return;
  }
  // A restoration cut short stays behind (maintained: not deleted).
  const std::uint64_t behind = stateful(t) ? lag_of(&c, now) : 0;
  c.maintainers = 0;
  c.behind_bytes = behind;
  c.left_at = now;
  c.released_by = holder;
  sweep(*d, now);
}

std::vector<std::pair<TaskId, std::uint64_t>> LocalState::released_copies(const std::string& process,
                                                                          const std::string& holder, Time now) const {
  std::vector<std::pair<TaskId, std::uint64_t>> out;
  const Directory* d = directory(process);
  if (d == nullptr) return out;
  for (const auto& [t, c] : d->copies) {
    if (c.maintainers > 0 || deleted(*d, c, now)) continue;
    if (c.released_by.empty() || c.released_by == holder) out.emplace_back(t, stateful(t) ? lag_of(&c, now) : 0);
  }
  return out;
}

}  // namespace rsim::protocols::streams
