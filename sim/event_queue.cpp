#include "sim/event_queue.hpp"

#include <cassert>
#include <utility>

namespace rsim {

namespace {
constexpr std::size_t kArity = 4;
}

EventId EventQueue::schedule(Time at, Callback cb) {
  assert(cb);
  std::uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.cb = std::move(cb);
  s.live = true;
  heap_.push_back(Key{micros(at), next_seq_++, slot});
  sift_up(heap_.size() - 1);
  ++live_;
  return EventId{slot, s.generation};
}

bool EventQueue::pending(EventId id) const {
  return id.valid() && id.slot < slots_.size() && slots_[id.slot].generation == id.generation &&
         slots_[id.slot].live;
}

bool EventQueue::cancel(EventId id) {
  if (!pending(id)) return false;
  Slot& s = slots_[id.slot];
  s.live = false;
  s.cb = nullptr;
  --live_;
  return true;
}

bool EventQueue::has_next() {
  while (!heap_.empty() && !slots_[heap_.front().slot].live) {
    const std::uint32_t slot = heap_.front().slot;
    remove_top();
    release(slot);
  }
  return !heap_.empty();
}

Time EventQueue::next_time() const {
  assert(!heap_.empty());
  return time_at(Duration{heap_.front().time_us});
}

void EventQueue::pop(Time& at, Callback& cb) {
  assert(!heap_.empty() && slots_[heap_.front().slot].live);
  const Key top = heap_.front();
  remove_top();
  Slot& s = slots_[top.slot];
  at = time_at(Duration{top.time_us});
  cb = std::move(s.cb);
  s.cb = nullptr;
  s.live = false;
  --live_;
  release(top.slot);
}

void EventQueue::release(std::uint32_t slot) {
  ++slots_[slot].generation;  // every handle to the old occupant goes stale
  free_.push_back(slot);
}

void EventQueue::remove_top() {
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
}

void EventQueue::sift_up(std::size_t i) {
  const Key k = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!before(k, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = k;
}

void EventQueue::sift_down(std::size_t i) {
  const std::size_t n = heap_.size();
  const Key k = heap_[i];
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t last = first + kArity < n ? first + kArity : n;
    for (std::size_t c = first + 1; c < last; ++c)
      if (before(heap_[c], heap_[best])) best = c;
    if (!before(heap_[best], k)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = k;
}

}  // namespace rsim
