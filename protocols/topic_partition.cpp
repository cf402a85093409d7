#include "protocols/topic_partition.hpp"

#include <algorithm>

namespace rsim::protocols {

namespace {

// The process's topic names, apart from other names: Topic::count() sizes
// per-call assignor tables.
NameTable& topic_names() {
  static NameTable t;
  return t;
}

}  // namespace

Topic::Topic(std::string_view name) : id_(topic_names().intern(name)) {}

const std::string& Topic::name() const { return topic_names().text(id_); }

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

std::uint32_t Topic::count() { return topic_names().size(); }

std::strong_ordering Topic::compare_names(std::uint32_t a, std::uint32_t b) { return topic_names().compare(a, b); }

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
