// What every member process has, whatever group protocol it speaks: a
// network node, its events in the trace, freezes (a GC pause, a stuck
// process) during which messages wait in the socket and timed work stands
// still, and the search for the group's coordinator after a failover
// (FindCoordinator to a bootstrap broker, every retry.backoff.ms).
#pragma once

#include "sim/kernel.hpp"
#include "sim/network.hpp"
#include "sim/trace.hpp"

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rsim::protocols {

// How a member finds the group's coordinator again (FindCoordinator to a
// bootstrap broker): Kafka's clients retry after ExponentialBackoff
// (retry.backoff.ms doubling up to retry.backoff.max.ms; the 20 % jitter is
// left out), and a request or answer lost on the way is noticed at
// request.timeout.ms.
struct CoordinatorLookup {
  NodeId bootstrap = 0;
  const bool* available = nullptr;  // whether the coordinator is up now
  Duration retry_backoff{100'000};
  Duration retry_backoff_max{1'000'000};
  Duration request_timeout{30'000'000};
};

class MemberProcess {
 public:
  MemberProcess(const MemberProcess&) = delete;
  MemberProcess& operator=(const MemberProcess&) = delete;
  NodeId node() const { return node_; }
  // The process freezes for `length` (a GC pause, a stuck poll loop); a
  // longer freeze extends the current one.
  void pause(Duration length) { freeze(length); }

  // The member lifecycle the scenario drives, whatever the protocol.
  virtual void start() = 0;
  virtual void crash() = 0;  // gone at once: no leave, no revocation
  // A clean stop (LeaveGroup after revoking); `on_stopped` when it is down.
  virtual void leave(std::function<void()> on_stopped = {}) = 0;
  // The poll loop processes batches of `batch` back to back for `length`.
  virtual void slow(Duration batch, Duration length) = 0;
  virtual void subscribe(std::vector<std::string> topics) = 0;
  virtual void coordinator_disconnected() = 0;
  virtual bool running() const = 0;
  virtual ~MemberProcess() = default;

 protected:
  // `node`: the network node to use (the processes one member is over time,
  // such as before and after an upgrade, share one); a new one if unset.
  MemberProcess(Kernel& kernel, Network& network, Trace& trace, std::string name, std::optional<NodeId> node);

  void emit(std::string kind, std::vector<TraceField> fields = {});
  void emit_routine(std::string kind, std::vector<TraceField> fields = {});  // see Trace::emit_routine
  // The process's network node comes up (a start) or goes down with it.
  void restart_node() { network_.restart(node_); }
  void crash_node() { network_.crash(node_); }
  // Runs `handler` now, or after the freeze if the process is frozen; never
  // if it is down.
  void on_message(Callback handler);
  void freeze(Duration length);
  bool paused() const { return paused_; }
  // A process starting or dying: no freeze, no waiting messages, no search.
  void reset_process();
  // The connection to the coordinator broke: look for it through the
  // bootstrap broker until it is back, then on_coordinator_found().
  void lose_coordinator(const CoordinatorLookup& lookup);
  bool coordinator_unknown() const { return coordinator_unknown_; }
  // Runs `work` after `cost` on `timer` (which a freeze suspends); a free
  // step runs at once, so nothing else can happen in between.
  static void after(SuspendableTimer& timer, Duration cost, Callback work) {
    if (cost == Duration{0}) work();
    else timer.arm_in(cost, std::move(work));
  }

  // max.poll.interval.ms since the last poll, for a poll loop that is busy
  // (a batch, a rebalance callback). Wall-clock time: it runs on while the
  // process is frozen, and the frozen heartbeat thread acts on it at the thaw
  // (on_thaw asks poll_deadline_passed_while_frozen() before heartbeating).
  void arm_poll_deadline(Duration max_poll_interval);
  void cancel_poll_deadline();
  bool poll_deadline_passed_while_frozen();

  // The application's poll loop: without `slow` it polls continuously; after
  // slow(batch, length) it processes batches of `batch` back to back for
  // `length`, each held to the poll deadline; a freeze suspends the batch.
  void set_slow(Duration batch, Duration length);
  // Starts the next batch while the loop is slow; false once it polls freely.
  bool next_batch(Duration max_poll_interval);
  bool in_batch() const { return in_batch_; }
  void stop_poll_loop();  // no batch, not slow

  // The timed work every member has, whatever its protocol: heartbeats, a
  // request's timeout, a retry's backoff, and the rebalance callbacks
  // (revoke and assign costs), which a freeze suspends.
  Timer heartbeat_timer_;
  Timer request_timer_;
  Timer retry_timer_;
  SuspendableTimer revoke_timer_;
  SuspendableTimer init_timer_;
  // A clean stop: no more heartbeats, requests or callbacks, no batch.
  void cancel_group_work();
  // A process ending: that, and no freeze, waiting messages or search.
  void end_process();
  // A freeze stops the heartbeat thread and suspends the callbacks.
  void freeze_group_work();
  void thaw_callbacks();

  virtual bool down() const = 0;
  virtual void on_freeze() = 0;  // stop timed work
  virtual void on_thaw() = 0;    // resume it; the waiting messages run next
  virtual void on_coordinator_found() = 0;
  virtual void on_poll_timeout() = 0;  // the heartbeat thread leaves the group
  virtual void on_batch_end() = 0;     // the poll after a batch

 private:
  void thaw();
  void find_coordinator();
  void retry_find_coordinator();

  Kernel& kernel_;
  Network& network_;
  Trace& trace_;
  std::string name_;
  std::uint32_t slot_;  // name_'s number in trace_ (observers index by it)
  NodeId node_;
  bool paused_ = false;
  bool coordinator_unknown_ = false;
  std::deque<Callback> inbox_;  // messages that arrived during a freeze
  Timer pause_timer_;
  Timer locate_timer_;  // the lookup's request timeout, or its backoff
  CoordinatorLookup lookup_;
  int lookup_attempts_ = 0;
  std::uint64_t lookup_seq_ = 0;  // answers to older lookups are ignored
  Timer poll_timer_;
  bool poll_deadline_passed_while_frozen_ = false;
  SuspendableTimer batch_timer_;
  Duration batch_{0};
  Time slow_until_ = kTimeZero;
  bool in_batch_ = false;
};

}  // namespace rsim::protocols
