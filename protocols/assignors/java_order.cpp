#include "protocols/assignors/java_order.hpp"

#include <algorithm>
#include <numeric>

namespace rsim::protocols::java {

std::int32_t string_hash(std::string_view s) {
  std::uint32_t h = 0;  // Java int arithmetic wraps: compute unsigned
  for (unsigned char c : s) h = 31 * h + c;  // UTF-16 code units equal bytes for ASCII
  return static_cast<std::int32_t>(h);
}

std::int32_t topic_partition_hash(const TopicPartition& tp) {
  std::uint32_t result = 31 + static_cast<std::uint32_t>(tp.partition);
  result = 31 * result + static_cast<std::uint32_t>(string_hash(tp.topic.name()));
  return static_cast<std::int32_t>(result);
}

std::size_t capacity_for(std::size_t n) {
  std::size_t capacity = 16;
  while (n > capacity * 3 / 4) capacity *= 2;
  return capacity;
}

std::vector<std::size_t> iteration_order(const std::vector<std::int32_t>& hashes, std::size_t capacity) {
  std::vector<std::size_t> order(hashes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return (spread(hashes[a]) & (capacity - 1)) < (spread(hashes[b]) & (capacity - 1));
  });
  return order;
}

}  // namespace rsim::protocols::java
