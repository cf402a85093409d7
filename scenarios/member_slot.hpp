// One member of the scenario over the run: its processes (the protocol it
// speaks now, and the one an upgrade restarts it as) and where it is in its
// lifecycle, across the down windows of bounces, restarts and upgrades.
#pragma once

#include "protocols/member_process.hpp"
#include "sim/kernel.hpp"
#include "sim/network.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rsim::scenario {

// One member of the scenario over the run: the process it is now, the one it
// restarts as after an upgrade, and where it is in its lifecycle. A process
// is down between a bounce (or restart, or upgrade) and its return; what the
// scenario does to the member meanwhile applies to that: a crash or leave
// cancels the return, another bounce or restart moves it, an upgrade changes
// what comes back.
class MemberSlot {
 public:
  MemberSlot(Kernel& kernel, protocols::MemberProcess& speaks, protocols::MemberProcess* upgraded)
      : current_(&speaks), upgraded_(upgraded), comeback_(kernel) {}

  protocols::MemberProcess& current() { return *current_; }
  // Told when the member's process comes up (started, back from a bounce)
  // and when it is gone (crashed, left): what lives with the process, such
  // as a Streams instance's state cleaner, follows.
  void on_alive(std::function<void(bool)> f) { on_alive_ = std::move(f); }
  // The process was started in the group (a group that starts stable).
  void started() { set_state(State::Running); }

  void start() {
    comeback_.cancel();
    after_stop_.reset();
    if (current_->running()) return;
    set_state(State::Running);
    current_->start();
  }
  void crash() {
    comeback_.cancel();
    after_stop_.reset();
    current_->crash();
    set_state(State::Down);
  }
  void leave() {
    after_stop_.reset();
    if (state_ == State::Running) {
      stop();
      return;
    }
    if (state_ == State::Returning) comeback_.cancel();
    if (state_ != State::Stopping) set_state(State::Down);
  }
  // A member that is gone (crashed or left, not coming back) stays gone: a
  // rolling bounce or restart reaching it has nothing to restart.
  void bounce(Duration down) {
    if (state_ == State::Down) return;
    current_->crash();
    return_after(down);
  }
  void restart(Duration down) { restart_as(current_, down); }
  void upgrade(Duration down) { restart_as(upgraded_, down); }
  // Every process of the member subscribes, so the next one starts with it.
  void subscribe(const std::vector<std::string>& topics) {
    if (upgraded_ != nullptr && upgraded_ != current_) upgraded_->subscribe(topics);
    current_->subscribe(topics);
  }

 private:
  enum class State { Down, Running, Stopping, Returning };
  static bool alive(State s) { return s == State::Running || s == State::Stopping; }
  void set_state(State next) {
    const bool was = alive(state_);
    state_ = next;
    if (on_alive_ && was != alive(next)) on_alive_(alive(next));
  }

  void stop() {
    set_state(State::Stopping);
    current_->leave([this] {
      if (after_stop_) return_after(*after_stop_);
      else set_state(State::Down);
      after_stop_.reset();
    });
  }
  void restart_as(protocols::MemberProcess* next, Duration down) {
    if (state_ == State::Down) return;
    next_ = next;
    if (state_ == State::Running) {
      after_stop_ = down;
      stop();
    } else if (state_ == State::Stopping) {
      after_stop_ = down;
    } else {
      return_after(down);
    }
  }
  void return_after(Duration down) {
    set_state(State::Returning);
    comeback_.arm_in(down, [this] {
      if (next_ != nullptr) current_ = std::exchange(next_, nullptr);
      set_state(State::Running);
      if (!current_->running()) current_->start();
    });
  }

  protocols::MemberProcess* current_;
  protocols::MemberProcess* upgraded_;          // what an upgrade restarts it as (KIP-848 consumer)
  protocols::MemberProcess* next_ = nullptr;    // what the pending return starts
  State state_ = State::Down;
  std::optional<Duration> after_stop_;  // a restart waiting for the leave to finish
  Timer comeback_;
  std::function<void(bool)> on_alive_;
};

}  // namespace rsim::scenario
