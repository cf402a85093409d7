#include "sim/kernel.hpp"

#include <cassert>
#include <utility>

namespace rsim {

EventId Kernel::schedule_at(Time at, Callback cb) {
  assert(at >= now_ && "events cannot be scheduled in the past");
  return queue_.schedule(at < now_ ? now_ : at, std::move(cb));
}

std::uint64_t Kernel::run_until(Time horizon) {
  std::uint64_t n = 0;
  while (queue_.has_next() && queue_.next_time() <= horizon) {
    queue_.run_next(now_);
    ++n;
  }
  executed_ += n;
  if (horizon > now_) now_ = horizon;
  return n;
}

std::uint64_t Kernel::run(std::uint64_t max_events) {
  std::uint64_t n = 0;
  while (n < max_events && queue_.has_next()) {
    queue_.run_next(now_);
    ++n;
  }
  executed_ += n;
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

}  // namespace rsim
