#include "protocols/member_process.hpp"

namespace rsim::protocols {

MemberProcess::MemberProcess(Kernel& kernel, Network& network, Trace& trace, std::string name, std::optional<NodeId> node)
    : heartbeat_timer_(kernel),
      request_timer_(kernel),
      retry_timer_(kernel),
      revoke_timer_(kernel),
      init_timer_(kernel),
      kernel_(kernel),
      network_(network),
      trace_(trace),
      name_(std::move(name)),
      slot_(trace_.actor_slot(name_)),
      node_(node ? *node : network_.add_node(name_)),
      pause_timer_(kernel),
      locate_timer_(kernel),
      poll_timer_(kernel),
      batch_timer_(kernel) {
  network_.crash(node_);  // not running until started
}

void MemberProcess::emit(std::string kind, std::vector<TraceField> fields) {
  trace_.emit(kernel_.now(), name_, std::move(kind), std::move(fields), slot_);
}

void MemberProcess::emit_routine(std::string kind, std::vector<TraceField> fields) {
  trace_.emit_routine(kernel_.now(), name_, std::move(kind), std::move(fields), slot_);
}

void MemberProcess::on_message(Callback handler) {
  if (down()) return;
  if (paused_) {
    inbox_.push_back(std::move(handler));
    return;
  }
  handler();
}

void MemberProcess::freeze(Duration length) {
  if (down()) return;
  if (paused_) {
    if (kernel_.now() + length > pause_timer_.deadline()) pause_timer_.arm_in(length, [this] { thaw(); });
    return;
  }
  paused_ = true;
  emit("pause", {{"for_us", length.count()}});
  batch_timer_.suspend();
  on_freeze();
  pause_timer_.arm_in(length, [this] { thaw(); });
}

void MemberProcess::thaw() {
  paused_ = false;
  emit("resume");
  batch_timer_.resume();
  on_thaw();
  while (!inbox_.empty() && !paused_ && !down()) {
    auto handler = std::move(inbox_.front());
    inbox_.pop_front();
    handler();
  }
}

void MemberProcess::reset_process() {
  paused_ = false;
  coordinator_unknown_ = false;
  inbox_.clear();
  pause_timer_.cancel();
  locate_timer_.cancel();
  stop_poll_loop();
}

void MemberProcess::set_slow(Duration batch, Duration length) {
  batch_ = batch;
  slow_until_ = kernel_.now() + length;
}

bool MemberProcess::next_batch(Duration max_poll_interval) {
  if (batch_ == Duration{0} || kernel_.now() >= slow_until_) {
    batch_ = Duration{0};
    return false;
  }
  in_batch_ = true;
  batch_timer_.arm_in(batch_, [this] {
    in_batch_ = false;
    cancel_poll_deadline();
    on_batch_end();
  });
  arm_poll_deadline(max_poll_interval);
  return true;
}

void MemberProcess::stop_poll_loop() {
  batch_timer_.cancel();
  cancel_poll_deadline();
  in_batch_ = false;
  batch_ = Duration{0};
}

void MemberProcess::arm_poll_deadline(Duration max_poll_interval) {
  poll_deadline_passed_while_frozen_ = false;
  poll_timer_.arm_in(max_poll_interval, [this] {
    if (paused_)
      poll_deadline_passed_while_frozen_ = true;
    else
      on_poll_timeout();
  });
}

void MemberProcess::cancel_poll_deadline() {
  poll_timer_.cancel();
  poll_deadline_passed_while_frozen_ = false;
}

bool MemberProcess::poll_deadline_passed_while_frozen() {
  const bool passed = poll_deadline_passed_while_frozen_;
  poll_deadline_passed_while_frozen_ = false;
  return passed;
}

void MemberProcess::lose_coordinator(const CoordinatorLookup& lookup) {
  if (down() || coordinator_unknown_) return;
  coordinator_unknown_ = true;
  lookup_ = lookup;
  lookup_attempts_ = 0;
  emit("coordinator-lost");
  find_coordinator();
}

void MemberProcess::find_coordinator() {
  const std::uint64_t seq = ++lookup_seq_;
  locate_timer_.arm_in(lookup_.request_timeout, [this] { retry_find_coordinator(); });
  network_.send(node_, lookup_.bootstrap, "FindCoordinator", [this, seq] {
    const bool up = *lookup_.available;
    network_.send(lookup_.bootstrap, node_, "FindCoordinatorResponse", [this, seq, up] {
      on_message([this, seq, up] {
        if (!coordinator_unknown_ || seq != lookup_seq_) return;
        locate_timer_.cancel();
        if (!up) {
          retry_find_coordinator();
          return;
        }
        coordinator_unknown_ = false;
        emit("coordinator-found");
        on_coordinator_found();
      });
    });
  });
}

void MemberProcess::retry_find_coordinator() {
  Duration backoff = lookup_.retry_backoff;
  for (int i = 0; i < lookup_attempts_ && backoff < lookup_.retry_backoff_max; ++i) backoff *= 2;
  ++lookup_attempts_;
  locate_timer_.arm_in(std::min(backoff, lookup_.retry_backoff_max), [this] { find_coordinator(); });
}

void MemberProcess::cancel_group_work() {
  heartbeat_timer_.cancel();
  request_timer_.cancel();
  retry_timer_.cancel();
  revoke_timer_.cancel();
  init_timer_.cancel();
  stop_poll_loop();
}

void MemberProcess::end_process() {
  cancel_group_work();
  reset_process();
}

void MemberProcess::freeze_group_work() {
  heartbeat_timer_.cancel();
  revoke_timer_.suspend();
  init_timer_.suspend();
}

void MemberProcess::thaw_callbacks() {
  revoke_timer_.resume();
  init_timer_.resume();
}

}  // namespace rsim::protocols
