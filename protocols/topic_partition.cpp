#include "protocols/topic_partition.hpp"

#include <fmt/format.h>

namespace rsim::protocols {

std::string to_string(const TopicPartition& tp) { return fmt::format("{}-{}", tp.topic, tp.partition); }

std::vector<std::string> to_strings(const std::vector<TopicPartition>& tps) {
  std::vector<std::string> out;
  out.reserve(tps.size());
  for (const auto& tp : tps) out.push_back(to_string(tp));
  return out;
}

}  // namespace rsim::protocols
