// java.util.PriorityQueue's binary heap, sift for sift (OpenJDK 17: offer,
// poll, remove(Object)), for ports of Kafka code that keeps one.
//
// A correct heap only matters for its minimum, so why copy Java's? Two
// reasons in Streams' HighAvailabilityTaskAssignor: its task movements can
// compare equal (two standby moves of one task), and then which one a poll
// returns depends on the heap's shape; and ConstrainedPrioritySet orders
// clients by a load that changes while they are queued, so a sift may compare
// against a stale key. Reproducing the sifts reproduces Kafka's picks in both.
#pragma once

#include <algorithm>
#include <cassert>
#include <compare>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace rsim::protocols::streams {

// `Compare` is a three-way comparison, Java's Comparator.compare, called at
// every sift with the elements' current keys.
template <typename T, typename Compare>
class JavaPriorityQueue {
 public:
  explicit JavaPriorityQueue(Compare compare) : compare_(std::move(compare)) {}

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

  void offer(T x) {
    heap_.push_back(x);
    sift_up(heap_.size() - 1, std::move(x));
  }

  std::optional<T> poll() {
    if (heap_.empty()) return std::nullopt;
    T result = heap_.front();
    T last = std::move(heap_.back());
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, std::move(last));
    return result;
  }

  // PriorityQueue.remove(Object): the first equal element in array order.
  bool remove(const T& x) {
    const auto it = std::find(heap_.begin(), heap_.end(), x);
    if (it == heap_.end()) return false;
    remove_at(static_cast<std::size_t>(it - heap_.begin()));
    return true;
  }

 private:
  void remove_at(std::size_t i) {
    const std::size_t last_index = heap_.size() - 1;
    if (i == last_index) {
      heap_.pop_back();
      return;
    }
    T moved = std::move(heap_.back());
    heap_.pop_back();
    sift_down(i, moved);
    if (heap_[i] == moved) sift_up(i, std::move(moved));
  }

  void sift_up(std::size_t k, T x) {
    while (k > 0) {
      const std::size_t parent = (k - 1) / 2;
      if (compare_(x, heap_[parent]) >= 0) break;
      heap_[k] = std::move(heap_[parent]);
      k = parent;
    }
    heap_[k] = std::move(x);
  }

  void sift_down(std::size_t k, T x) {
    const std::size_t n = heap_.size();
    const std::size_t half = n / 2;
    while (k < half) {
      std::size_t child = 2 * k + 1;
      const std::size_t right = child + 1;
      if (right < n && compare_(heap_[child], heap_[right]) > 0) child = right;
      if (compare_(x, heap_[child]) <= 0) break;
      heap_[k] = std::move(heap_[child]);
      k = child;
    }
    assert(k < n);
    heap_[k] = std::move(x);
  }

  Compare compare_;
  std::vector<T> heap_;
};

}  // namespace rsim::protocols::streams
