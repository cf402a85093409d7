// A group's resource: one partition of one topic, printed TOPIC-N; or, in
// Connect scenarios, a connector (printed CONNECTOR) or one of its tasks
// (CONNECTOR/N); or, in a Streams application over the classic protocol, a
// stream task (printed SUBTOPOLOGY_N, as Kafka Streams prints a TaskId).
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "sim/name.hpp"

namespace rsim::protocols {

// A topic name, interned: a topic is named once per process and then passed
// around as a 4-byte handle, so a partition is 8 bytes that copy and compare
// for equality without touching the name. This is what makes the assignors'
// per-partition work cheap (Kafka's own broker-side assignors work on topic
// ids for the same reason). The handle's number depends on the order names
// were first seen, so nothing may order or print by it: ordering compares the
// names, and the names are what gets printed.
class Topic {
 public:
  Topic() = default;  // the empty name, handle 0: no lookup
  Topic(std::string_view name);  // NOLINT: implicit, a topic is its name
  Topic(const std::string& name) : Topic(std::string_view(name)) {}
  Topic(const char* name) : Topic(std::string_view(name)) {}

  const std::string& name() const;
  // Connect scenarios: a connector is a resource "topic" named CONNECTOR/
  // (no topic name has a slash), whose partition 0 is the connector instance
  // and partition N + 1 its task N. The name sorts, maps and subscribes like
  // any topic's; only printing differs.
  static Topic connector(std::string_view name);
  bool is_connector() const;
  // Classic Streams: a sub-topology is a resource "topic" named SUBTOPOLOGY#
  // (no topic name has a '#'), whose partition N is its task N.
  static Topic subtopology(std::string_view id);
  bool is_subtopology() const;
  // Dense handle, < count(); for tables indexed by topic within one call.
  std::uint32_t id() const { return id_; }
  static std::uint32_t count();
  static std::strong_ordering compare_names(std::uint32_t a, std::uint32_t b);  // the names' order

  friend bool operator==(Topic a, Topic b) { return a.id_ == b.id_; }
  friend std::strong_ordering operator<=>(Topic a, Topic b) {
    if (a.id_ == b.id_) return std::strong_ordering::equal;
    return compare_names(a.id_, b.id_);
  }
  friend bool operator==(Topic a, const std::string& b) { return a.name() == b; }
  friend bool operator==(Topic a, const char* b) { return a.name() == b; }

 private:
  std::uint32_t id_ = 0;
};

struct TopicPartition {
  Topic topic;
  int partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
};

// A Connect connector instance (not one of its tasks).
inline bool is_connector_instance(const TopicPartition& tp) { return tp.partition == 0 && tp.topic.is_connector(); }

std::string to_string(const TopicPartition& tp);
std::vector<std::string> to_strings(const std::vector<TopicPartition>& tps);
// The printed name, interned; each partition is printed once per process.
Name name_of(const TopicPartition& tp);
// The printed names, for trace fields.
NameList to_names(const std::vector<TopicPartition>& tps);

}  // namespace rsim::protocols

template <>
struct fmt::formatter<rsim::protocols::Topic> : fmt::formatter<std::string_view> {
  auto format(const rsim::protocols::Topic& t, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(t.name(), ctx);
  }
};
