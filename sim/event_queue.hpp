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
// cancelled entries. The heap is 4-ary over 16-byte keys (the four children
// of a node share one cache line); callbacks live in a
// separate slot array so sifting moves only keys. Slots are allocated in
// fixed chunks, so a slot never moves: the next event's callback runs in
// place, and may schedule or cancel events while it runs.
#pragma once

#include "sim/callback.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace rsim {

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
  // Removes the next live event, sets `now` to its time and runs it;
  // requires has_next().
  void run_next(Time& now);

  std::size_t live_count() const { return live_; }
  std::uint64_t scheduled_count() const { return next_seq_; }

 private:
  // seq_slot packs the scheduling sequence (high 40 bits: 1.1e12 events per
  // run) above the slot index (low 24 bits: 16.7 M pending events). Both
  // limits are asserted. Ordering by (time_us, seq_slot) is ordering by
  // (time, sequence), since sequences are unique.
  struct Key {
    std::int64_t time_us;
    std::uint64_t seq_slot;
    std::uint32_t slot() const { return static_cast<std::uint32_t>(seq_slot & kSlotMask); }
  };
  static constexpr int kSlotBits = 24;
  static constexpr std::uint64_t kSlotMask = (1ULL << kSlotBits) - 1;
  struct Slot {
    Callback cb;
    std::uint32_t generation = 0;
    bool live = false;
  };
  static constexpr std::uint32_t kChunkBits = 10;
  static constexpr std::uint32_t kChunk = 1u << kChunkBits;
  Slot& slot(std::uint32_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  const Slot& slot(std::uint32_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  static bool before(const Key& a, const Key& b) {
    return a.time_us < b.time_us || (a.time_us == b.time_us && a.seq_slot < b.seq_slot);
  }
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);
  void remove_top();
  void release(std::uint32_t slot);

  // 64-byte aligned storage with the root at index kRoot, so that the four
  // children of any node (logical 4i+1..4i+4, stored at 4(i+1)..4(i+1)+3)
  // fill exactly one cache line.
  struct AlignedKeys {
    using value_type = Key;
    AlignedKeys() = default;
    template <class U>
    AlignedKeys(const U&) {}
    Key* allocate(std::size_t n) { return static_cast<Key*>(::operator new(n * sizeof(Key), std::align_val_t{64})); }
    void deallocate(Key* p, std::size_t) { ::operator delete(p, std::align_val_t{64}); }
    template <class U>
    struct rebind {
      using other = AlignedKeys;
    };
    bool operator==(const AlignedKeys&) const { return true; }
  };
  static constexpr std::size_t kRoot = 3;
  std::vector<Key, AlignedKeys> heap_ = std::vector<Key, AlignedKeys>(kRoot);  // [0, kRoot) unused
  std::size_t size() const { return heap_.size() - kRoot; }
  Key& at(std::size_t i) { return heap_[i + kRoot]; }
  const Key& at(std::size_t i) const { return heap_[i + kRoot]; }
  std::vector<std::unique_ptr<Slot[]>> chunks_;
  std::uint32_t slot_count_ = 0;
  std::vector<std::uint32_t> free_;
  std::uint64_t next_seq_ = 0;
  std::size_t live_ = 0;
};

}  // namespace rsim
