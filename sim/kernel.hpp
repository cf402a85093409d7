// The simulation kernel: one clock and one event queue, run single-threaded.
// Actors schedule callbacks; nothing else advances time.
#pragma once

#include "sim/event_queue.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <stdexcept>

namespace rsim {

// A run stuck in a loop at one instant (a timer that re-arms itself at once,
// forever) is stopped with this error instead of hanging.
class NoProgress : public std::runtime_error {
 public:
  NoProgress(Time at, std::uint64_t events);
  Time at() const { return at_; }

 private:
  Time at_;
};

class Kernel {
 public:
  // Events executed at one instant before the run is declared stuck: far
  // above what a 100,000-member group does at once.
  static constexpr std::uint64_t kMaxEventsAtOneInstant = 20'000'000;

  Time now() const { return now_; }

  EventId schedule_at(Time at, Callback cb);
  EventId schedule_in(Duration delay, Callback cb) { return schedule_at(later(now_, delay), std::move(cb)); }
  bool cancel(EventId id) { return queue_.cancel(id); }
  bool pending(EventId id) const { return queue_.pending(id); }

  // Runs every event with time <= horizon, then sets the clock to horizon.
  // Returns the number of events executed.
  std::uint64_t run_until(Time horizon);
  // Runs until the queue is empty or `max_events` have run.
  std::uint64_t run(std::uint64_t max_events = UINT64_MAX);

  std::uint64_t executed() const { return executed_; }
  std::size_t pending_count() const { return queue_.live_count(); }

 private:
  EventQueue queue_;
  void count_instant();

  Time now_ = kTimeZero;
  std::uint64_t executed_ = 0;
  std::uint64_t at_instant_ = 0;  // events executed since the clock last moved
};

// A re-armable timer (heartbeat, session expiry, join phase): arming it again
// cancels the previous deadline in O(1).
class Timer {
 public:
  explicit Timer(Kernel& kernel) : kernel_(&kernel) {}
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  ~Timer() { cancel(); }

  void arm_at(Time at, Callback cb);
  void arm_in(Duration delay, Callback cb) { arm_at(later(kernel_->now(), delay), std::move(cb)); }
  void cancel();
  bool armed() const { return kernel_->pending(id_); }
  Time deadline() const { return deadline_; }

 private:
  Kernel* kernel_;
  EventId id_;
  Time deadline_ = kTimeZero;
};

// A timer that can be suspended and resumed with the time it had left (a
// process frozen mid-task finishes the task that much later). It owns its
// callback, which may re-arm the timer.
class SuspendableTimer {
 public:
  explicit SuspendableTimer(Kernel& kernel) : kernel_(&kernel), timer_(kernel) {}

  void arm_in(Duration delay, Callback cb);
  void cancel();
  void suspend();
  void resume();
  bool active() const { return timer_.armed() || suspended_; }

 private:
  void fire();

  Kernel* kernel_;
  Timer timer_;
  Callback cb_;
  Duration left_{0};
  bool suspended_ = false;
};

}  // namespace rsim
