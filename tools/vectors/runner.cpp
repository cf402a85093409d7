#include "tools/vectors/runner.hpp"

#include "tools/vectors/connect_cases.hpp"
#include "tools/vectors/ha_cases.hpp"
#include "tools/vectors/properties.hpp"
#include "tools/vectors/sentences.hpp"
#include "tools/vectors/streams_cases.hpp"

#include "protocols/assignors/assignor.hpp"
#include "protocols/assignors/cooperative_sticky.hpp"
#include "protocols/assignors/server.hpp"
#include "protocols/assignors/sticky.hpp"
#include "protocols/catalog.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/values.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>
#include "scenarios/yaml_mark.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace rsim::vectors {

using protocols::GroupAssignment;
using protocols::GroupSnapshot;
using protocols::TopicPartition;
using scenario::InputError;
using scenario::Mark;
using scenario::mark_of;

const char* status_name(Status s) {
  switch (s) {
    case Status::Pass:
      return "PASS";
    case Status::Fail:
      return "FAIL";
    case Status::Skip:
      return "SKIP";
  }
  return "?";
}

int FileResult::count(Status s) const {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [s](const CaseResult& c) { return c.status == s; }));
}

namespace {

struct Target {
  std::string name;
  protocols::Family family;
  bool connect = false;
  bool high_availability = false;  // Streams' classic HighAvailabilityTaskAssignor
};

// "range (client, eager)", "uniform (server-side, ...)", "streams group
// (KIP-1071) server-side 'sticky' task assignor", "Kafka Connect ...".
Target parse_target(const std::string& text) {
  Target t;
  if (text.find("HighAvailabilityTaskAssignor") != std::string::npos) {
    t.name = "high-availability";
    t.family = protocols::Family::Classic;
    t.high_availability = true;
    return t;
  }
  if (text.find("Connect") != std::string::npos) {
    t.name = "connect";
    t.family = protocols::Family::Classic;
    t.connect = true;
    return t;
  }
  if (text.find("streams") != std::string::npos) {
    t.name = "sticky";
    t.family = protocols::Family::Streams;
    return t;
  }
  t.name = text.substr(0, text.find_first_of(" ("));
  t.family = text.find("server") != std::string::npos ? protocols::Family::Consumer : protocols::Family::Classic;
  return t;
}

class FileRunner {
 public:
  static std::string case_name(const YAML::Node& c) {
    return c.IsMap() && c["name"] && c["name"].IsScalar() ? c["name"].as<std::string>() : std::string("?");
  }

  FileRunner(std::string path, Plugins* plugins) : path_(std::move(path)), plugins_(plugins) {}

  FileResult run() {
    YAML::Node root;
    try {
      root = YAML::LoadFile(path_);
    } catch (const YAML::BadFile&) {
      throw InputError(path_, Mark{}, "cannot open the file");
    } catch (const YAML::Exception& e) {
      throw InputError(path_, mark_of(e), fmt::format("not valid YAML: {}", e.msg));
    }
    if (!root.IsMap() || !root["cases"] || !root["cases"].IsSequence())
      throw InputError(path_, Mark{1, 1}, "not a vector file: expected a map with a 'cases' list");
    if (root["ordering_hints"] && root["ordering_hints"]["java_hashset_topic_order"])
      for (const auto& t : root["ordering_hints"]["java_hashset_topic_order"]) topic_order_.push_back(t.as<std::string>());
    if (root["ordering_hints"] && root["ordering_hints"]["uuid_ascending_order"])
      for (const auto& t : root["ordering_hints"]["uuid_ascending_order"]) topic_uuid_order_.push_back(t.as<std::string>());
    std::vector<Target> targets;
    if (root["applies_to"]) {
      for (const auto& a : root["applies_to"]) targets.push_back(parse_target(a.as<std::string>()));
    } else if (root["assignor"]) {
      targets.push_back(parse_target(root["assignor"].as<std::string>()));
    } else {
      throw InputError(path_, Mark{1, 1}, "a vector file names its assignor ('assignor:' or 'applies_to:')");
    }
    FileResult out;
    out.file = path_;
    ConnectCases connect(path_);
    const StreamsCases streams(path_);
    const HighAvailabilityCases high_availability(path_);
    for (const auto& c : root["cases"]) {
      for (const auto& t : targets) {
        try {
          if (t.connect)
            out.cases.push_back(connect.run(c));
          else if (t.high_availability)
            out.cases.push_back(high_availability.run(c));
          else if (t.family == protocols::Family::Streams)
            out.cases.push_back(streams.run(c));
          else
            out.cases.push_back(run_case(c, t));
        } catch (const protocols::PluginError& e) {  // a bad answer fails its case, not the file
          out.cases.push_back({case_name(c), "", "exec", Status::Fail, e.what()});
        } catch (const InputError& e) {  // a step or value this runner cannot read: that case only
          out.cases.push_back({case_name(c), "", t.name, Status::Skip, fmt::format("cannot read the case: {}", e.what())});
        } catch (const YAML::Exception& e) {  // a value of the wrong type
          out.cases.push_back({case_name(c), "", t.name, Status::Skip,
                               fmt::format("cannot read the case: {}", InputError(path_, mark_of(e), "malformed case: " + e.msg).what())});
        } catch (const std::logic_error& e) {  // a value out of range for its reader (a number too large, a missing word)
          out.cases.push_back({case_name(c), "", t.name, Status::Skip, fmt::format("cannot read the case: {}: {}", path_, e.what())});
        }
      }
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const { throw InputError(path_, mark_of(n), msg); }

  TopicPartition partition(const YAML::Node& n) const {
    const std::string s = n.as<std::string>();
    const auto dash = s.rfind('-');
    const auto p = dash == std::string::npos ? std::nullopt : scenario::parse_integer(s.substr(dash + 1));
    if (!p) fail(n, fmt::format("'{}' is not a partition (TOPIC-N)", s));
    return TopicPartition{s.substr(0, dash), static_cast<int>(*p)};
  }

  // "topic-1..topic-99: 3 partitions each" and "member1..member49: all
  // topics": a generated sample, as the Kafka test builds it.
  std::optional<GroupSnapshot> sample(const YAML::Node& input) const {
    if (!input["topics"] || !input["topics"].IsMap() || input["topics"].size() != 1) return std::nullopt;
    const auto kv = *input["topics"].begin();
    const std::string range = kv.first.as<std::string>();
    const auto dots = range.find("..");
    if (dots == std::string::npos) return std::nullopt;
    auto split_name = [&](const std::string& name) {
      const auto digits = name.find_last_not_of("0123456789") + 1;
      const auto n = scenario::parse_integer(name.substr(digits));
      if (!n || *n > INT32_MAX) fail(kv.first, fmt::format("'{}' does not end in a number up to {}", name, INT32_MAX));
      return std::make_pair(name.substr(0, digits), static_cast<int>(*n));
    };
    const auto [prefix, first] = split_name(range.substr(0, dots));
    const auto [prefix2, last] = split_name(range.substr(dots + 2));
    const auto each = scenario::parse_integer(kv.second.as<std::string>().substr(0, kv.second.as<std::string>().find(' ')));
    if (!each) fail(kv.second, "expected 'N partitions each'");
    if (*each < 0 || *each > 10'000'000) fail(kv.second, "a topic's partition count must be a whole number from 0 to 10000000");
    // Bounded before anything is built: a range is a loop and a list.
    const auto check_range = [&](const YAML::Node& at, int from, int to, int most, std::string_view what) {
      if (from > to || std::int64_t{to} - from + 1 > most)
        fail(at, fmt::format("a range of {} must go upwards and name at most {}", what, most));
    };
    check_range(kv.first, first, last, 100'000, "topics");
    GroupSnapshot g;
    std::vector<std::string> topics;
    for (int t = first; t <= last; ++t) {
      topics.push_back(fmt::format("{}{}", prefix, t));
      g.topics[topics.back()] = static_cast<int>(*each);
    }
    for (const auto& m : input["members"]) {
      const std::string ids = m["id"].as<std::string>();
      const auto d = ids.find("..");
      if (d == std::string::npos) fail(m, "expected a member range A..B");
      const auto [mp, mfirst] = split_name(ids.substr(0, d));
      const auto [mp2, mlast] = split_name(ids.substr(d + 2));
      check_range(m["id"], mfirst, mlast, 100'000, "members");
      for (int i = mfirst; i <= mlast; ++i) {
        protocols::MemberSubscription s;
        s.member_id = fmt::format("{}{}", mp, i);
        s.topics = topics;
        g.members.push_back(std::move(s));
      }
    }
    g.topic_order = topic_order_;
    g.topic_uuid_order = topic_uuid_order_;
    return g;
  }

  GroupSnapshot snapshot(const YAML::Node& input) const {
    if (auto g = sample(input)) return *g;
    GroupSnapshot g;
    if (!input.IsMap()) fail(input, "a case's input must be a map");
    for (const auto& kv : input["topics"]) {
      const int n = kv.second.as<int>();
      if (n < 0 || n > 10'000'000)  // as a snapshot's: the assignors allocate a flag per partition
        fail(kv.second, "a topic's partition count must be a whole number from 0 to 10000000");
      g.topics[kv.first.as<std::string>()] = n;
    }
    for (const auto& m : input["members"]) {
      protocols::MemberSubscription s;
      s.member_id = m["id"].as<std::string>();
      if (m["topics"]) {
        std::vector<std::string> topics;
        for (const auto& t : m["topics"]) topics.push_back(t.as<std::string>());
        s.topics = std::move(topics);
      }
      if (m["owned"])
        for (const auto& o : m["owned"]) s.owned.push_back(partition(o));
      if (m["current"])  // broker side: the member's current target assignment
        for (const auto& o : partitions(m["current"])) s.owned.push_back(o);
      if (m["generation"]) s.generation = m["generation"].as<int>();
      if (m["instance_id"]) s.instance_id = m["instance_id"].as<std::string>();
      if (m["rack"]) s.rack = m["rack"].as<std::string>();
      g.members.push_back(std::move(s));
    }
    if (input["partition_replica_racks"]) {
      for (const auto& kv : input["partition_replica_racks"]) {
        const TopicPartition tp = partition(kv.first);
        auto& racks = g.partition_racks[tp.topic.name()];
        if (racks.size() <= static_cast<std::size_t>(tp.partition)) racks.resize(static_cast<std::size_t>(tp.partition) + 1);
        for (const auto& r : kv.second) racks[static_cast<std::size_t>(tp.partition)].push_back(r.as<std::string>());
      }
    }
    if (input["prefer_rack_aware_logic"]) g.prefer_rack_aware = input["prefer_rack_aware_logic"].as<bool>();
    g.topic_order = topic_order_;
    g.topic_uuid_order = topic_uuid_order_;
    return g;
  }

  // One member's partitions as written: a list of TOPIC-N, or {topic: [n..]}.
  std::vector<TopicPartition> partitions(const YAML::Node& n) const {
    std::vector<TopicPartition> list;
    if (n.IsMap()) {
      for (const auto& t : n)
        for (const auto& p : t.second) list.push_back(TopicPartition{t.first.as<std::string>(), p.as<int>()});
    } else {
      for (const auto& p : n) list.push_back(partition(p));
    }
    return list;
  }

  GroupAssignment expected(const YAML::Node& a) const {
    GroupAssignment out;
    for (const auto& kv : a) out[kv.first.as<std::string>()] = partitions(kv.second);
    return out;
  }

  static std::string show(const std::vector<TopicPartition>& l) { return fmt::format("[{}]", fmt::join(protocols::to_strings(l), ", ")); }

  // Compares under the file's `compare` mode; appends differences to `diff`.
  static bool same(const GroupAssignment& want, const GroupAssignment& got, const std::string& mode, bool only_listed,
                   std::string& diff) {
    const bool ordered = mode == "list_equals";
    bool ok = true;
    std::set<std::string> members;
    for (const auto& [m, l] : want) members.insert(m);
    if (!only_listed)
      for (const auto& [m, l] : got)
        if (!l.empty()) members.insert(m);
    for (const auto& m : members) {
      auto w = want.count(m) ? want.at(m) : std::vector<TopicPartition>{};
      auto g = got.count(m) ? got.at(m) : std::vector<TopicPartition>{};
      if (!ordered) {
        std::sort(w.begin(), w.end());
        std::sort(g.begin(), g.end());
      }
      if (w != g) {
        ok = false;
        diff += fmt::format("\n      {}: want {} got {}", m, show(w), show(g));
      }
    }
    return ok;
  }

  // CooperativeStickyAssignorTest.verifyValidityAndBalance: while some owned
  // partition was taken away (withheld this round), run the follow-up
  // rebalance with owned := the previous result at generation 1, up to 4
  // times (the file's conventions, cooperative_final_assignment).
  static GroupAssignment converge(const protocols::Assignor& assignor, GroupSnapshot g, GroupAssignment result) {
    for (int round = 0; round < 4; ++round) {
      bool revoked = false;
      for (const auto& m : g.members) {
        const auto it = result.find(m.member_id);
        for (const auto& tp : m.owned)
          if (it == result.end() || std::find(it->second.begin(), it->second.end(), tp) == it->second.end()) revoked = true;
      }
      if (!revoked) break;
      for (auto& m : g.members) {
        m.owned = result.count(m.member_id) ? result.at(m.member_id) : std::vector<TopicPartition>{};
        m.generation = 1;
      }
      result = assignor.assign(g);
    }
    return result;
  }

  static bool final_after_follow_up(const YAML::Node& expect) {
    return expect["assignment_is"] && expect["assignment_is"].as<std::string>().find("final") != std::string::npos;
  }

  // Properties Kafka's tests assert in code, which the vector files can only
  // describe in prose: a checker per test method. Appends to `diff`.
  // Partitions the assignment moves from an owner that loses them to another
  // member (Kafka's partitionsTransferringOwnership): the sticky assignors
  // report theirs; any other eager one's are read off its answer. Null when
  // not known: the sticky's general algorithm does not track them, and a
  // cooperative answer (a plug-in's) withholds them, new owners unnamed.
  static std::optional<std::map<TopicPartition, std::string>> transferring(const protocols::Assignor& assignor,
                                                                           const GroupSnapshot& g, bool cooperative) {
    if (const auto* sticky = dynamic_cast<const protocols::StickyAssignor*>(&assignor)) return sticky->assign_detailed(g).transferring;
    if (const auto* coop = dynamic_cast<const protocols::CooperativeStickyAssignor*>(&assignor)) return coop->transferring(g);
    if (cooperative) return std::nullopt;
    const GroupAssignment target = assignor.assign(g);
    std::map<TopicPartition, std::string> owner, out;
    for (const auto& m : g.members)
      for (const auto& tp : m.owned) owner[tp] = m.member_id;
    for (const auto& [member, list] : target)
      for (const auto& tp : list)
        if (auto it = owner.find(tp); it != owner.end() && it->second != member) out[tp] = member;
    return out;
  }

  static std::optional<bool> method_property(const std::string& method, const protocols::Assignor& assignor,
                                             bool cooperative, const GroupSnapshot& input, std::string& diff) {
    if (method != "testAddRemoveTopicTwoConsumers") return std::nullopt;
    // r1: two members on `topic` (3); r2: both add `topic2` (3) owning r1;
    // r3: both drop `topic` owning r2. Sizes {1,2}, 3/3, {1,2}; r2 keeps r1,
    // r3 is within r2; nothing is ever withheld.
    auto sizes = [](const GroupAssignment& a) {
      std::vector<std::size_t> n;
      for (const auto& [m, l] : a) n.push_back(l.size());
      std::sort(n.begin(), n.end());
      return n;
    };
    auto within = [](const std::vector<TopicPartition>& small, const std::vector<TopicPartition>& big) {
      return std::all_of(small.begin(), small.end(), [&](const TopicPartition& tp) { return std::find(big.begin(), big.end(), tp) != big.end(); });
    };
    auto step = [&](GroupSnapshot g) {
      GroupAssignment a = assignor.assign(g);
      return cooperative ? converge(assignor, g, a) : a;
    };
    bool ok = true;
    GroupSnapshot g = input;
    const GroupAssignment r1 = step(g);
    if (sizes(r1) != std::vector<std::size_t>{1, 2}) {
      ok = false;
      diff += "\n      round 1: sizes are not {1, 2}";
    }
    g.topics["topic2"] = 3;
    for (auto& m : g.members) {
      m.topics = {"topic", "topic2"};
      m.owned = r1.at(m.member_id);
      m.generation = 1;
    }
    const GroupAssignment r2 = step(g);
    for (const auto& m : g.members)
      if (r2.at(m.member_id).size() != 3 || !within(r1.at(m.member_id), r2.at(m.member_id))) {
        ok = false;
        diff += fmt::format("\n      round 2: {} does not have 3 partitions including its round-1 ones", m.member_id);
      }
    g.topics.erase("topic");
    for (auto& m : g.members) {
      m.topics = {"topic2"};
      m.owned = r2.at(m.member_id);
    }
    const GroupAssignment r3 = step(g);
    if (sizes(r3) != std::vector<std::size_t>{1, 2}) {
      ok = false;
      diff += "\n      round 3: sizes are not {1, 2}";
    }
    for (const auto& m : g.members)
      if (!within(r3.at(m.member_id), r2.at(m.member_id))) {
        ok = false;
        diff += fmt::format("\n      round 3: {} got a partition it did not have in round 2", m.member_id);
      }
    return ok;
  }

  static int rack_mismatches(const GroupSnapshot& g, const GroupAssignment& a) {
    int n = 0;
    for (const auto& m : g.members) {
      if (!m.rack || !a.count(m.member_id)) continue;
      for (const auto& tp : a.at(m.member_id)) {
        auto it = g.partition_racks.find(tp.topic.name());
        if (it == g.partition_racks.end() || it->second.size() <= static_cast<std::size_t>(tp.partition)) continue;
        const auto& racks = it->second[static_cast<std::size_t>(tp.partition)];
        if (std::find(racks.begin(), racks.end(), *m.rack) == racks.end()) ++n;
      }
    }
    return n;
  }

  static std::map<std::string, std::vector<TopicPartition>> by_instance(const GroupSnapshot& g, const GroupAssignment& a) {
    std::map<std::string, std::vector<TopicPartition>> out;
    for (const auto& m : g.members) {
      auto l = a.count(m.member_id) ? a.at(m.member_id) : std::vector<TopicPartition>{};
      std::sort(l.begin(), l.end());
      out[m.instance_id.value_or(m.member_id)] = l;
    }
    return out;
  }

  static PropertyContext context(const protocols::Assignor& assignor, bool cooperative, const GroupSnapshot& g, const GroupAssignment& got) {
    return PropertyContext{g, got,
                           [&assignor, cooperative](const GroupSnapshot& again) {
                             const GroupAssignment a = assignor.assign(again);
                             return cooperative ? converge(assignor, again, a) : a;
                           },
                           [&assignor, cooperative, &g]() -> std::optional<std::size_t> {
                             const auto t = transferring(assignor, g, cooperative);
                             return t ? std::optional<std::size_t>(t->size()) : std::nullopt;
                           }};
  }

  // A property written as a key ("balanced: true", "sticky: true",
  // "assigned_partitions: [t-0, t-1]", "transfers: 2"): the key and its
  // value read as the sentence they say. `false` asserts nothing. Null: not a
  // property this runner knows.
  static std::optional<bool> keyed_property(const std::string& key, const YAML::Node& v, const PropertyContext& ctx, std::string& diff) {
    std::string text = key;
    std::replace(text.begin(), text.end(), '_', ' ');
    if (v.IsScalar()) {
      const std::string value = lower(v.as<std::string>());
      std::string ignored;
      if (value == "false" || value == "no") return check_property(text, ctx, ignored).held ? std::optional<bool>(true) : std::nullopt;
      if (value != "true" && value != "yes") text += " " + (is_number(value) ? "== " + value : value);
    } else if (v.IsSequence()) {
      for (const auto& x : v) text += " " + x.as<std::string>();
    } else {
      return std::nullopt;
    }
    return check_property(text, ctx, diff).held;
  }

  // A property as one sentence, or a list of them (read as clauses).
  static std::string property_text(const YAML::Node& v) {
    if (!v.IsSequence()) return v.as<std::string>();
    std::string text;
    for (const auto& x : v) text += (text.empty() ? "" : "; ") + x.as<std::string>();
    return text;
  }

  // An expectation key by its meaning: camelCase to snake_case, and the
  // extractor's other names for the exact assignment.
  static std::string canonical_key(const std::string& key) {
    std::string k;
    for (char c : key) {
      if (std::isupper(static_cast<unsigned char>(c)) != 0 && !k.empty()) k += '_';
      k += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    static const std::map<std::string, std::string> alias = {
        {"expected_assignment", "assignment"}, {"assignments", "assignment"}, {"expected", "assignment"},
        {"partitions_transferring_ownership()", "partitions_transferring_ownership"}, {"properties", "property"}};
    const auto it = alias.find(k);
    return it == alias.end() ? k : it->second;
  }

  CaseResult run_case(const YAML::Node& c, const Target& target) const {
    CaseResult r;
    r.name = c["name"] ? c["name"].as<std::string>() : std::string("?");
    r.method = c["method"] ? c["method"].as<std::string>() : std::string();
    r.assignor = target.name;
    const auto* info = target.connect ? nullptr : protocols::find_assignor(target.family, target.name);
    std::unique_ptr<protocols::Assignor> built_in;
    if (info != nullptr && info->runnable && target.family == protocols::Family::Classic)
      built_in = protocols::make_classic_assignor(target.name);
    if (info != nullptr && info->runnable && target.family == protocols::Family::Consumer)
      built_in = protocols::make_consumer_assignor(target.name);
    const protocols::Assignor* assignor = built_in.get();
    if (plugins_ != nullptr && !target.connect) {
      assignor = &plugins_->for_target(target.family, target.name == "cooperative-sticky");
      r.assignor = "exec";
    }
    if (assignor == nullptr) {
      r.detail = target.connect ? "Kafka Connect's incremental cooperative assignor is not implemented yet"
                                : fmt::format("{} assignor '{}' is not implemented yet",
                                              protocols::family_name(target.family), target.name);
      return r;
    }
    const YAML::Node& expect = c["expect"];
    if (!expect || !expect.IsMap()) fail(c, "a case needs an 'expect' map");
    const GroupSnapshot g = snapshot(c["input"]);
    const bool cooperative = target.name == "cooperative-sticky";
    if (expect["error"]) {
      // The assignor must refuse the input (PartitionAssignorException).
      try {
        (void)assignor->assign(g);
        r.status = Status::Fail;
        r.detail = fmt::format("differs:\n      want {} got an assignment", expect["error"].as<std::string>());
      } catch (const protocols::AssignorError&) {
        r.status = Status::Pass;
      } catch (const protocols::PluginRefusal&) {  // the plug-in's {"error": ..}
        r.status = Status::Pass;
      }
      return r;
    }
    GroupAssignment got = assignor->assign(g);
    if (cooperative && final_after_follow_up(expect)) got = converge(*assignor, g, got);
    const std::string mode = expect["compare"] ? expect["compare"].as<std::string>() : std::string("set");

    std::vector<std::string> checked, unchecked;
    std::string diff;
    bool ok = true;
    for (const auto& kv : expect) {
      const std::string key = canonical_key(kv.first.as<std::string>());
      const YAML::Node& v = kv.second;
      if (key == "compare" || key == "assignment_is" || key == "note") continue;
      if (key == "assignment") {
        const bool only_listed = mode.find("only") != std::string::npos;
        ok &= same(expected(v), got, mode, only_listed, diff);
      } else if (key == "assignment_by_instance") {
        std::map<std::string, std::vector<TopicPartition>> want;
        for (const auto& [m, l] : expected(v)) {
          auto sorted = l;
          std::sort(sorted.begin(), sorted.end());
          want[m] = sorted;
        }
        const auto have = by_instance(g, got);
        for (const auto& [inst, l] : want)
          if (!have.count(inst) || have.at(inst) != l) {
            ok = false;
            diff += fmt::format("\n      instance {}: want {} got {}", inst, show(l), have.count(inst) ? show(have.at(inst)) : "[]");
          }
      } else if (key == "partitions_transferring_ownership") {
        const auto transfers = transferring(*assignor, g, cooperative);
        if (!transfers) {
          unchecked.push_back(key);
          continue;
        }
        std::map<TopicPartition, std::string> want;
        for (const auto& kv2 : v) want[partition(kv2.first)] = kv2.second.as<std::string>();
        if (*transfers != want) {
          ok = false;
          std::vector<std::string> w, h;
          for (const auto& [tp, c] : want) w.push_back(protocols::to_string(tp) + "->" + c);
          for (const auto& [tp, c] : *transfers) h.push_back(protocols::to_string(tp) + "->" + c);
          diff += fmt::format("\n      partitions transferring ownership: want {{{}}} got {{{}}}", fmt::join(w, ", "), fmt::join(h, ", "));
        }
      } else if (key == "also") {  // a further property, e.g. "re-running with owned = this assignment returns the same"
        const auto verdict = check_property(property_text(v), context(*assignor, cooperative, g, got), diff);
        if (!verdict.held) {
          unchecked.push_back(fmt::format("also '{}'", verdict.unknown));
          continue;
        }
        ok &= *verdict.held;
      } else if (key == "rounds") {
        // Successive rebalances. Round 1 lists its members; a later round's
        // members are those its expected assignment names, subscribed like
        // round 1, each owning what it got in the round before, at the test's
        // generation 1 (the file's conventions: generationId_in_test).
        std::vector<std::string> topics;
        for (const auto& [t, n] : g.topics) topics.push_back(t);
        GroupAssignment previous;
        GroupSnapshot last_step;
        int round = 0;
        for (const auto& r : v) {
          ++round;
          GroupSnapshot step;
          step.topics = g.topics;
          if (r["members"] && r["members"].IsSequence()) {
            YAML::Node listed(YAML::NodeType::Map);
            listed["topics"] = YAML::Node(YAML::NodeType::Map);
            listed["members"] = r["members"];
            step = snapshot(listed);
            step.topics = g.topics;
          } else if (r["assignment"]) {
            for (const auto& kv2 : r["assignment"]) {
              protocols::MemberSubscription m;
              m.member_id = kv2.first.as<std::string>();
              m.topics = topics;
              if (previous.count(m.member_id) != 0) m.owned = previous.at(m.member_id);
              m.generation = 1;
              step.members.push_back(std::move(m));
            }
          } else {
            // Only properties asserted: the same members rebalance again,
            // each owning what it got (round 1: the case's input).
            step = round == 1 ? g : last_step;
            if (round > 1)
              for (auto& m : step.members) {
                m.owned = previous.count(m.member_id) != 0 ? previous.at(m.member_id) : std::vector<TopicPartition>{};
                m.generation = 1;
              }
          }
          GroupAssignment result = assignor->assign(step);
          if (cooperative && final_after_follow_up(r)) result = converge(*assignor, step, result);
          std::string round_diff;
          if (r["assignment"] && !same(expected(r["assignment"]), result, mode, false, round_diff)) {
            ok = false;
            diff += fmt::format("\n      round {}:{}", round, round_diff);
          }
          for (const auto& kv2 : r) {
            const std::string k = kv2.first.as<std::string>();
            if (k == "members" || k == "assignment" || k == "assignment_is" || k == "partitions_transferring_ownership" || k == "note" || k == "compare") continue;
            std::string prop_diff;
            const PropertyContext ctx = context(*assignor, cooperative, step, result);
            const auto held = k == "property" || k == "also" ? check_property(property_text(kv2.second), ctx, prop_diff).held
                                                            : keyed_property(k, kv2.second, ctx, prop_diff);
            if (!held) {
              unchecked.push_back(fmt::format("round {} {}", round, k));
            } else if (!*held) {
              ok = false;
              diff += fmt::format("\n      round {}:{}", round, prop_diff);
            }
          }
          last_step = step;
          if (r["partitions_transferring_ownership"]) {
            std::map<TopicPartition, std::string> want;
            for (const auto& kv2 : r["partitions_transferring_ownership"]) want[partition(kv2.first)] = kv2.second.as<std::string>();
            const auto have = transferring(*assignor, step, cooperative);
            if (!have) {
              if (std::find(unchecked.begin(), unchecked.end(), "rounds' transfers") == unchecked.end()) unchecked.push_back("rounds' transfers");
            } else if (*have != want) {
              ok = false;
              diff += fmt::format("\n      round {}: partitions transferring ownership differ", round);
            }
          }
          previous = result;
        }
      } else if (key == "partitions_with_rack_mismatch") {
        const int n = rack_mismatches(g, got);
        if (n != v.as<int>()) {
          ok = false;
          diff += fmt::format("\n      partitions with rack mismatch: want {} got {}", v.as<int>(), n);
        }
      } else if (key == "derived_for_reference") {
        ok &= same(expected(v), got, mode, false, diff);
      } else if (key == "property") {
        const std::string text = property_text(v);
        if (text.rfind("replacing ", 0) == 0 && text.find("(same instance id)") != std::string::npos) {
          // "replacing A by memberA1 (same instance id) keeps every member's
          // partitions identical": a static member rejoining with a new
          // member id gets what the old one had.
          const auto words = split_words(text);
          GroupSnapshot replaced = g;
          for (auto& m : replaced.members)
            if (m.member_id == words.at(1)) m.member_id = words.at(3);
          if (by_instance(replaced, assignor->assign(replaced)) != by_instance(g, got)) {
            ok = false;
            diff += fmt::format("\n      {}: the partitions changed", text);
          }
        } else if (const auto held = method_property(r.method, *assignor, cooperative, g, diff)) {
          ok &= *held;
        } else {
          const auto verdict = check_property(text, context(*assignor, cooperative, g, got), diff);
          if (!verdict.held) {
            unchecked.push_back(fmt::format("property '{}'", verdict.unknown));
            continue;
          }
          ok &= *verdict.held;
        }
      } else if (key == "then" && v["assignment_by_instance"]) {
        // Member ids change, instance ids stay: the assignment by instance
        // must not change. Reversing the member ids' order tests exactly that.
        GroupSnapshot swapped = g;
        for (std::size_t i = 0; i < swapped.members.size(); ++i)
          swapped.members[i].member_id = "renamed-" + g.members[g.members.size() - 1 - i].member_id;
        if (by_instance(swapped, assignor->assign(swapped)) != by_instance(g, got)) {
          ok = false;
          diff += "\n      then: the assignment by instance changed when member ids changed";
        }
      } else if (key == "then" && v["others"] && v["others"].as<std::string>() == "unchanged") {
        // A dynamic member replaced by another dynamic member: the newcomer
        // gets exactly what the old one had, nobody else changes.
        std::string fresh;
        for (const auto& kk : v) {
          const std::string k = kk.first.as<std::string>();
          if (k.rfind("assignment_", 0) == 0) fresh = k.substr(11);
        }
        auto old = std::find_if(g.members.begin(), g.members.end(), [](const auto& m) { return !m.instance_id; });
        if (fresh.empty() || old == g.members.end()) {
          unchecked.push_back(key);
          continue;
        }
        GroupSnapshot replaced = g;
        const std::string old_id = old->member_id;
        for (auto& m : replaced.members)
          if (m.member_id == old_id) m.member_id = fresh;
        GroupAssignment after = assignor->assign(replaced);
        GroupAssignment want = got;
        want[fresh] = partitions(v["assignment_" + fresh]);
        want.erase(old_id);
        ok &= same(want, after, mode, false, diff);
      } else if (const auto held = keyed_property(key, v, context(*assignor, cooperative, g, got), diff)) {
        ok &= *held;
      } else {
        unchecked.push_back(key);
        continue;
      }
      checked.push_back(key);
    }
    if (!ok) {
      r.status = Status::Fail;
      r.detail = "differs:" + diff;
    } else if (!unchecked.empty()) {
      r.status = Status::Skip;
      r.detail = fmt::format("cannot check {} yet; {} passed", fmt::join(unchecked, ", "),
                             checked.empty() ? std::string("nothing else") : fmt::format("{}", fmt::join(checked, ", ")));
    } else {
      r.status = Status::Pass;
    }
    return r;
  }

  static std::vector<std::string> split_words(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    for (char ch : text) {
      if (ch == ' ') {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
      } else {
        cur += ch;
      }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
  }

  std::string path_;
  Plugins* plugins_;  // null: the built-in assignors
  std::vector<std::string> topic_order_;       // ordering_hints.java_hashset_topic_order
  std::vector<std::string> topic_uuid_order_;  // ordering_hints.uuid_ascending_order
};

}  // namespace

FileResult run_file(const std::string& path, Plugins* plugins) { return FileRunner(path, plugins).run(); }

protocols::ExecAssignor& Plugins::for_target(protocols::Family family, bool cooperative) {
  const bool consumer = family == protocols::Family::Consumer;
  auto& slot = by_side_[{consumer, cooperative}];
  if (!slot) {
    const std::string protocol = consumer ? "consumer" : cooperative ? "cooperative" : "eager";
    slot = std::make_unique<protocols::ExecAssignor>(
        settings_, consumer ? protocols::AssignorSide::ConsumerGroup : protocols::AssignorSide::ClientLeader, protocol,
        cooperative);
  }
  return *slot;
}

}  // namespace rsim::vectors
