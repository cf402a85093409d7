#include "scenarios/loader.hpp"

#include "protocols/catalog.hpp"
#include "scenarios/assignor_lists.hpp"
#include "scenarios/config_keys.hpp"
#include "scenarios/limits.hpp"
#include "scenarios/metric_names.hpp"
#include "scenarios/resources.hpp"
#include "protocols/streams/tasks.hpp"
#include "scenarios/streams_topology.hpp"
#include "scenarios/text.hpp"
#include "scenarios/values.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>
#include "scenarios/yaml_mark.hpp"

#include <algorithm>
#include <cassert>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace rsim::scenario {

namespace {

using Keys = std::vector<std::string_view>;

// Keys a member description may carry, in `members:` and in join events.
const Keys kMemberKeys{"id", "subscribe", "instance-id", "rack", "start", "assignors", "process"};

const Keys kEventActions{"join",        "leave",     "crash",         "bounce",
                         "restart",     "pause",     "slow",          "rolling-bounce",
                         "rolling-restart", "scale-out", "scale-in",  "isolate",
                         "coordinator-failover", "add-partitions", "create-topic", "subscribe", "upgrade",
                         "rolling-upgrade"};

// Config keys whose value is the period of a timer that re-arms itself (a
// metadata refresh, a retried request, a request timeout that resends): at 0
// it would fire forever at one instant. Kafka accepts 0 for them.
// A config key whose value is a list, kept apart from the scalar ones.
constexpr std::string_view kAssignmentStrategy = "partition.assignment.strategy";

const Keys kRearmingKeys{"metadata.max.age.ms", "request.timeout.ms", "retry.backoff.ms"};

class Loader {
 public:
  explicit Loader(std::string file) { s_.file = std::move(file); }

  Scenario load(const std::string& text);

 private:
  // ---- reporting ----
  [[noreturn]] void fail(Mark m, std::string msg) const { throw InputError(s_.file, m, std::move(msg)); }
  [[noreturn]] void fail(const YAML::Node& n, std::string msg) const { fail(mark_of(n), std::move(msg)); }

  // ---- shapes ----
  // The entries of a map, after checking that it is a map, that its keys are
  // plain scalars, unique and among `allowed`.
  std::vector<std::pair<std::string, YAML::Node>> entries(const YAML::Node& n, std::string_view what,
                                                          const Keys& allowed) const;
  void need_sequence(const YAML::Node& n, std::string_view what) const;
  std::string scalar(const YAML::Node& n, std::string_view what) const;
  std::string identifier(const YAML::Node& n, std::string_view what) const;
  std::int64_t integer(const YAML::Node& n, std::string_view what, std::int64_t lo, std::int64_t hi) const;
  double number(const YAML::Node& n, std::string_view what, double lo, double hi) const;
  Duration duration(const YAML::Node& n, std::string_view what) const;
  std::uint64_t size(const YAML::Node& n, std::string_view what) const;
  std::vector<std::string> string_list(const YAML::Node& n, std::string_view what);
  void count_listed(const YAML::Node& n, double names);
  bool has_topic(std::string_view name) const { return topic_names_.count(name) != 0; }
  // Topics a create-topic event brings into existence during the run.
  void note_created_topics(const YAML::Node& events);
  const YAML::Node* find(const std::vector<std::pair<std::string, YAML::Node>>& e, std::string_view key) const;
  const YAML::Node& require(const std::vector<std::pair<std::string, YAML::Node>>& e, const YAML::Node& map,
                            std::string_view key, std::string_view what) const;

  // ---- sections ----
  void top(const YAML::Node& root);
  void config(const YAML::Node& n);
  void network(const YAML::Node& n);
  void costs(const YAML::Node& n);
  void load_section(const YAML::Node& n);
  void topics(const YAML::Node& n);
  void topology(const YAML::Node& n);
  Subtopology subtopology(const YAML::Node& item);
  void repartition_sinks(const YAML::Node& n, Subtopology& st);
  void check_sources_declared(const YAML::Node& subs) const;
  void check_topology(const YAML::Node& subs) const;
  void check_state_costs(const YAML::Node& root) const;
  void check_streams_bounds() const;
  void connectors(const YAML::Node& n);
  void members(const YAML::Node& n);
  MemberSpec member(const YAML::Node& n, const Keys& allowed, std::string_view what);
  void member_fields(const std::vector<std::pair<std::string, YAML::Node>>& e, MemberSpec& m);
  void subscriptions(const YAML::Node& n, const std::vector<std::string>& topics) const;
  void initial_assignment(const YAML::Node& n);
  void check_subscribed(const YAML::Node& n, const MemberSpec& m, const std::set<std::string>& topics,
                        const ResourceIndex& index) const;
  void check_initial_tasks(const YAML::Node& n) const;
  void check_complete(const YAML::Node& n, const std::map<std::string, std::vector<std::string>>& a,
                      const ResourceIndex& index) const;
  std::map<std::string, std::vector<std::string>> assignment_map(const YAML::Node& n, std::string_view what) const;
  void events(const YAML::Node& n);
  Event event(const YAML::Node& n);
  Targets targets(const YAML::Node& n, std::string_view what);
  void metrics(const YAML::Node& n);
  void expect(const YAML::Node& n);
  Expectation expectation(const std::string& name, const YAML::Node& n) const;

  // ---- cross-checks over the whole file ----
  void assignor_exec(const YAML::Node& n);
  void check_members_over_time();
  std::vector<std::string> assignor_list(const YAML::Node& n);
  void apply_assignment_strategy();
  std::vector<std::string> strategy_;  // config partition.assignment.strategy
  Mark strategy_mark_;
  bool record_size_set_ = false;  // costs.record.size written
  void check_config();
  void check_consumer_client_keys() const;
  void check_heartbeat(std::string_view heartbeat_key, std::string_view session_key, std::string_view who) const;

  Scenario s_;
  std::set<std::string, std::less<>> topic_names_;
  std::set<std::string, std::less<>> created_topics_;
  double listed_ = 0;  // names copied from lists so far, see count_listed
};

// ---------------------------------------------------------------- shapes --

std::vector<std::pair<std::string, YAML::Node>> Loader::entries(const YAML::Node& n, std::string_view what,
                                                                const Keys& allowed) const {
  if (!n.IsMap()) fail(n, fmt::format("{} must be a map of keys to values", what));
  std::vector<std::pair<std::string, YAML::Node>> out;
  std::set<std::string> seen;
  for (const auto& kv : n) {
    if (!kv.first.IsScalar()) fail(kv.first, fmt::format("keys of {} must be plain names", what));
    const std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      fail(kv.first, fmt::format("unknown key '{}' in {}{}", key, what, did_you_mean(key, allowed)));
    if (!seen.insert(key).second) fail(kv.first, fmt::format("key '{}' appears twice in {}", key, what));
    out.emplace_back(key, kv.second);
  }
  return out;
}

const YAML::Node* Loader::find(const std::vector<std::pair<std::string, YAML::Node>>& e, std::string_view key) const {
  for (const auto& [k, v] : e)
    if (k == key) return &v;
  return nullptr;
}

const YAML::Node& Loader::require(const std::vector<std::pair<std::string, YAML::Node>>& e, const YAML::Node& map,
                                  std::string_view key, std::string_view what) const {
  const YAML::Node* v = find(e, key);
  if (v == nullptr) fail(map, fmt::format("{} needs '{}'", what, key));
  return *v;
}

void Loader::need_sequence(const YAML::Node& n, std::string_view what) const {
  if (!n.IsSequence()) fail(n, fmt::format("{} must be a list", what));
}

std::string Loader::scalar(const YAML::Node& n, std::string_view what) const {
  if (!n.IsScalar()) fail(n, fmt::format("{} must be a single value, not a {}", what, n.IsMap() ? "map" : n.IsSequence() ? "list" : "null"));
  return n.Scalar();
}

std::string Loader::identifier(const YAML::Node& n, std::string_view what) const {
  std::string v = scalar(n, what);
  if (v.empty()) fail(n, fmt::format("{} must not be empty", what));
  for (unsigned char c : v)
    if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-'))
      fail(n, fmt::format("{} '{}' may only use letters, digits, '.', '_' and '-'", what, v));
  return v;
}

std::int64_t Loader::integer(const YAML::Node& n, std::string_view what, std::int64_t lo, std::int64_t hi) const {
  const std::string t = scalar(n, what);
  const auto v = parse_integer(t);
  if (!v) fail(n, fmt::format("{} must be a whole number, got '{}'", what, t));
  if (*v < lo || *v > hi) fail(n, fmt::format("{} must be between {} and {}, got {}", what, lo, hi, *v));
  return *v;
}

double Loader::number(const YAML::Node& n, std::string_view what, double lo, double hi) const {
  const std::string t = scalar(n, what);
  const auto v = parse_number(t);
  if (!v) fail(n, fmt::format("{} must be a number, got '{}'", what, t));
  if (*v < lo || *v > hi) fail(n, fmt::format("{} must be between {} and {}, got {}", what, lo, hi, t));
  return *v;
}

Duration Loader::duration(const YAML::Node& n, std::string_view what) const {
  const std::string t = scalar(n, what);
  std::string why;
  const auto d = parse_duration(t, why);
  if (!d) fail(n, fmt::format("{}: {}", what, why));
  return *d;
}

std::uint64_t Loader::size(const YAML::Node& n, std::string_view what) const {
  const std::string t = scalar(n, what);
  std::string why;
  const auto v = parse_size(t, why);
  if (!v) fail(n, fmt::format("{}: {}", what, why));
  return *v;
}

std::vector<std::string> Loader::string_list(const YAML::Node& n, std::string_view what) {
  need_sequence(n, what);
  count_listed(n, static_cast<double>(n.size()));
  std::vector<std::string> out;
  for (const auto& item : n) out.push_back(scalar(item, fmt::format("an entry of {}", what)));
  return out;
}

// A YAML alias repeats a list at every use for a few bytes of file, so the
// names the loader copies are counted before it copies them.
void Loader::count_listed(const YAML::Node& n, double names) {
  listed_ += names;
  if (listed_ > kMaxListedNames)
    fail(n, fmt::format("the file lists more than {} names (subscriptions and member lists, an alias counting at "
                        "every use), more than this simulator loads",
                        format_count(kMaxListedNames)));
}

// ---------------------------------------------------------------- top --

Scenario Loader::load(const std::string& text) {
  if (const auto fault = find_text_fault(text)) fail(Mark{fault->line, fault->column}, fault->what);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(mark_of(e), fmt::format("not valid YAML: {}", e.msg));
  }
  if (!root.IsDefined() || root.IsNull())
    fail(Mark{1, 1}, "the file is empty; a scenario needs at least name, duration, members and topics");
  top(root);
  return std::move(s_);
}

void Loader::top(const YAML::Node& root) {
  static const Keys kTop{"name",   "description", "seed",    "duration",  "protocol",           "assignor",
                         "config", "network",     "costs",   "load",      "topics",             "topology",
                         "connectors", "members", "initial-assignment", "events", "metrics", "expect"};
  const auto e = entries(root, "the scenario", kTop);
  s_.name = scalar(require(e, root, "name", "a scenario"), "name");
  if (s_.name.empty()) fail(*find(e, "name"), "name must not be empty");
  s_.duration = duration(require(e, root, "duration", "a scenario"), "duration");
  s_.duration_mark = mark_of(*find(e, "duration"));
  if (s_.duration <= Duration{0}) fail(*find(e, "duration"), "duration must be longer than 0s");
  if (auto* v = find(e, "description")) s_.description = scalar(*v, "description");
  if (auto* v = find(e, "seed")) s_.seed = static_cast<std::uint64_t>(integer(*v, "seed", 0, INT64_MAX));
  if (auto* v = find(e, "protocol")) {
    s_.protocol = scalar(*v, "protocol");
    s_.protocol_mark = mark_of(*v);
    if (protocols::find_protocol(s_.protocol) == nullptr)
      fail(*v, fmt::format("unknown protocol '{}'{}; one of: {}", s_.protocol,
                           did_you_mean(s_.protocol, protocols::protocol_names()),
                           fmt::join(protocols::protocol_names(), ", ")));
  }
  if (auto* v = find(e, "assignor")) {
    s_.assignor_mark = mark_of(*v);
    if (v->IsMap()) assignor_exec(*v);
    else s_.assignor = scalar(*v, "assignor");
    if (*s_.assignor == "exec" && !s_.assignor_exec)
      fail(*v, "assignor exec needs the command: assignor: {exec: [python3, my_assignor.py]}");
    const auto family = protocols::find_protocol(s_.protocol)->family;
    if (protocols::find_assignor(family, *s_.assignor) == nullptr)
      fail(*v, fmt::format("unknown {} assignor '{}' for protocol '{}'{}; one of: {}",
                           protocols::family_name(family), *s_.assignor, s_.protocol,
                           did_you_mean(*s_.assignor, protocols::assignor_names(family)),
                           fmt::join(protocols::assignor_names(family), ", ")));
  }
  // Order matters: members and events refer to topics and connectors.
  if (auto* v = find(e, "config")) config(*v);
  if (auto* v = find(e, "network")) network(*v);
  if (auto* v = find(e, "costs")) costs(*v);
  if (auto* v = find(e, "load")) load_section(*v);
  if (auto* v = find(e, "topics")) topics(*v);
  if (auto* v = find(e, "events")) note_created_topics(*v);
  if (auto* v = find(e, "topology")) topology(*v);
  if (auto* v = find(e, "connectors")) connectors(*v);
  members(require(e, root, "members", "a scenario"));
  if (auto* v = find(e, "initial-assignment")) initial_assignment(*v);
  if (auto* v = find(e, "events")) events(*v);
  if (auto* v = find(e, "metrics")) metrics(*v);
  if (auto* v = find(e, "expect")) expect(*v);
  if (s_.topics.empty() && s_.connectors.empty())
    fail(root, "a scenario needs resources: 'topics' (consumers, streams) or 'connectors' (Connect)");
  check_config();
  check_state_costs(root);
  check_budget(s_, s_.protocol, false);  // before member ids are expanded; a run keeping its trace checks again
  apply_assignment_strategy();
  check_members_over_time();
  check_assignor_lists(s_);  // needs `all` resolved
  check_time_range(s_);  // needs `all` resolved
}

// ---------------------------------------------------------------- sections --

// `assignor: {exec: [COMMAND, ARGS..], timeout: 10s}`: a plug-in process.
void Loader::assignor_exec(const YAML::Node& n) {
  const auto e = entries(n, "assignor", {"exec", "timeout", "supported-protocols"});
  AssignorExec x;
  x.command = string_list(require(e, n, "exec", "assignor (as a map)"), "exec");
  if (x.command.empty()) fail(*find(e, "exec"), "exec needs a command, e.g. [python3, my_assignor.py]");
  for (std::size_t i = 0; i < x.command.size(); ++i)
    if (x.command[i].empty() || x.command[i].find('\0') != std::string::npos)
      fail((*find(e, "exec"))[i], "an exec argument must be a non-empty string without NUL characters");
  if (auto* v = find(e, "timeout")) {
    x.timeout = duration(*v, "timeout");
    if (x.timeout < std::chrono::milliseconds(1) || x.timeout > std::chrono::hours(1))
      fail(*v, "timeout (wall clock per request) must be between 1ms and 1h");
  }
  // Kafka's ConsumerPartitionAssignor.supportedProtocols(): [eager] unless
  // said; it decides a client's protocol where assignors lists name exec.
  if (auto* v = find(e, "supported-protocols")) {
    const auto list = string_list(*v, "supported-protocols");
    for (std::size_t i = 0; i < list.size(); ++i)
      if (list[i] != "eager" && list[i] != "cooperative")
        fail((*v)[i], fmt::format("supported-protocols takes eager and cooperative (the classic rebalance protocols), not '{}'", list[i]));
    if (std::find(list.begin(), list.end(), "eager") == list.end())
      fail(*v, "supported-protocols must list eager (every Kafka client assignor supports it)");
    x.supports_cooperative = std::find(list.begin(), list.end(), "cooperative") != list.end();
  }
  s_.assignor = "exec";
  s_.assignor_exec = std::move(x);
}

void Loader::config(const YAML::Node& n) {
  auto names = config_key_names();
  names.push_back(kAssignmentStrategy);
  for (const auto& [key, v] : entries(n, "config", names)) {
    if (key == kAssignmentStrategy) {  // a list: every member's, see apply_assignment_strategy
      strategy_ = assignor_list(v);
      strategy_mark_ = mark_of(v);
      continue;
    }
    const ConfigKey* k = find_config_key(key);
    const std::string what = fmt::format("config '{}'", key);
    ConfigValue value;
    switch (k->kind) {
      case ConfigKind::Millis: {
        // As in Kafka, a bare integer for a `.ms` key means milliseconds.
        const std::string t = scalar(v, what);
        if (auto ms = parse_integer(t)) {
          if (*ms < 0 || *ms > INT32_MAX) fail(v, fmt::format("{} must be between 0 and {}, got {}", what, INT32_MAX, *ms));
          value = Duration{*ms * 1000};
        } else {
          value = duration(v, what);
        }
        const bool rearms = std::find(kRearmingKeys.begin(), kRearmingKeys.end(), key) != kRearmingKeys.end();
        if (rearms && std::get<Duration>(value) == Duration{0})
          fail(v, fmt::format("{} must be above 0 in this simulator (Kafka accepts 0): it is the period of a timer "
                              "that re-arms itself, which at 0 would fire forever at one instant", what));
        break;
      }
      case ConfigKind::Integer:
        // A round that may move nothing would never converge.
        value = integer(v, what, key == "incremental.max.moves.per.round" ? 1 : 0, INT32_MAX);
        break;
      case ConfigKind::Number:
        value = number(v, what, 0, 1e18);
        break;
      case ConfigKind::Text: {
        const std::string t = scalar(v, what);
        if (key == "group.consumer.migration.policy" && t != "bidirectional" && t != "upgrade" && t != "downgrade" &&
            t != "disabled")
          fail(v, fmt::format("{} must be bidirectional, upgrade, downgrade or disabled, got '{}'", what, t));
        // A record key's string: int16 length, and Kafka refuses an empty id.
        if (key == "group.id" && (t.empty() || t.size() > 32767))
          fail(v, fmt::format("{} must be 1 to 32767 bytes, got {}", what, t.size()));
        value = t;
        break;
      }
    }
    s_.config[key] = ConfigEntry{value, mark_of(v)};
  }
}

void Loader::network(const YAML::Node& n) {
  for (const auto& [key, v] : entries(n, "network", {"latency", "drop", "drop-until", "bandwidth"})) {
    if (key == "drop-until") {
      s_.drop_until = duration(v, "network drop-until");
      continue;
    }
    if (key == "bandwidth") {
      std::string why;
      auto r = parse_rate(scalar(v, "network bandwidth"), why);
      if (!r) fail(v, fmt::format("network bandwidth: {}", why));
      if (*r == 0) fail(v, "network bandwidth must be above 0 (leave it out for no transfer time)");
      s_.bandwidth_bytes_per_s = *r;
      continue;
    }
    if (key == "drop") {
      s_.drop = number(v, "network drop probability", 0.0, 1.0);
      if (s_.drop >= 1.0) fail(v, "network drop probability must be below 1 (every message lost never converges)");
      continue;
    }
    if (v.IsScalar()) {
      s_.latency = LatencyModel::fixed(duration(v, "network latency"));
      continue;
    }
    const auto model = entries(v, "network latency", {"uniform", "exponential"});
    if (model.size() != 1) fail(v, "network latency takes one model: a duration, {uniform: [lo, hi]} or {exponential: mean}");
    const auto& [kind, arg] = model.front();
    if (kind == "exponential") {
      s_.latency = LatencyModel::exponential(duration(arg, "exponential latency mean"));
    } else {
      need_sequence(arg, "uniform latency");
      if (arg.size() != 2) fail(arg, "uniform latency takes two durations: [lo, hi]");
      const Duration lo = duration(arg[0], "uniform latency low");
      const Duration hi = duration(arg[1], "uniform latency high");
      if (hi < lo) fail(arg, "uniform latency: high must not be below low");
      s_.latency = LatencyModel::uniform(lo, hi);
    }
  }
}

void Loader::costs(const YAML::Node& n) {
  s_.costs.mark = mark_of(n);
  for (const auto& [key, v] : entries(n, "costs", {"revoke", "assign", "state", "restore.rate", "changelog.rate", "record.size"})) {
    if (key == "revoke") s_.costs.revoke = duration(v, "revoke cost");
    if (key == "assign") s_.costs.assign = duration(v, "assign cost");
    if (key == "state") s_.costs.state_bytes = size(v, "state size");
    if (key == "record.size") {
      s_.costs.record_bytes = size(v, "record size");
      if (s_.costs.record_bytes == 0) fail(v, "record.size must be above 0");
      record_size_set_ = true;
    }
    if (key == "restore.rate") {
      std::string why;
      const std::string t = scalar(v, "restore.rate");
      auto r = parse_rate(t, why);
      if (!r) fail(v, fmt::format("restore.rate: {}", why));
      if (*r == 0) fail(v, "restore.rate must be above 0");
      s_.costs.restore_bytes_per_s = *r;
    }
    if (key == "changelog.rate") {
      std::string why;
      auto r = parse_rate(scalar(v, "changelog.rate"), why);
      if (!r) fail(v, fmt::format("changelog.rate: {}", why));
      s_.costs.changelog_bytes_per_s = *r;
    }
  }
}

// Restoring state takes its size over the restore rate: a Streams scenario
// with state must say how fast its changelogs are read.
void Loader::check_state_costs(const YAML::Node& root) const {
  if (s_.subtopologies.empty()) {
    if (s_.costs.state_bytes > 0 || s_.costs.restore_bytes_per_s > 0 || s_.costs.changelog_bytes_per_s > 0 || record_size_set_)
      fail(root["costs"], "costs state, restore.rate, changelog.rate and record.size are a Streams application's; this scenario has no topology");
    return;
  }
  if (s_.costs.state_bytes > 0 && s_.costs.restore_bytes_per_s == 0)
    fail(root["costs"], "costs.state needs costs.restore.rate (how fast a changelog is restored, e.g. 100MB/s)");
}

void Loader::load_section(const YAML::Node& n) {
  Load l;
  const auto e = entries(n, "load", {"produce.rate", "process.rate"});
  l.produce_rate = number(require(e, n, "produce.rate", "load"), "produce.rate", 0, 1e12);
  l.process_rate = number(require(e, n, "process.rate", "load"), "process.rate", 0, 1e12);
  s_.load = l;
}

void Loader::topics(const YAML::Node& n) {
  need_sequence(n, "topics");
  for (const auto& item : n) {
    const auto e = entries(item, "a topic", {"name", "partitions"});
    Topic t;
    t.mark = mark_of(item);
    t.name = identifier(require(e, item, "name", "a topic"), "topic name");
    t.partitions = static_cast<int>(integer(require(e, item, "partitions", "a topic"), "partitions", 1, kMaxPartitions));
    if (!topic_names_.insert(t.name).second) fail(*find(e, "name"), fmt::format("topic '{}' is declared twice", t.name));
    s_.topics.push_back(t);
  }
}

void Loader::topology(const YAML::Node& n) {
  const auto e = entries(n, "topology", {"subtopologies"});
  const YAML::Node& subs = require(e, n, "subtopologies", "topology");
  need_sequence(subs, "subtopologies");
  for (const auto& item : subs) s_.subtopologies.push_back(subtopology(item));
  check_sources_declared(subs);
  check_topology(subs);
}

Subtopology Loader::subtopology(const YAML::Node& item) {
  const auto se = entries(item, "a subtopology", {"id", "source", "repartition-sink", "state", "copartition"});
  Subtopology st;
  st.mark = mark_of(item);
  st.id = identifier(require(se, item, "id", "a subtopology"), "subtopology id");
  st.source = string_list(require(se, item, "source", "a subtopology"), "source");
  if (auto* v = find(se, "repartition-sink")) repartition_sinks(*v, st);
  if (auto* v = find(se, "state")) st.state = string_list(*v, "state");
  if (auto* v = find(se, "copartition")) {
    need_sequence(*v, "copartition");
    for (const auto& group : *v) st.copartition.push_back(string_list(group, "a co-partition group"));
  }
  return st;
}

// Each entry is a topic name, or {name, partitions} to enforce its count
// instead of deriving it (Kafka's repartition source topic partitions).
void Loader::repartition_sinks(const YAML::Node& n, Subtopology& st) {
  need_sequence(n, "repartition-sink");
  count_listed(n, static_cast<double>(n.size()));
  for (const auto& item : n) {
    if (!item.IsMap()) {
      st.repartition_sink.push_back(identifier(item, "repartition topic name"));
      continue;
    }
    const auto e = entries(item, "a repartition topic", {"name", "partitions"});
    const std::string name = identifier(require(e, item, "name", "a repartition topic"), "repartition topic name");
    st.repartition_sink.push_back(name);
    st.sink_partitions[name] = static_cast<int>(integer(require(e, item, "partitions", "a repartition topic"), "partitions", 1, kMaxPartitions));
  }
}

// The names only (the events themselves are read later): a topology may read
// a topic that is created during the run.
void Loader::note_created_topics(const YAML::Node& events) {
  if (!events.IsSequence()) return;
  for (const auto& item : events)
    if (item.IsMap() && item["create-topic"] && item["create-topic"].IsScalar())
      created_topics_.insert(item["create-topic"].Scalar());
}

// A source is a declared topic, one a create-topic event creates, or another
// sub-topology's repartition topic;
// anything else is a typo. (A declared topic that does not exist yet is the
// group's MISSING_SOURCE_TOPICS status, not an error: see
// protocols/streams/topology.hpp.) A repartition topic is the group's own
// internal topic, not one of the cluster's `topics:`.
void Loader::check_sources_declared(const YAML::Node& subs) const {
  std::set<std::string, std::less<>> sinks;
  for (std::size_t i = 0; i < s_.subtopologies.size(); ++i)
    for (std::size_t j = 0; j < s_.subtopologies[i].repartition_sink.size(); ++j) {
      const auto& r = s_.subtopologies[i].repartition_sink[j];
      if (has_topic(r))
        fail(subs[i]["repartition-sink"][j], fmt::format("'{}' is a topic of `topics:`; a repartition topic is internal to the application and declared only here", r));
      sinks.insert(r);
    }
  Keys known(topic_names_.begin(), topic_names_.end());
  known.insert(known.end(), created_topics_.begin(), created_topics_.end());
  known.insert(known.end(), sinks.begin(), sinks.end());
  for (std::size_t i = 0; i < s_.subtopologies.size(); ++i) {
    const auto& st = s_.subtopologies[i];
    for (std::size_t j = 0; j < st.source.size(); ++j) {
      const auto& src = st.source[j];
      if (!has_topic(src) && created_topics_.count(src) == 0 && sinks.count(src) == 0)
        fail(subs[i]["source"][j], fmt::format("subtopology '{}' reads '{}', which is neither a declared topic nor a repartition-sink{}", st.id, src, did_you_mean(src, known)));
    }
  }
}

// The structure (duplicate ids, cycles, co-partition groups) and the counts
// the topics at 0s give; an error points at the entry it is about.
void Loader::check_topology(const YAML::Node& subs) const {
  namespace streams = protocols::streams;
  try {
    const auto topology = streams::Topology::build(subtopology_specs(s_.subtopologies));
    const auto configured = streams::configure(topology, initial_topic_metadata(s_));
    // Missing source topics are a status (a create-topic event creates them).
    if (configured.status == streams::TopologyStatus::InconsistentInternalTopics)
      fail(subs[configured.failed_subtopology]["copartition"][configured.failed_copartition_group],
           fmt::format("co-partitioned topics do not have the same partition count: {} ({})", configured.status_detail,
                       streams::status_name(configured.status)));
  } catch (const streams::TopologyError& e) {
    static const char* const kFieldKeys[] = {"id", "source", "repartition-sink", "copartition"};
    const YAML::Node field = subs[e.subtopology][kFieldKeys[static_cast<int>(e.field)]];
    const YAML::Node item = e.field == streams::Field::Id ? field : field[e.item];
    fail(item.IsDefined() ? item : field, e.what());
  }
}

void Loader::connectors(const YAML::Node& n) {
  need_sequence(n, "connectors");
  std::set<std::string> names;
  for (const auto& item : n) {
    const auto e = entries(item, "a connector", {"name", "tasks", "revoke-cost", "assign-cost"});
    Connector c;
    c.mark = mark_of(item);
    c.name = identifier(require(e, item, "name", "a connector"), "connector name");
    c.tasks = static_cast<int>(integer(require(e, item, "tasks", "a connector"), "tasks", 0, kMaxPartitions));
    if (auto* v = find(e, "revoke-cost")) c.revoke_cost = duration(*v, "revoke cost");
    if (auto* v = find(e, "assign-cost")) c.assign_cost = duration(*v, "assign cost");
    if (!names.insert(c.name).second) fail(*find(e, "name"), fmt::format("connector '{}' is declared twice", c.name));
    s_.connectors.push_back(c);
  }
}

void Loader::subscriptions(const YAML::Node& n, const std::vector<std::string>& topics) const {
  for (std::size_t i = 0; i < topics.size(); ++i) {
    if (has_topic(topics[i])) continue;
    Keys names;
    for (const auto& t : s_.topics) names.push_back(t.name);
    fail(n[i], fmt::format("unknown topic '{}'{}", topics[i], did_you_mean(topics[i], names)));
  }
}

void Loader::member_fields(const std::vector<std::pair<std::string, YAML::Node>>& e, MemberSpec& m) {
  for (const auto& [key, v] : e) {
    if (key == "id") m.id = identifier(v, "member id");
    if (key == "subscribe") {
      m.subscribe = string_list(v, "subscribe");
      subscriptions(v, m.subscribe);
    }
    if (key == "instance-id") m.instance_id = identifier(v, "instance-id");
    if (key == "rack") m.rack = identifier(v, "rack");
    if (key == "process") {
      if (s_.subtopologies.empty()) fail(v, "'process' is a Streams member's instance; this scenario has no topology");
      m.process = identifier(v, "process");
    }
    if (key == "start") m.start = duration(v, "start");
    if (key == "assignors") {
      m.assignors = assignor_list(v);
      m.assignors_mark = mark_of(v);
    }
  }
}

// config partition.assignment.strategy: the list of every member (and
// joining member) that has no `assignors:` of its own, as the clients'
// common configuration. Scale-out members take the scenario's assignor.
void Loader::apply_assignment_strategy() {
  if (strategy_.empty()) return;
  auto apply = [this](MemberSpec& m) {
    if (!m.assignors.empty()) return;
    m.assignors = strategy_;
    m.assignors_mark = strategy_mark_;
  };
  for (auto& m : s_.members) apply(m);
  for (auto& ev : s_.events)
    if (auto* j = std::get_if<Join>(&ev.action)) apply(j->member);
}

// partition.assignment.strategy as a list: classic client-side assignors,
// each once, at least one (what the classic family's clients accept).
std::vector<std::string> Loader::assignor_list(const YAML::Node& n) {
  std::vector<std::string> list = string_list(n, "assignors");
  if (list.empty()) fail(n, "assignors lists no assignor; give at least one, e.g. [cooperative-sticky, range]");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto* a = protocols::find_assignor(protocols::Family::Classic, list[i]);
    if (list[i] == "exec" && !s_.assignor_exec)
      fail(n[i], "'exec' in assignors is the scenario's plug-in: give its command as assignor: {exec: [python3, my_assignor.py]}");
    if (a == nullptr || list[i] == "connect" || list[i] == "high-availability")
      fail(n[i], fmt::format("unknown client-side assignor '{}' in assignors{}; it takes range, roundrobin, sticky, cooperative-sticky or exec (the scenario's plug-in)",
                             list[i], did_you_mean(list[i], {"range", "roundrobin", "sticky", "cooperative-sticky", "exec"})));
    if (std::find(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(i), list[i]) != list.begin() + static_cast<std::ptrdiff_t>(i))
      fail(n[i], fmt::format("assignor '{}' is listed twice", list[i]));
  }
  return list;
}

MemberSpec Loader::member(const YAML::Node& n, const Keys& allowed, std::string_view what) {
  const auto e = entries(n, what, allowed);
  MemberSpec m;
  m.mark = mark_of(n);
  require(e, n, "id", what);
  member_fields(e, m);
  return m;
}

void Loader::members(const YAML::Node& n) {
  s_.members_mark = mark_of(n);
  if (n.IsMap()) {  // {count: 100, prefix: m, subscribe: [...], ...}
    Keys allowed{"count", "prefix", "subscribe", "instance-id-prefix", "rack", "start", "assignors"};
    const auto e = entries(n, "members", allowed);
    const int count = static_cast<int>(integer(require(e, n, "count", "members"), "members count", 1, kMaxMembers));
    s_.member_prefix = identifier(require(e, n, "prefix", "members"), "members prefix");
    int width = 1;
    for (int v = count - 1; v >= 10; v /= 10) ++width;
    s_.member_number_width = std::max(3, width);
    MemberSpec proto;
    std::vector<std::pair<std::string, YAML::Node>> common;
    for (const auto& kv : e)
      if (kv.first == "subscribe" || kv.first == "rack" || kv.first == "start" || kv.first == "assignors") common.push_back(kv);
    member_fields(common, proto);
    count_listed(n, static_cast<double>(count - 1) * static_cast<double>(proto.subscribe.size()));  // the copies
    std::optional<std::string> instance_prefix;
    if (auto* v = find(e, "instance-id-prefix")) instance_prefix = identifier(*v, "instance-id-prefix");
    for (int i = 0; i < count; ++i) {
      MemberSpec m = proto;
      m.mark = mark_of(n);
      const std::string number = fmt::format("{:0{}}", i, s_.member_number_width);
      m.id = s_.member_prefix + number;
      if (instance_prefix) m.instance_id = *instance_prefix + number;
      s_.members.push_back(m);
    }
  } else {
    need_sequence(n, "members");
    if (n.size() > static_cast<std::size_t>(kMaxMembers))
      fail(n, fmt::format("members lists {} members, more than the {} this simulator takes in one run",
                          format_count(static_cast<double>(n.size())), format_count(kMaxMembers)));
    std::set<std::string> ids;
    for (const auto& item : n) {
      MemberSpec m = member(item, kMemberKeys, "a member");
      if (!ids.insert(m.id).second) fail(item["id"], fmt::format("member id '{}' is used twice", m.id));
      s_.members.push_back(m);
    }
  }
  if (s_.members.empty()) fail(n, "a scenario needs at least one member");
  std::set<std::string> instances;
  for (const auto& m : s_.members) {
    if (m.instance_id && !instances.insert(*m.instance_id).second)
      fail(m.mark, fmt::format("instance-id '{}' is used by two members", *m.instance_id));
    if (m.start > s_.duration)
      fail(m.mark, fmt::format("member '{}' starts at {}, after the end of the run ({})", m.id, format_duration(m.start), format_duration(s_.duration)));
    if (m.subscribe.empty() && !s_.topics.empty() && s_.subtopologies.empty() && s_.connectors.empty())
      fail(m.mark, fmt::format("member '{}' subscribes to nothing; add subscribe: [TOPIC, ...]", m.id));
  }
}

std::map<std::string, std::vector<std::string>> Loader::assignment_map(const YAML::Node& n, std::string_view what) const {
  if (!n.IsMap()) fail(n, fmt::format("{} must map member ids to lists of resources", what));
  const ResourceIndex index(s_);
  std::map<std::string, std::vector<std::string>> out;
  std::map<std::string, std::string> owner;  // by the simulator's name: T-01 and T-1 are one partition
  for (const auto& kv : n) {
    const std::string member = scalar(kv.first, "a member id");
    if (out.count(member) != 0) fail(kv.first, fmt::format("member '{}' appears twice in {}", member, what));
    auto& list = out[member];
    need_sequence(kv.second, fmt::format("{} of '{}'", what, member));
    for (const auto& r : kv.second) {
      const std::string name = scalar(r, "a resource");
      const Resource resource = check_resource(index, name);
      if (!resource.error.empty()) fail(r, fmt::format("unknown resource '{}': {}", name, resource.error));
      if (auto [it, fresh] = owner.emplace(resource.name, member); !fresh)
        fail(r, fmt::format("resource '{}' is given to both '{}' and '{}'", name, it->second, member));
      list.push_back(name);
    }
  }
  return out;
}

void Loader::initial_assignment(const YAML::Node& n) {
  auto a = assignment_map(n, "initial-assignment");
  std::map<std::string, const MemberSpec*> by_id;
  for (const auto& m : s_.members) by_id.emplace(m.id, &m);
  const ResourceIndex index(s_);
  // Members made by `count` subscribe alike: the set of a subscription is
  // built again only when it differs from the member's before (10,000
  // members on 1,000 topics built 10 million nodes; issue 16).
  const std::vector<std::string>* subscribed = nullptr;
  std::set<std::string> topics;
  for (const auto& kv : n) {
    const std::string id = kv.first.Scalar();
    const auto it = by_id.find(id);
    if (it == by_id.end()) {
      Keys ids;
      for (const auto& m : s_.members) ids.push_back(m.id);
      fail(kv.first, fmt::format("initial-assignment names unknown member '{}'{}", id, did_you_mean(id, ids)));
    }
    if (it->second->start != Duration{0})
      fail(kv.first, fmt::format("member '{}' starts at {}; only members present at 0s can start with an assignment", id, format_duration(it->second->start)));
    if (subscribed == nullptr || *subscribed != it->second->subscribe) {
      subscribed = &it->second->subscribe;
      topics = std::set<std::string>(subscribed->begin(), subscribed->end());
    }
    check_subscribed(kv.second, *it->second, topics, index);
  }
  check_complete(n, a, index);
  check_initial_tasks(n);
  s_.initial_assignment = std::move(a);
}

// A Streams group starts stable with every task of the topology, configured
// against the topics at 0s, active on exactly one member (standbys are the
// coordinator's to place).
void Loader::check_initial_tasks(const YAML::Node& n) const {
  if (s_.subtopologies.empty() || s_.protocol != "streams") return;
  const auto configured = protocols::streams::configure(streams_topology(s_), initial_topic_metadata(s_));
  if (!configured.ready())
    fail(n, fmt::format("initial-assignment: the topology has no tasks at 0s ({}: {})", status_name(configured.status),
                        configured.status_detail));
  const auto ids = configured.task_ids();
  std::set<std::string> tasks(ids.begin(), ids.end()), given;
  for (const auto& kv : n)
    for (const auto& r : kv.second) {
      const auto t = protocols::streams::parse_task(r.Scalar());
      const std::string name = t ? protocols::streams::to_string(*t) : r.Scalar();
      if (tasks.count(name) == 0)
        fail(r, fmt::format("initial-assignment: '{}' is not a task of the topology (tasks {} to {}){}", r.Scalar(),
                            ids.front(), ids.back(), did_you_mean(r.Scalar(), Keys(ids.begin(), ids.end()))));
      given.insert(name);
    }
  std::vector<std::string> missing;
  for (const auto& t : ids)
    if (given.count(t) == 0) missing.push_back(t);
  if (!missing.empty())
    fail(n, fmt::format("initial-assignment leaves task{} {}{} unassigned; a stable group runs every task actively",
                        missing.size() > 1 ? "s" : "", fmt::join(missing.begin(), missing.begin() + std::min<std::size_t>(missing.size(), 5), ", "),
                        missing.size() > 5 ? fmt::format(" and {} more", missing.size() - 5) : std::string()));
}

// A member owns only what it runs: partitions of the topics it subscribes
// to or, a Connect worker without subscribe, any connector and task.
// Stream tasks come from the topology, which this version does not simulate.
// `topics`: m's subscription as a set.
void Loader::check_subscribed(const YAML::Node& list, const MemberSpec& m, const std::set<std::string>& topics,
                              const ResourceIndex& index) const {
  if (!s_.subtopologies.empty()) return;
  const bool worker = m.subscribe.empty() && !s_.connectors.empty();
  for (const auto& r : list) {
    const std::string owner = check_resource(index, r.Scalar()).owner;
    if (worker ? index.tasks.count(owner) == 0 : topics.count(owner) == 0)
      fail(r, fmt::format("member '{}' is given {} but does not subscribe to '{}'", m.id, r.Scalar(), owner));
  }
}

// The run starts Stable from the initial assignment, and a Stable group
// never assigns what nobody owns: every resource a member present at 0s
// runs must be someone's. Counted per topic or connector, so that only a
// few missing names are ever spelled out.
void Loader::check_complete(const YAML::Node& n, const std::map<std::string, std::vector<std::string>>& a,
                            const ResourceIndex& index) const {
  if (!s_.subtopologies.empty()) return;
  std::map<std::string, std::int64_t> have;  // topic or connector -> resources assigned
  for (const auto& [member, list] : a)
    for (const auto& r : list) ++have[owner_of(index, r)];
  std::set<std::string> topics;
  bool workers = false;
  const std::vector<std::string>* last = nullptr;  // members made by `count` subscribe alike
  for (const auto& m : s_.members) {
    if (m.start != Duration{0}) continue;
    if (last == nullptr || *last != m.subscribe) topics.insert(m.subscribe.begin(), m.subscribe.end());
    last = &m.subscribe;
    workers |= m.subscribe.empty() && !s_.connectors.empty();
  }
  // The names assigned, as the simulator writes them: only to spell out a
  // few missing ones, so only once something is.
  std::optional<std::set<std::string>> assigned;
  auto assigned_names = [&]() -> const std::set<std::string>& {
    if (!assigned) {
      assigned.emplace();
      for (const auto& [member, list] : a)
        for (const auto& r : list) assigned->insert(check_resource(index, r).name);
    }
    return *assigned;
  };
  std::vector<std::string> names;  // the first few missing
  std::int64_t missing = 0;
  auto need = [&](const std::string& owner, std::int64_t count, auto name_of) {
    const std::int64_t gap = count - have[owner];
    missing += gap;
    for (std::int64_t i = 0; gap > 0 && names.size() < 5 && i < count; ++i)
      if (assigned_names().count(name_of(i)) == 0) names.push_back(name_of(i));
  };
  for (const auto& t : s_.topics)
    if (topics.count(t.name) != 0) need(t.name, t.partitions, [&](std::int64_t i) { return partition_name(t.name, static_cast<int>(i)); });
  for (const auto& c : s_.connectors)
    if (workers) need(c.name, c.tasks + 1, [&](std::int64_t i) { return i == 0 ? c.name : fmt::format("{}/{}", c.name, i - 1); });
  if (missing == 0) return;
  const std::int64_t more = missing - static_cast<std::int64_t>(names.size());
  fail(n, fmt::format("initial-assignment leaves {}{} unassigned; a stable group owns every {} its members {}",
                      fmt::join(names, ", "), more > 0 ? fmt::format(" and {} more", more) : std::string(),
                      s_.connectors.empty() ? "partition" : "resource",
                      s_.connectors.empty() ? "subscribe to" : "run (their topics' partitions; every connector and task for a Connect worker)"));
}

Targets Loader::targets(const YAML::Node& n, std::string_view what) {
  Targets t;
  if (n.IsScalar() && n.Scalar() == "all") {
    t.all = true;
    return t;
  }
  if (n.IsScalar()) fail(n, fmt::format("{} takes 'all' or a list of member ids", what));
  t.ids = string_list(n, what);
  if (t.ids.empty()) fail(n, fmt::format("{} needs at least one member", what));
  return t;
}

void Loader::events(const YAML::Node& n) {
  need_sequence(n, "events");
  if (n.size() > kMaxEvents)
    fail(n, fmt::format("events lists {} events, more than the {} this simulator takes in one file",
                        format_count(static_cast<double>(n.size())), format_count(static_cast<double>(kMaxEvents))));
  for (const auto& item : n) s_.events.push_back(event(item));
  std::stable_sort(s_.events.begin(), s_.events.end(), [](const Event& a, const Event& b) { return a.at < b.at; });
}

Event Loader::event(const YAML::Node& n) {
  static const Keys kModifiers{"at", "subscribe", "instance-id", "rack", "process", "partitions", "down", "for", "interval", "batch", "topics", "to", "assignors"};
  Keys allowed = kEventActions;
  allowed.insert(allowed.end(), kModifiers.begin(), kModifiers.end());
  const auto e = entries(n, "an event", allowed);
  Event ev;
  ev.mark = mark_of(n);
  ev.at = duration(require(e, n, "at", "an event"), "at");
  if (ev.at > s_.duration)
    fail(*find(e, "at"), fmt::format("event at {} is after the end of the run ({})", format_duration(ev.at), format_duration(s_.duration)));
  // `subscribe` is an action on its own, and a modifier of join and scale-out.
  std::vector<std::string> actions;
  for (const auto& [k, v] : e)
    if (std::find(kEventActions.begin(), kEventActions.end(), k) != kEventActions.end()) actions.push_back(k);
  if (actions.size() > 1 && std::find(actions.begin(), actions.end(), "subscribe") != actions.end() &&
      (find(e, "join") != nullptr || find(e, "scale-out") != nullptr))
    actions.erase(std::find(actions.begin(), actions.end(), "subscribe"));
  if (actions.empty()) fail(n, fmt::format("an event needs one action: {}", fmt::join(kEventActions, ", ")));
  if (actions.size() > 1) fail(n, fmt::format("an event takes exactly one action, this one has {}", fmt::join(actions, " and ")));
  ev.kind = actions.front();
  const YAML::Node& arg = *find(e, ev.kind);

  // Which modifiers each action takes; anything else is a mistake.
  static const std::map<std::string, Keys> takes{
      {"join", {"subscribe", "instance-id", "rack", "process", "assignors"}}, {"leave", {}}, {"crash", {}},
      {"bounce", {"down"}}, {"restart", {"down"}}, {"pause", {"for"}}, {"slow", {"batch", "for"}},
      {"rolling-bounce", {"down", "interval"}}, {"rolling-restart", {"down", "interval"}},
      {"scale-out", {"subscribe"}}, {"scale-in", {}}, {"isolate", {"for"}}, {"coordinator-failover", {"down"}},
      {"add-partitions", {}}, {"create-topic", {"partitions"}}, {"subscribe", {"topics"}}, {"upgrade", {"to", "down", "assignors"}},
      {"rolling-upgrade", {"to", "down", "interval", "assignors"}}};
  const Keys& ok = takes.at(ev.kind);
  for (const auto& [k, v] : e) {
    if (k == "at" || k == ev.kind) continue;
    if (std::find(ok.begin(), ok.end(), k) == ok.end())
      fail(v, ok.empty() ? fmt::format("'{}' does not apply to a {} event", k, ev.kind)
                         : fmt::format("'{}' does not apply to a {} event (it takes {})", k, ev.kind, fmt::join(ok, ", ")));
  }
  auto need = [&](std::string_view key) -> const YAML::Node& {
    return require(e, n, key, fmt::format("a {} event", ev.kind));
  };
  auto positive = [&](std::string_view key) {
    const YAML::Node& v = need(key);
    const Duration d = duration(v, key);
    if (d <= Duration{0}) fail(v, fmt::format("'{}' must be longer than 0s", key));
    return d;
  };
  auto member_id = [&] { return scalar(arg, fmt::format("the member of a {} event", ev.kind)); };
  auto protocol_to = [&] {
    const YAML::Node& v = need("to");
    std::string p = scalar(v, "to");
    if (protocols::find_protocol(p) == nullptr)
      fail(v, fmt::format("unknown protocol '{}'{}", p, did_you_mean(p, protocols::protocol_names())));
    return p;
  };

  if (ev.kind == "join") {
    Join j;
    j.member.mark = mark_of(arg);
    j.member.id = identifier(arg, "the joining member's id");
    std::vector<std::pair<std::string, YAML::Node>> fields;
    for (const auto& kv : e)
      if (kv.first == "subscribe" || kv.first == "instance-id" || kv.first == "rack" || kv.first == "process" || kv.first == "assignors") fields.push_back(kv);
    member_fields(fields, j.member);
    j.member.start = ev.at;
    if (j.member.subscribe.empty() && !s_.topics.empty() && s_.subtopologies.empty() && s_.connectors.empty())
      fail(n, fmt::format("member '{}' joins subscribed to nothing; add subscribe: [TOPIC, ...]", j.member.id));
    ev.action = j;
  } else if (ev.kind == "leave") {
    ev.action = Leave{member_id()};
  } else if (ev.kind == "crash") {
    ev.action = Crash{member_id()};
  } else if (ev.kind == "bounce") {
    ev.action = Bounce{member_id(), positive("down")};
  } else if (ev.kind == "restart") {
    ev.action = Restart{member_id(), positive("down")};
  } else if (ev.kind == "pause") {
    ev.action = Pause{member_id(), positive("for")};
  } else if (ev.kind == "slow") {
    ev.action = Slow{member_id(), positive("batch"), positive("for")};
  } else if (ev.kind == "rolling-bounce") {
    ev.action = RollingBounce{targets(arg, "rolling-bounce"), positive("down"), positive("interval")};
  } else if (ev.kind == "rolling-restart") {
    ev.action = RollingRestart{targets(arg, "rolling-restart"), positive("down"), positive("interval")};
  } else if (ev.kind == "scale-out") {
    ScaleOut so;
    so.count = static_cast<int>(integer(arg, "scale-out count", 1, kMaxMembers));
    if (auto* v = find(e, "subscribe")) {
      so.subscribe = string_list(*v, "subscribe");
      subscriptions(*v, so.subscribe);
      count_listed(*v, static_cast<double>(so.count - 1) * static_cast<double>(so.subscribe.size()));  // each new member's copy
    }
    if (so.subscribe.empty() && !s_.topics.empty() && s_.subtopologies.empty() && s_.connectors.empty())
      fail(n, "scale-out members would subscribe to nothing; add subscribe: [TOPIC, ...]");
    ev.action = so;
  } else if (ev.kind == "scale-in") {
    ScaleIn si;
    si.members = string_list(arg, "scale-in");
    if (si.members.empty()) fail(arg, "scale-in needs at least one member");
    ev.action = si;
  } else if (ev.kind == "isolate") {
    ev.action = Isolate{member_id(), positive("for")};
  } else if (ev.kind == "coordinator-failover") {
    const std::string v = scalar(arg, "coordinator-failover");
    if (v != "true") fail(arg, fmt::format("coordinator-failover takes 'true', got '{}'", v));
    CoordinatorFailover cf;
    if (find(e, "down") != nullptr) cf.down = duration(need("down"), "down");
    ev.action = cf;
  } else if (ev.kind == "add-partitions") {
    const auto ae = entries(arg, "add-partitions", {"topic", "count"});
    AddPartitions ap;
    const YAML::Node& tn = require(ae, arg, "topic", "add-partitions");
    ap.topic = scalar(tn, "topic");
    if (!has_topic(ap.topic)) {
      Keys names;
      for (const auto& t : s_.topics) names.push_back(t.name);
      fail(tn, fmt::format("unknown topic '{}'{}", ap.topic, did_you_mean(ap.topic, names)));
    }
    ap.count = static_cast<int>(integer(require(ae, arg, "count", "add-partitions"), "count", 1, kMaxPartitions));
    ev.action = ap;
  } else if (ev.kind == "create-topic") {
    CreateTopic ct;
    ct.topic = identifier(arg, "the created topic");
    if (s_.subtopologies.empty())
      fail(arg, "create-topic makes a topic a Streams topology reads; this scenario has no topology");
    if (has_topic(ct.topic))
      fail(arg, fmt::format("topic '{}' is declared in topics: and exists from the start; create-topic is for one that does not", ct.topic));
    bool read = false;
    for (const auto& st : s_.subtopologies) read |= std::find(st.source.begin(), st.source.end(), ct.topic) != st.source.end();
    if (!read) fail(arg, fmt::format("no sub-topology reads '{}'", ct.topic));
    ct.partitions = static_cast<int>(integer(need("partitions"), "partitions", 1, kMaxPartitions));
    ev.action = ct;
  } else if (ev.kind == "subscribe") {
    Subscribe sub{member_id(), string_list(need("topics"), "topics")};
    subscriptions(need("topics"), sub.topics);
    ev.action = sub;
  } else if (ev.kind == "upgrade") {
    Upgrade u;
    u.members = string_list(arg, "upgrade");
    if (u.members.empty()) fail(arg, "upgrade needs at least one member");
    u.to = protocol_to();
    u.down = positive("down");
    if (auto* v = find(e, "assignors")) {
      u.assignors = assignor_list(*v);
      u.assignors_mark = mark_of(*v);
    }
    ev.action = u;
  } else if (ev.kind == "rolling-upgrade") {
    RollingUpgrade u{targets(arg, "rolling-upgrade"), protocol_to(), positive("down"), positive("interval"), {}, {}};
    if (auto* v = find(e, "assignors")) {
      u.assignors = assignor_list(*v);
      u.assignors_mark = mark_of(*v);
    }
    ev.action = u;
  }
  return ev;
}

void Loader::metrics(const YAML::Node& n) {
  const auto e = entries(n, "metrics", {"from"});
  if (auto* v = find(e, "from")) {
    s_.metrics_from = duration(*v, "metrics from");
    if (*s_.metrics_from > s_.duration) fail(*v, "metrics from is after the end of the run");
  }
}

Expectation Loader::expectation(const std::string& name, const YAML::Node& n) const {
  const MetricName* metric = find_metric(name);
  Expectation x;
  x.metric = name;
  x.mark = mark_of(n);
  if (metric->kind == MetricKind::Assignment) {
    x.assignment = assignment_map(n, "final-assignment");
    return x;
  }
  x.text = scalar(n, fmt::format("expected {}", name));
  if (metric->kind == MetricKind::Invariants) {
    if (x.text != "ok") fail(n, fmt::format("invariants can only be expected to be 'ok', got '{}'", x.text));
    x.word = x.text;
    return x;
  }
  std::string_view t = x.text;
  static const std::vector<std::pair<std::string_view, Comparison>> kOps{
      {"<=", Comparison::Le}, {">=", Comparison::Ge}, {"==", Comparison::Eq}, {"<", Comparison::Lt}, {">", Comparison::Gt}};
  for (const auto& [sym, op] : kOps) {
    if (t.substr(0, sym.size()) == sym) {
      x.op = op;
      t.remove_prefix(sym.size());
      break;
    }
  }
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  if (metric->kind == MetricKind::Seconds) {
    std::string why;
    auto d = parse_duration(t, why, Duration::max());  // a sum over resources may pass 10 years
    if (!d) fail(n, fmt::format("expected {}: {}", name, why));
    x.duration = d;
  } else {
    auto v = parse_number(t);
    if (!v || *v < 0) fail(n, fmt::format("expected {} must be a number, optionally after <, <=, >, >= or ==; got '{}'", name, x.text));
    x.number = v;
  }
  return x;
}

void Loader::expect(const YAML::Node& n) {
  entries(n, "expect", metric_name_list());  // shape and key checks
  for (const auto& kv : n) {
    Expectation x = expectation(kv.first.Scalar(), kv.second);
    x.mark = mark_of(kv.first);  // messages about a metric point at its name
    s_.expect.push_back(std::move(x));
  }
}

// ---------------------------------------------------------------- cross-checks --

// A heartbeat interval must be above 0 (a timer of 0 would fire forever at
// one instant) and below the session timeout it keeps alive, as Kafka
// requires: the client for the classic keys, the broker for KIP-848's.
void Loader::check_heartbeat(std::string_view heartbeat_key, std::string_view session_key, std::string_view who) const {
  auto mark = [&](std::string_view key) -> const Mark* {
    auto it = s_.config.find(std::string(key));
    return it == s_.config.end() ? nullptr : &it->second.mark;
  };
  const Duration session = config_millis(s_, session_key);
  const Duration heartbeat = config_millis(s_, heartbeat_key);
  const Mark* at = mark(heartbeat_key) ? mark(heartbeat_key) : mark(session_key);
  if (heartbeat >= session)
    fail(at ? *at : Mark{1, 1}, fmt::format("{} ({}) must be lower than {} ({}), as Kafka's {} requires", heartbeat_key,
                                            format_duration(heartbeat), session_key, format_duration(session), who));
  if (heartbeat <= Duration{0}) fail(at ? *at : Mark{1, 1}, fmt::format("{} must be above 0", heartbeat_key));
}

// Both protocol families' keys are checked whatever the file's protocol:
// `run --protocol` may run any file under either.
void Loader::check_config() {
  check_consumer_client_keys();
  check_heartbeat("heartbeat.interval.ms", "session.timeout.ms", "client");
  check_heartbeat("group.consumer.heartbeat.interval.ms", "group.consumer.session.timeout.ms", "broker");
  check_heartbeat("group.streams.heartbeat.interval.ms", "group.streams.session.timeout.ms", "broker");
  check_streams_bounds();
  if (protocols::find_protocol(s_.protocol)->family != protocols::Family::Classic) return;
  const Duration session = config_millis(s_, "session.timeout.ms");
  const Duration min_session = config_millis(s_, "group.min.session.timeout.ms");
  const Duration max_session = config_millis(s_, "group.max.session.timeout.ms");
  if (session < min_session || session > max_session) {
    auto it = s_.config.find("session.timeout.ms");
    fail(it != s_.config.end() ? it->second.mark : Mark{1, 1},
         fmt::format("session.timeout.ms ({}) is outside the broker's allowed range [{}, {}] (group.min/max.session.timeout.ms); Kafka rejects the JoinGroup with INVALID_SESSION_TIMEOUT",
                     format_duration(session), format_duration(min_session), format_duration(max_session)));
  }
}

// Kafka's consumer refuses the classic client's group settings under
// group.protocol=consumer (ConsumerConfig.checkUnsupportedConfigsPostProcess):
// the coordinator's settings and assignor apply instead. A scenario of
// another protocol keeps them for its classic members and variants.
void Loader::check_consumer_client_keys() const {
  if (s_.protocol != "consumer") return;
  static const std::pair<const char*, const char*> kInstead[] = {
      {"session.timeout.ms", "group.consumer.session.timeout.ms (the coordinator's)"},
      {"heartbeat.interval.ms", "group.consumer.heartbeat.interval.ms (the coordinator's)"},
      {"partition.assignment.strategy", "assignor: uniform or range (the broker's assignor, group.remote.assignor)"},
  };
  for (const auto& [key, instead] : kInstead) {
    const auto it = s_.config.find(key);
    const bool strategy = std::string_view(key) == kAssignmentStrategy && !strategy_.empty();
    if (it == s_.config.end() && !strategy) continue;
    fail(strategy ? strategy_mark_ : it->second.mark,
         fmt::format("{} does not apply to the consumer protocol (Kafka's consumer refuses it with group.protocol=consumer); set {} instead, "
                     "or give the scenario a classic protocol to compare classic variants with it",
                     key, instead));
  }
}

// The group.streams.* settings' bounds (GroupCoordinatorConfig, Kafka 4.2:
// group.streams.min/max.session.timeout.ms 45 s..60 s, min/max heartbeat
// interval 5 s..15 s, group.streams.max.standby.replicas 2): Kafka refuses
// the group config outside them.
void Loader::check_streams_bounds() const {
  struct Bound {
    const char* key;
    std::int64_t lo, hi;
    const char* limits;
  };
  static const Bound kBounds[] = {
      {"group.streams.session.timeout.ms", 45'000, 60'000, "group.streams.min/max.session.timeout.ms"},
      {"group.streams.heartbeat.interval.ms", 5'000, 15'000, "group.streams.min/max.heartbeat.interval.ms"},
      {"num.standby.replicas", 0, 2, "0 and group.streams.max.standby.replicas"},
      // Kafka Streams' own bounds (StreamsConfig: atLeast).
      {"max.warmup.replicas", 1, INT32_MAX, "StreamsConfig: at least 1"},
      {"acceptable.recovery.lag", 0, INT64_MAX, "StreamsConfig: at least 0"},
      {"probing.rebalance.interval.ms", 60'000, INT64_MAX, "StreamsConfig: at least 60000"},
      // KafkaStreams schedules its state cleaner at this period, which
      // ScheduledExecutorService refuses unless positive.
      {"state.cleanup.delay.ms", 1, INT64_MAX, "KafkaStreams: the state cleaner's period, positive"},
  };
  for (const auto& b : kBounds) {
    auto it = s_.config.find(b.key);
    if (it == s_.config.end()) continue;
    const bool millis = std::holds_alternative<Duration>(it->second.value);
    const std::int64_t v = millis ? std::chrono::duration_cast<std::chrono::milliseconds>(std::get<Duration>(it->second.value)).count()
                                  : config_integer(s_, b.key);
    if (v < b.lo || v > b.hi)
      fail(it->second.mark, fmt::format("{} ({}) is outside [{}, {}] ({}); Kafka refuses it", b.key, v, b.lo, b.hi, b.limits));
  }
}

// Members referred to by events must exist, and be running, when the event
// happens. This replays membership over time as the file describes it.
void Loader::check_members_over_time() {
  std::map<std::string, Duration> present;  // id -> start
  std::set<std::string> gone;
  std::map<std::string, int> partitions;
  for (const auto& t : s_.topics) partitions[t.name] = t.partitions;
  for (const auto& m : s_.members) present[m.id] = m.start;
  std::set<std::string> known;
  for (const auto& m : s_.members) known.insert(m.id);
  for (const auto& ev : s_.events)
    if (const auto* j = std::get_if<Join>(&ev.action)) known.insert(j->member.id);
  Keys known_list(known.begin(), known.end());

  int next_number = static_cast<int>(s_.members.size());
  const std::string prefix = s_.member_prefix.empty() ? std::string("m") : s_.member_prefix;
  auto check = [&](const Event& ev, const std::string& id) {
    if (known.count(id) == 0)
      fail(ev.mark, fmt::format("{} event names unknown member '{}'{}", ev.kind, id, did_you_mean(id, known_list)));
    auto it = present.find(id);
    if (it == present.end() || gone.count(id) != 0)
      fail(ev.mark, fmt::format("{} event at {} names member '{}', which is not running then", ev.kind, format_duration(ev.at), id));
    if (it->second > ev.at)
      fail(ev.mark, fmt::format("{} event at {} names member '{}', which only starts at {}", ev.kind, format_duration(ev.at), id, format_duration(it->second)));
  };
  auto all_running = [&] {
    std::vector<std::string> ids;
    for (const auto& [id, start] : present)
      if (gone.count(id) == 0) ids.push_back(id);
    return ids;
  };
  for (auto& ev : s_.events) {
    std::visit(
        [&](auto& a) {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, Join>) {
            if (present.count(a.member.id) != 0 && gone.count(a.member.id) == 0)
              fail(ev.mark, fmt::format("member '{}' joins at {} but is already running", a.member.id, format_duration(ev.at)));
            present[a.member.id] = ev.at;
            gone.erase(a.member.id);
          } else if constexpr (std::is_same_v<A, Leave> || std::is_same_v<A, Crash>) {
            check(ev, a.member);
            gone.insert(a.member);
          } else if constexpr (std::is_same_v<A, ScaleIn>) {
            for (const auto& id : a.members) {
              check(ev, id);
              gone.insert(id);
            }
          } else if constexpr (std::is_same_v<A, Upgrade>) {
            for (const auto& id : a.members) check(ev, id);
          } else if constexpr (std::is_same_v<A, RollingBounce> || std::is_same_v<A, RollingRestart> ||
                               std::is_same_v<A, RollingUpgrade>) {
            if (a.members.all) {
              a.members.ids = all_running();
              if (a.members.ids.empty()) fail(ev.mark, fmt::format("{} of all at {}: no member is running then", ev.kind, format_duration(ev.at)));
            } else {
              for (const auto& id : a.members.ids) check(ev, id);
            }
            std::sort(a.members.ids.begin(), a.members.ids.end());
          } else if constexpr (std::is_same_v<A, ScaleOut>) {
            for (int i = 0; i < a.count; ++i) {
              std::string id;
              do {
                id = prefix + fmt::format("{:0{}}", next_number++, s_.member_number_width);
              } while (present.count(id) != 0);
              a.ids.push_back(id);
              present[id] = ev.at;
              known.insert(id);
            }
          } else if constexpr (std::is_same_v<A, AddPartitions>) {
            int& p = partitions[a.topic];
            if (a.count <= p)
              fail(ev.mark, fmt::format("add-partitions: topic '{}' already has {} partitions at {}; count is the new total and must be larger", a.topic, p, format_duration(ev.at)));
            p = a.count;
          } else if constexpr (std::is_same_v<A, CreateTopic>) {
            if (partitions.count(a.topic) != 0)
              fail(ev.mark, fmt::format("create-topic: topic '{}' exists already at {}", a.topic, format_duration(ev.at)));
            partitions[a.topic] = a.partitions;
          } else if constexpr (std::is_same_v<A, CoordinatorFailover>) {
          } else {
            check(ev, a.member);
          }
        },
        ev.action);
  }
}

}  // namespace

const Topic* Scenario::find_topic(const std::string& name) const {
  for (const auto& t : topics)
    if (t.name == name) return &t;
  return nullptr;
}

Scenario load_text(const std::string& text, const std::string& file) { return Loader(file).load(text); }

Scenario load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, Mark{}, "cannot open the file");
  std::ostringstream buf;
  buf << in.rdbuf();
  return load_text(buf.str(), path);
}

}  // namespace rsim::scenario
