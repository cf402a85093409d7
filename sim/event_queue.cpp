#include "sim/event_queue.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace rsim {

EventId EventQueue::schedule(Time at, Callback cb) {
  assert(cb);
  assert(micros(at) >= 0 && "simulated time starts at zero");
  std::uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    assert(slot_count_ < UINT32_MAX - kChunk && "more pending events than the queue can index");
    if ((slot_count_ & (kChunk - 1)) == 0) chunks_.push_back(std::make_unique<Slot[]>(kChunk));
    generations_.push_back(0);
    index = slot_count_++;
  }
  slot(index).cb = std::move(cb);
  const auto t = static_cast<std::uint64_t>(micros(at));
  if (t < last_) rebase(t);
  const std::uint32_t generation = generations_[index];
  insert(Entry{t, index, generation});
  ++queued_;
  ++live_;
  return EventId{index, generation};
}

bool EventQueue::pending(EventId id) const {
  return id.valid() && id.slot < slot_count_ && generations_[id.slot] == id.generation;
}

bool EventQueue::cancel(EventId id) {
  if (!pending(id)) return false;
  end(id.slot);  // its entry, still queued, no longer matches the slot's generation
  slot(id.slot).cb = nullptr;
  free_.push_back(id.slot);
  return true;
}

void EventQueue::settle() {
  assert(queued_ > 0);
  if (head_ < buckets_[0].size()) return;
  buckets_[0].clear();
  head_ = 0;
  int i = 1;
  while (buckets_[i].empty()) ++i;
  std::vector<Entry>& b = buckets_[i];
  std::uint64_t least = UINT64_MAX;
  for (const Entry& e : b) least = std::min(least, e.time_us);
  last_ = least;
  // Every entry of bucket i lands in a lower bucket, in its present order.
  for (const Entry& e : b) insert(e);
  b.clear();
}

void EventQueue::rebase(std::uint64_t t) {
  std::vector<Entry> all;
  all.reserve(queued_);
  all.insert(all.end(), buckets_[0].begin() + static_cast<std::ptrdiff_t>(head_), buckets_[0].end());
  for (int i = 1; i < kBuckets; ++i) all.insert(all.end(), buckets_[i].begin(), buckets_[i].end());
  for (auto& b : buckets_) b.clear();
  head_ = 0;
  last_ = t;
  // Equal times share a bucket in scheduling order, so collecting bucket by
  // bucket and re-inserting keeps that order.
  for (const Entry& e : all) insert(e);
}

bool EventQueue::has_next() {
  while (queued_ > 0) {
    settle();
    const Entry& e = buckets_[0][head_];
    if (live(e)) return true;
    ++head_;  // cancelled: its slot was freed then
    --queued_;
  }
  return false;
}

Time EventQueue::next_time() {
  settle();
  return time_at(Duration{static_cast<std::int64_t>(buckets_[0][head_].time_us)});
}

void EventQueue::run_next(Time& now) {
  settle();
  const Entry top = buckets_[0][head_++];
  --queued_;
  assert(live(top));
  // The next event's slot is a likely cache miss: start fetching it while
  // this callback runs.
  if (head_ < buckets_[0].size()) __builtin_prefetch(&slot(buckets_[0][head_].slot));
  Slot& s = slot(top.slot);
  now = time_at(Duration{static_cast<std::int64_t>(top.time_us)});
  end(top.slot);  // no longer pending, also for the callback itself
  s.cb();
  s.cb = nullptr;
  free_.push_back(top.slot);  // after the callback: what it schedules takes another slot
}

void EventQueue::end(std::uint32_t index) {
  ++generations_[index];
  --live_;
}

}  // namespace rsim
