// Java's HashMap / HashSet iteration order, for ports that must reproduce
// Kafka's exact output where Kafka iterates a hash container.
//
// A java.util.HashMap created empty starts with 16 buckets and doubles when
// its size passes 0.75 of them; it iterates bucket by bucket, and within a
// bucket in insertion order (resizing splits chains without reordering).
// So the order is: by (bucket index at the final capacity, insertion order).
#pragma once

#include "protocols/topic_partition.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace rsim::protocols::java {

std::int32_t string_hash(std::string_view s);            // String.hashCode
std::int32_t topic_partition_hash(const TopicPartition& tp);  // TopicPartition.hashCode
// HashMap.hash: the spread that picks the bucket.
inline std::uint32_t spread(std::int32_t h) {
  const auto u = static_cast<std::uint32_t>(h);
  return u ^ (u >> 16);
}
// The capacity of a HashMap created empty that has held at most `n` entries.
std::size_t capacity_for(std::size_t n);

// Positions of `hashes` (given in insertion order) in iteration order; a
// capacity that is not a power of two is rounded up to one (0 to 1).
std::vector<std::size_t> iteration_order(const std::vector<std::int32_t>& hashes, std::size_t capacity);

}  // namespace rsim::protocols::java
