// A consumer group's resource: one partition of one topic, printed TOPIC-N.
#pragma once

#include <compare>
#include <string>
#include <vector>

namespace rsim::protocols {

struct TopicPartition {
  std::string topic;
  int partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
};

std::string to_string(const TopicPartition& tp);
std::vector<std::string> to_strings(const std::vector<TopicPartition>& tps);

}  // namespace rsim::protocols
