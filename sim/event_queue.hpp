// The pending-event set of the kernel.
//
// Ordering contract: events run in ascending (time, sequence) order, where the
// sequence is the order in which they were scheduled. Two events at the same
// time therefore run in the order they were scheduled, so a run is a pure
// function of its inputs and never of heap layout.
//
// Cancellation is lazy (as in ns-3): cancel() marks the slot and drops the
// callback; the heap entry is skipped when it reaches the top. A handle
// carries the slot's generation, so a stale handle can never cancel a later
// event that reuses the slot.
//
// Complexity: schedule O(log n), cancel O(1), pop O(log n) amortised over
// cancelled entries. The heap is 4-ary over 24-byte keys; callbacks live in a
// separate slot array so sifting moves only keys.
#pragma once

#include "sim/time.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace rsim {

using Callback = std::function<void()>;

struct EventId {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

class EventQueue {
 public:
  EventId schedule(Time at, Callback cb);
  // True if the event was pending and is now cancelled.
  bool cancel(EventId id);
  bool pending(EventId id) const;

  // Removes cancelled entries from the top; true if a live event remains.
  bool has_next();
  Time next_time() const;  // requires has_next()
  // Pops the next live event into (at, cb); requires has_next().
  void pop(Time& at, Callback& cb);

  std::size_t live_count() const { return live_; }
  std::uint64_t scheduled_count() const { return next_seq_; }

 private:
  struct Key {
    std::int64_t time_us;
    std::uint64_t seq;
    std::uint32_t slot;
  };
  struct Slot {
    Callback cb;
    std::uint32_t generation = 0;
    bool live = false;
  };
  static bool before(const Key& a, const Key& b) {
    return a.time_us < b.time_us || (a.time_us == b.time_us && a.seq < b.seq);
  }
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);
  void remove_top();
  void release(std::uint32_t slot);

  std::vector<Key> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  std::uint64_t next_seq_ = 0;
  std::size_t live_ = 0;
};

}  // namespace rsim
