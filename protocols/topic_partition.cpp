#include "protocols/topic_partition.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace rsim::protocols {

namespace {

// The process's topic names. Looked up by name only, never iterated, so the
// hash order cannot leak into behaviour; a deque keeps names in place.
struct TopicNames {
  std::deque<std::string> names{std::string()};  // the empty name is handle 0
  std::unordered_map<std::string_view, std::uint32_t> ids{{names.front(), 0}};
};

TopicNames& topic_names() {
  static TopicNames t;
  return t;
}

}  // namespace

Topic::Topic(std::string_view name) {
  TopicNames& t = topic_names();
  if (auto it = t.ids.find(name); it != t.ids.end()) {
    id_ = it->second;
    return;
  }
  id_ = static_cast<std::uint32_t>(t.names.size());
  t.names.emplace_back(name);
  t.ids.emplace(t.names.back(), id_);
}

const std::string& Topic::name() const { return topic_names().names[id_]; }

Topic Topic::connector(std::string_view name) { return Topic(std::string(name) + "/"); }

bool Topic::is_connector() const {
  const std::string& n = name();
  return !n.empty() && n.back() == '/';
}

Topic Topic::subtopology(std::string_view id) { return Topic(std::string(id) + "#"); }

bool Topic::is_subtopology() const {
  const std::string& n = name();
  return !n.empty() && n.back() == '#';
}

std::uint32_t Topic::count() { return static_cast<std::uint32_t>(topic_names().names.size()); }

std::string to_string(const TopicPartition& tp) {
  if (tp.topic.is_connector()) {
    const std::string& n = tp.topic.name();
    return tp.partition == 0 ? n.substr(0, n.size() - 1) : fmt::format("{}{}", n, tp.partition - 1);
  }
  if (tp.topic.is_subtopology()) {
    const std::string& n = tp.topic.name();
    return fmt::format("{}_{}", std::string_view(n).substr(0, n.size() - 1), tp.partition);
  }
  return fmt::format("{}-{}", tp.topic.name(), tp.partition);
}

namespace {
// Partitions past this are named without the cache: a hostile partition
// number must not size a table.
constexpr int kCachedPartitions = 1 << 20;
}  // namespace

Name name_of(const TopicPartition& tp) {
  if (tp.partition < 0 || tp.partition >= kCachedPartitions) return Name(to_string(tp));
  static std::vector<std::vector<Name>> cache;  // topic handle -> partition -> name; empty Name: not yet printed
  if (tp.topic.id() >= cache.size()) cache.resize(tp.topic.id() + 1);
  auto& names = cache[tp.topic.id()];
  const auto p = static_cast<std::size_t>(tp.partition);
  if (p >= names.size()) names.resize(std::max(p + 1, names.size() * 2));
  if (names[p] == Name()) names[p] = Name(to_string(tp));
  return names[p];
}

NameList to_names(const std::vector<TopicPartition>& tps) {
  NameList out;
  out.reserve(tps.size());
  for (const auto& tp : tps) out.push_back(name_of(tp));
  return out;
}

std::vector<std::string> to_strings(const std::vector<TopicPartition>& tps) {
  std::vector<std::string> out;
  out.reserve(tps.size());
  for (const auto& tp : tps) out.push_back(to_string(tp));
  return out;
}

}  // namespace rsim::protocols
