#include "sim/kernel.hpp"

#include <fmt/format.h>

#include <cassert>
#include <utility>

namespace rsim {

NoProgress::NoProgress(Time at, std::uint64_t events)
    : std::runtime_error(fmt::format("the simulation made no progress: {} events at {} without the clock moving "
                                     "(a timer that re-arms itself at once?)",
                                     events, format_time(at))),
      at_(at) {}

void Kernel::count_instant() {
  if (++at_instant_ > kMaxEventsAtOneInstant) throw NoProgress(now_, at_instant_);
}

EventId Kernel::schedule_at(Time at, Callback cb) {
  assert(at >= now_ && "events cannot be scheduled in the past");
  return queue_.schedule(at < now_ ? now_ : at, std::move(cb));
}

std::uint64_t Kernel::run_until(Time horizon) {
  std::uint64_t n = 0;
  while (queue_.has_next() && queue_.next_time() <= horizon) {
    if (queue_.next_time() != now_) at_instant_ = 0;
    queue_.run_next(now_);
    ++n;
    ++executed_;  // during an event: the events before it (what tells one event's work from the next's)
    count_instant();
  }
  if (horizon > now_) now_ = horizon;
  return n;
}

std::uint64_t Kernel::run(std::uint64_t max_events) {
  std::uint64_t n = 0;
  while (n < max_events && queue_.has_next()) {
    if (queue_.next_time() != now_) at_instant_ = 0;
    queue_.run_next(now_);
    ++n;
    ++executed_;
    count_instant();
  }
  return n;
}

void Timer::arm_at(Time at, Callback cb) {
  cancel();
  deadline_ = at;
  id_ = kernel_->schedule_at(at, std::move(cb));
}

void Timer::cancel() {
  if (id_.valid()) kernel_->cancel(id_);
  id_ = EventId{};
}

void SuspendableTimer::arm_in(Duration delay, Callback cb) {
  cb_ = std::move(cb);
  suspended_ = false;
  timer_.arm_in(delay, [this] { fire(); });
}

void SuspendableTimer::cancel() {
  timer_.cancel();
  cb_ = nullptr;
  suspended_ = false;
}

void SuspendableTimer::suspend() {
  if (!timer_.armed()) return;
  left_ = timer_.deadline() - kernel_->now();
  timer_.cancel();
  suspended_ = true;
}

void SuspendableTimer::resume() {
  if (!suspended_) return;
  suspended_ = false;
  timer_.arm_in(left_, [this] { fire(); });
}

void SuspendableTimer::fire() {
  Callback cb = std::move(cb_);
  cb_ = nullptr;
  cb();
}

}  // namespace rsim
