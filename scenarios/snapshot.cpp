#include "scenarios/snapshot.hpp"

#include "scenarios/errors.hpp"
#include "scenarios/text.hpp"
#include "scenarios/values.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include "scenarios/yaml_mark.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace rsim::scenario {

namespace {

class SnapshotLoader {
 public:
  explicit SnapshotLoader(std::string file) : file_(std::move(file)) {}

  Snapshot load(const std::string& text) {
    if (const auto fault = find_text_fault(text)) fail(Mark{fault->line, fault->column}, fault->what);
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      fail(mark_of(e), fmt::format("not valid JSON or YAML: {}", e.msg));
    }
    check_keys(root, "a group snapshot", {"assignor", "topics", "members", "racks"});
    Snapshot s;
    if (root["assignor"]) s.assignor = scalar(root["assignor"], "assignor");
    if (!root["topics"]) fail(mark_of(root), "a group snapshot needs 'topics'");
    if (!root["members"]) fail(mark_of(root), "a group snapshot needs 'members'");
    check_keys(root["topics"], "topics", {});
    for (const auto& kv : root["topics"]) s.group.topics[scalar(kv.first, "a topic")] = count(kv.second, "partition count");
    if (!root["members"].IsSequence()) fail(root["members"], "members must be a list");
    std::set<std::string> ids;
    for (const auto& m : root["members"]) s.group.members.push_back(member(m, ids));
    if (root["racks"]) {
      check_keys(root["racks"], "racks", {});
      for (const auto& kv : root["racks"]) {
        auto& per_partition = s.group.partition_racks[scalar(kv.first, "a topic")];
        if (!kv.second.IsSequence()) fail(kv.second, "racks of a topic must be a list, one list of racks per partition");
        for (const auto& p : kv.second) {
          per_partition.emplace_back();
          if (!p.IsSequence()) fail(p, "the racks of a partition must be a list");
          for (const auto& r : p) per_partition.back().push_back(scalar(r, "a rack"));
        }
      }
    }
    return s;
  }

 private:
  [[noreturn]] void fail(Mark m, std::string msg) const { throw InputError(file_, m, std::move(msg)); }
  [[noreturn]] void fail(const YAML::Node& n, std::string msg) const { fail(mark_of(n), std::move(msg)); }

  // An empty `allowed` list: any keys (a map of names).
  void check_keys(const YAML::Node& n, std::string_view what, const std::vector<std::string_view>& allowed) const {
    if (!n.IsMap()) fail(n, fmt::format("{} must be a map", what));
    std::set<std::string> seen;
    for (const auto& kv : n) {
      const std::string key = scalar(kv.first, "a key");
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(kv.first, fmt::format("unknown key '{}' in {}{}", key, what, did_you_mean(key, allowed)));
      if (!seen.insert(key).second) fail(kv.first, fmt::format("key '{}' appears twice in {}", key, what));
    }
  }

  std::string scalar(const YAML::Node& n, std::string_view what) const {
    if (!n.IsScalar()) fail(n, fmt::format("{} must be a single value", what));
    return n.Scalar();
  }

  int count(const YAML::Node& n, std::string_view what) const {
    const auto v = parse_integer(scalar(n, what));
    if (!v || *v < 0 || *v > 10'000'000) fail(n, fmt::format("{} must be a whole number from 0 to 10000000", what));
    return static_cast<int>(*v);
  }

  protocols::MemberSubscription member(const YAML::Node& n, std::set<std::string>& ids) const {
    check_keys(n, "a member", {"id", "topics", "owned", "generation", "instance-id", "rack"});
    protocols::MemberSubscription m;
    if (!n["id"]) fail(n, "a member needs 'id'");
    m.member_id = scalar(n["id"], "member id");
    if (!ids.insert(m.member_id).second) fail(n["id"], fmt::format("member id '{}' is used twice", m.member_id));
    if (n["topics"]) {
      if (!n["topics"].IsSequence()) fail(n["topics"], "topics must be a list");
      for (const auto& t : n["topics"]) m.topics.push_back(scalar(t, "a topic"));
    }
    if (n["owned"]) {
      check_keys(n["owned"], "owned", {});
      for (const auto& kv : n["owned"]) {
        if (!kv.second.IsSequence()) fail(kv.second, "owned partitions of a topic must be a list of numbers");
        for (const auto& p : kv.second) m.owned.push_back({scalar(kv.first, "a topic"), count(p, "a partition")});
      }
    }
    if (n["generation"]) {
      const auto g = parse_integer(scalar(n["generation"], "generation"));
      if (!g || *g < -1 || *g > INT32_MAX) fail(n["generation"], "generation must be a whole number, -1 or more");
      m.generation = static_cast<int>(*g);
    }
    if (n["instance-id"]) m.instance_id = scalar(n["instance-id"], "instance-id");
    if (n["rack"]) m.rack = scalar(n["rack"], "rack");
    return m;
  }

  std::string file_;
};

}  // namespace

Snapshot load_snapshot_text(const std::string& text, const std::string& file) { return SnapshotLoader(file).load(text); }

Snapshot load_snapshot_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, Mark{}, "cannot open the file");
  std::ostringstream buf;
  buf << in.rdbuf();
  return load_snapshot_text(buf.str(), path);
}

}  // namespace rsim::scenario
