#include "protocols/assignors/java_order.hpp"

#include <algorithm>
#include <bit>

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

// A counting sort by bucket (stable: insertion order within a bucket); the
// capacity is at most twice the entries but for the first 16.
std::vector<std::size_t> iteration_order(const std::vector<std::int32_t>& hashes, std::size_t capacity) {
  capacity = std::bit_ceil(std::max<std::size_t>(capacity, 1));  // a HashMap's table: a power of two, never empty
  const auto bucket = [&](std::size_t i) { return spread(hashes[i]) & (capacity - 1); };
  std::vector<std::size_t> starts(capacity + 1, 0);
  for (std::size_t i = 0; i < hashes.size(); ++i) ++starts[bucket(i) + 1];
  for (std::size_t b = 0; b < capacity; ++b) starts[b + 1] += starts[b];
  std::vector<std::size_t> order(hashes.size());
  for (std::size_t i = 0; i < hashes.size(); ++i) order[starts[bucket(i)]++] = i;
  return order;
}

}  // namespace rsim::protocols::java
