#include "sim/event_queue.hpp"

#include <cassert>
#include <utility>

namespace rsim {

namespace {
constexpr std::size_t kArity = 4;
}

EventId EventQueue::schedule(Time at, Callback cb) {
  assert(cb);
  std::uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    assert(slot_count_ < kSlotMask && "more pending events than the queue can index");
    if ((slot_count_ & (kChunk - 1)) == 0) chunks_.push_back(std::make_unique<Slot[]>(kChunk));
    index = slot_count_++;
  }
  Slot& s = slot(index);
  s.cb = std::move(cb);
  s.live = true;
  assert(next_seq_ < (1ULL << (64 - kSlotBits)) && "sequence space exhausted");
  heap_.push_back(Key{micros(at), (next_seq_++ << kSlotBits) | index});
  sift_up(size() - 1);
  ++live_;
  return EventId{index, s.generation};
}

bool EventQueue::pending(EventId id) const {
  return id.valid() && id.slot < slot_count_ && slot(id.slot).generation == id.generation && slot(id.slot).live;
}

bool EventQueue::cancel(EventId id) {
  if (!pending(id)) return false;
  Slot& s = slot(id.slot);
  s.live = false;
  s.cb = nullptr;
  --live_;
  return true;
}

bool EventQueue::has_next() {
  while (size() != 0 && !slot(at(0).slot()).live) {
    const std::uint32_t index = at(0).slot();
    remove_top();
    release(index);
  }
  return size() != 0;
}

Time EventQueue::next_time() const {
  assert(size() != 0);
  return time_at(Duration{at(0).time_us});
}

void EventQueue::run_next(Time& now) {
  assert(size() != 0 && slot(at(0).slot()).live);
  const Key top = at(0);
  remove_top();
  // The next events' slots are likely cache misses: start fetching the next
  // one and its likely successor (the least of the root's children, one cache
  // line) while this callback runs.
  if (size() != 0) {
    __builtin_prefetch(&slot(at(0).slot()));
    const std::size_t n = size();
    if (n > 1) {
      std::size_t best = 1;
      for (std::size_t c = 2; c <= 4 && c < n; ++c)
        if (before(at(c), at(best))) best = c;
      __builtin_prefetch(&slot(at(best).slot()));
    }
  }
  Slot& s = slot(top.slot());
  now = time_at(Duration{top.time_us});
  s.live = false;  // no longer pending, also for the callback itself
  --live_;
  s.cb();
  s.cb = nullptr;
  release(top.slot());
}

void EventQueue::release(std::uint32_t index) {
  ++slot(index).generation;  // every handle to the old occupant goes stale
  free_.push_back(index);
}

void EventQueue::remove_top() {
  at(0) = heap_.back();
  heap_.pop_back();
  if (size() != 0) sift_down(0);
}

void EventQueue::sift_up(std::size_t i) {
  const Key k = at(i);
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!before(k, at(parent))) break;
    at(i) = at(parent);
    i = parent;
  }
  at(i) = k;
}

void EventQueue::sift_down(std::size_t i) {
  const std::size_t n = size();
  const Key k = at(i);
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t last = first + kArity < n ? first + kArity : n;
    for (std::size_t c = first + 1; c < last; ++c)
      if (before(at(c), at(best))) best = c;
    if (!before(at(best), k)) break;
    at(i) = at(best);
    i = best;
  }
  at(i) = k;
}

}  // namespace rsim
