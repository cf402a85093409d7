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
  // The process was started in the group (a group that starts stable).
  void started() { state_ = State::Running; }

  void start() {
    comeback_.cancel();
    after_stop_.reset();
    if (current_->running()) return;
    state_ = State::Running;
    current_->start();
  }
  void crash() {
    comeback_.cancel();
    after_stop_.reset();
    current_->crash();
    state_ = State::Down;
  }
  void leave() {
    after_stop_.reset();
    if (state_ == State::Running) {
      stop();
      return;
    }
    if (state_ == State::Returning) comeback_.cancel();
    if (state_ != State::Stopping) state_ = State::Down;
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

  void stop() {
    state_ = State::Stopping;
    current_->leave([this] {
      if (after_stop_) return_after(*after_stop_);
      else state_ = State::Down;
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
    state_ = State::Returning;
    comeback_.arm_in(down, [this] {
      if (next_ != nullptr) current_ = std::exchange(next_, nullptr);
      state_ = State::Running;
      if (!current_->running()) current_->start();
    });
  }

  protocols::MemberProcess* current_;
  protocols::MemberProcess* upgraded_;          // what an upgrade restarts it as (KIP-848 consumer)
  protocols::MemberProcess* next_ = nullptr;    // what the pending return starts
  State state_ = State::Down;
  std::optional<Duration> after_stop_;  // a restart waiting for the leave to finish
  Timer comeback_;
};

}  // namespace rsim::scenario
