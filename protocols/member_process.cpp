#include "protocols/member_process.hpp"

namespace rsim::protocols {

MemberProcess::MemberProcess(Kernel& kernel, Network& network, Trace& trace, std::string name)
    : kernel_(kernel),
      network_(network),
      trace_(trace),
      name_(std::move(name)),
      node_(network_.add_node(name_)),
      pause_timer_(kernel),
      locate_timer_(kernel) {
  network_.crash(node_);  // not running until started
}

void MemberProcess::emit(std::string kind, std::vector<TraceField> fields) {
  trace_.emit(kernel_.now(), name_, std::move(kind), std::move(fields));
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
  on_freeze();
  pause_timer_.arm_in(length, [this] { thaw(); });
}

void MemberProcess::thaw() {
  paused_ = false;
  emit("resume");
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
}

void MemberProcess::lose_coordinator(NodeId bootstrap, const bool* available, Duration retry_backoff) {
  if (down() || coordinator_unknown_) return;
  coordinator_unknown_ = true;
  emit("coordinator-lost");
  find_coordinator(bootstrap, available, retry_backoff);
}

void MemberProcess::find_coordinator(NodeId bootstrap, const bool* available, Duration retry_backoff) {
  network_.send(node_, bootstrap, "FindCoordinator", [this, bootstrap, available, retry_backoff] {
    const bool up = *available;
    network_.send(bootstrap, node_, "FindCoordinatorResponse", [this, bootstrap, available, retry_backoff, up] {
      on_message([this, bootstrap, available, retry_backoff, up] {
        if (!coordinator_unknown_) return;
        if (!up) {
          locate_timer_.arm_in(retry_backoff, [this, bootstrap, available, retry_backoff] {
            find_coordinator(bootstrap, available, retry_backoff);
          });
          return;
        }
        coordinator_unknown_ = false;
        emit("coordinator-found");
        on_coordinator_found();
      });
    });
  });
}

}  // namespace rsim::protocols
