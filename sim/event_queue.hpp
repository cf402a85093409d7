// The pending-event set of the kernel.
//
// Ordering contract: events run in ascending (time, sequence) order, where the
// sequence is the order in which they were scheduled. Two events at the same
// time therefore run in the order they were scheduled, so a run is a pure
// function of its inputs and never of the queue's layout.
//
// Structure: a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) over integer
// times. A simulation never schedules into the past, so the queue is
// monotone: every queued time is at least `last_`, the time of the last
// minimum taken. Bucket k holds the times whose highest bit differing from
// `last_` is bit k-1 (bucket 0: equal to `last_`). Taking the minimum empties
// bucket 0 in order; when it is empty, the lowest non-empty bucket is
// redistributed around its minimum into lower buckets. Redistribution is
// stable and equal times always share a bucket, so among equal times the
// scheduling order is kept without storing a sequence number.
//
// Cancellation is lazy (as in ns-3) for the entry, not for its slot:
// cancel() drops the callback and frees the slot at once; the entry stays
// where it is and is skipped when it comes up. Entries and handles carry the
// slot's generation, so neither a stale entry nor a stale handle can run or
// cancel a later event that reuses the slot. (A 10,000-member group re-arms
// a session timer at every heartbeat, and each cancelled deadline's entry
// waits out the 45 s session before it comes up: freed at once, the slot is
// the one the re-armed deadline takes (the free list is last in, first out),
// so the slots number the live events, not every entry still queued.
// Issue 16.)
//
// Complexity: schedule O(1), cancel O(1), taking the minimum O(log T)
// amortised, T the span of times (each entry moves down at most 64 buckets).
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

  // Removes cancelled entries from the front; true if a live event remains.
  bool has_next();
  Time next_time();  // requires has_next()
  // Removes the next live event, sets `now` to its time and runs it;
  // requires has_next().
  void run_next(Time& now);

  std::size_t live_count() const { return live_; }

 private:
  struct Entry {
    std::uint64_t time_us;
    std::uint32_t slot;
    std::uint32_t generation;  // the slot's when scheduled: another means cancelled
  };
  // A slot holds an event's callback; its generation, in an array of its
  // own, is bumped when the event stops being pending (it runs or is
  // cancelled): a handle or an entry of an earlier generation is stale. The
  // generations are what has_next and pending read, four bytes a slot that
  // stay in cache where the callbacks (a cache line each) do not (issue 16).
  struct Slot {
    Callback cb;
  };
  static constexpr std::uint32_t kChunkBits = 10;
  static constexpr std::uint32_t kChunk = 1u << kChunkBits;
  static constexpr int kBuckets = 65;
  Slot& slot(std::uint32_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  const Slot& slot(std::uint32_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  static int bucket_of(std::uint64_t t, std::uint64_t last) {
    return t == last ? 0 : 64 - __builtin_clzll(t ^ last);
  }
  void insert(const Entry& e) { buckets_[bucket_of(e.time_us, last_)].push_back(e); }
  bool live(const Entry& e) const { return generations_[e.slot] == e.generation; }
  // Makes buckets_[0][head_] the earliest entry; requires queued_ > 0.
  void settle();
  // An event earlier than `last_` (scheduled between two run_until calls):
  // re-base every entry on it, keeping their order.
  void rebase(std::uint64_t t);
  // Ends the slot's event (it runs or is cancelled): its handles go stale.
  void end(std::uint32_t slot);

  std::vector<Entry> buckets_[kBuckets];
  std::size_t head_ = 0;       // first unread entry of buckets_[0]
  std::uint64_t last_ = 0;     // every queued time is >= last_
  std::size_t queued_ = 0;     // entries in the buckets, live or cancelled
  std::vector<std::unique_ptr<Slot[]>> chunks_;
  std::vector<std::uint32_t> generations_;  // by slot
  std::uint32_t slot_count_ = 0;
  std::vector<std::uint32_t> free_;
  std::size_t live_ = 0;
};

}  // namespace rsim
