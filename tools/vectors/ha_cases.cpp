#include "tools/vectors/ha_cases.hpp"

#include "protocols/streams/ha_assignor.hpp"
#include "protocols/streams/ha_properties.hpp"
#include "protocols/streams/ha_task_movement.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/yaml_mark.hpp"
#include "tools/vectors/streams_cases.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace rsim::vectors {

namespace st = protocols::streams;
namespace ha = protocols::streams::ha;
using st::TaskId;
using st::TaskSet;
using ha::ProcessId;

namespace {

// What a case's expectations read, whichever stage produced it. `standby`
// holds warm-ups too, as Kafka's ClientState.standbyTasks().
struct Outcome {
  std::map<ProcessId, TaskSet> active, standby;
  std::map<ProcessId, int> capacity;
  bool probing = false;
  int movements = -1;
};

class HaCase {
 public:
  HaCase(std::string path, const YAML::Node& c) : path_(std::move(path)), case_(c) {}

  CaseResult run() {
    CaseResult r;
    r.name = case_["name"] ? case_["name"].as<std::string>() : std::string("?");
    r.method = case_["method"] ? case_["method"].as<std::string>() : std::string();
    r.assignor = "high-availability";
    const YAML::Node& input = case_["input"];
    const YAML::Node& expect = case_["expect"];
    if (!input || !input.IsMap() || !input["tasks"] || !input["clients"]) fail(case_, "a case needs input.tasks and input.clients");
    if (!expect || !expect.IsMap()) fail(case_, "a case needs an 'expect' map");
    all_ = task_list(input["tasks"], {});
    stateful_ = input["stateful"] ? task_list(input["stateful"], all_) : TaskSet{};
    const std::string stage = case_["stage"] ? case_["stage"].as<std::string>() : std::string();
    if (stage.empty())
      run_assignor(input);
    else if (stage == "active-task-movements")
      run_active_movements(input);
    else
      fail(case_["stage"], fmt::format("unknown stage '{}' (known: active-task-movements)", stage));
    for (const auto& kv : expect) expectation(kv.first, kv.second);
    r.status = diff_.empty() ? Status::Pass : Status::Fail;
    r.detail = diff_.empty() ? fmt::format("checked {}", fmt::join(checked_, ", ")) : "differs:" + diff_;
    return r;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    throw scenario::InputError(path_, scenario::mark_of(n), msg);
  }

  void differs(const std::string& what) { diff_ += "\n      " + what; }

  // ---- reading the input ----

  TaskId task(const YAML::Node& n) const {
    const auto t = st::parse_task(n.as<std::string>());
    if (!t) fail(n, fmt::format("'{}' is not a task (SUBTOPOLOGY_PARTITION)", n.as<std::string>()));
    return *t;
  }

  // A list of tasks, or 'all' for `everything`.
  TaskSet task_list(const YAML::Node& n, const TaskSet& everything) const {
    if (n.IsScalar() && n.as<std::string>() == "all") return everything;
    if (!n.IsSequence()) fail(n, "expected a list of tasks or 'all'");
    TaskSet out;
    for (const auto& t : n) out.insert(task(t));
    return out;
  }

  std::int64_t number(const YAML::Node& n) const {
    const std::string s = n.as<std::string>();
    if (s == "max") return std::numeric_limits<std::int64_t>::max();
    return n.as<std::int64_t>();
  }

  // {all: LAG, TASK: LAG, ..}: 'all' first covers every stateful task.
  ha::TaskLags lags(const YAML::Node& n, const TaskSet& covered) const {
    ha::TaskLags out;
    if (!n) return out;
    if (n["all"])
      for (const auto& t : covered) out[t] = number(n["all"]);
    for (const auto& kv : n)
      if (kv.first.as<std::string>() != "all") out[task(kv.first)] = number(kv.second);
    return out;
  }

  template <typename Value>
  std::map<std::string, Value> per_client(const YAML::Node& n, const std::function<Value(const YAML::Node&)>& read) const {
    if (!n.IsMap()) fail(n, "expected a map keyed by client");
    std::map<std::string, Value> out;
    for (const auto& kv : n) {
      const auto id = kv.first.as<std::string>();
      if (!outcome_.capacity.contains(id)) fail(kv.first, fmt::format("unknown client '{}'", id));
      out[id] = read(kv.second);
    }
    return out;
  }

  std::vector<ProcessId> client_list(const YAML::Node& n) const {
    std::vector<ProcessId> out;
    for (const auto& c : n) out.push_back(c.as<std::string>());
    return out;
  }

  // ---- the two stages ----

  void run_assignor(const YAML::Node& input) {
    std::map<ProcessId, ha::ClientInput> clients;
    for (const auto& kv : input["clients"]) {
      const YAML::Node& c = kv.second;
      ha::ClientInput ci;
      ci.capacity = c["capacity"] ? c["capacity"].as<int>() : 1;
      if (c["prev_active"]) ci.prev_active = task_list(c["prev_active"], all_);
      if (c["prev_standby"]) ci.prev_standby = task_list(c["prev_standby"], all_);
      ci.lags = lags(c["lags"], stateful_);
      clients[kv.first.as<std::string>()] = ci;
    }
    ha::AssignmentConfigs configs = read_configs(input["config"]);
    const ha::Assignment a = ha::assign(clients, all_, stateful_, configs);
    for (const auto& v : ha::assignment_violations(clients, all_, stateful_, configs, a)) differs("invariant: " + v);
    outcome_.probing = a.probing_rebalance_needed;
    for (const auto& [id, t] : a.clients) {
      outcome_.active[id] = t.active;
      outcome_.standby[id] = t.standby;
      outcome_.standby[id].insert(t.warmup.begin(), t.warmup.end());
      outcome_.capacity[id] = clients.at(id).capacity;
    }
  }

  ha::AssignmentConfigs read_configs(const YAML::Node& n) const {
    ha::AssignmentConfigs c;
    if (!n) return c;
    for (const auto& kv : n) {
      const auto key = kv.first.as<std::string>();
      if (key == "acceptable_recovery_lag")
        c.acceptable_recovery_lag = number(kv.second);
      else if (key == "max_warmup_replicas")
        c.max_warmup_replicas = kv.second.as<int>();
      else if (key == "num_standby_replicas")
        c.num_standby_replicas = kv.second.as<int>();
      else
        fail(kv.first, fmt::format("unknown config '{}'", key));
    }
    return c;
  }

  // {TASK: [clients], ..} or {all: [clients]}
  std::map<TaskId, std::vector<ProcessId>, ha::KafkaTaskOrder> table(const YAML::Node& n) const {
    std::map<TaskId, std::vector<ProcessId>, ha::KafkaTaskOrder> out;
    if (n["all"])
      for (const auto& t : all_) out[t] = client_list(n["all"]);
    for (const auto& kv : n)
      if (kv.first.as<std::string>() != "all") out[task(kv.first)] = client_list(kv.second);
    return out;
  }

  void run_active_movements(const YAML::Node& input) {
    ha::ClientStates clients;
    for (const auto& kv : input["clients"]) {
      const YAML::Node& c = kv.second;
      ha::ClientState s(c["capacity"] ? c["capacity"].as<int>() : 1, lags(c["lags"], all_));
      if (c["active"])
        for (const auto& t : task_list(c["active"], all_)) s.assign_active(t);
      if (c["standby"])
        for (const auto& t : task_list(c["standby"], all_)) s.assign_standby(t);
      clients.emplace(kv.first.as<std::string>(), std::move(s));
    }
    ha::LagTables::CaughtUp caught_up;
    for (const auto& [t, ids] : table(input["caught_up"])) caught_up[t] = boost::container::flat_set<ProcessId>(ids.begin(), ids.end());
    const ha::LagTables tables(clients, caught_up, table(input["by_lag"]));
    std::int64_t remaining = input["max_warmup_replicas"] ? number(input["max_warmup_replicas"]) : 2;
    ha::Warmups warmups;
    outcome_.movements = ha::assign_active_task_movements(tables, clients, warmups, remaining);
    for (const auto& [id, s] : clients) {
      outcome_.active[id] = TaskSet(s.active().begin(), s.active().end());
      outcome_.standby[id] = TaskSet(s.standby().begin(), s.standby().end());
      outcome_.capacity[id] = s.capacity();
    }
  }

  // ---- expectations ----

  void expectation(const YAML::Node& key_node, const YAML::Node& v) {
    const auto key = key_node.as<std::string>();
    checked_.push_back(key);
    using Check = void (HaCase::*)(const YAML::Node&);
    static const std::map<std::string, Check> checks = {
        {"probing_rebalance", &HaCase::probing},       {"movements", &HaCase::movements},
        {"active", &HaCase::exact_active},             {"standby", &HaCase::exact_standby},
        {"active_count", &HaCase::active_count},       {"standby_count", &HaCase::standby_count},
        {"assigned_count", &HaCase::assigned_count},   {"min_standby_count", &HaCase::min_standby_count},
        {"has_active", &HaCase::has_active},           {"has_standby", &HaCase::has_standby},
        {"valid", &HaCase::valid},                     {"balanced_active", &HaCase::balanced_active},
        {"balanced_stateful", &HaCase::balanced_stateful}, {"balanced_tasks", &HaCase::balanced_tasks},
        {"skewed", &HaCase::skewed},
    };
    const auto it = checks.find(key);
    if (it == checks.end()) fail(key_node, fmt::format("unknown expectation '{}'", key));
    (this->*it->second)(v);
  }

  void probing(const YAML::Node& v) {
    if (outcome_.probing != v.as<bool>()) differs(fmt::format("probing rebalance {}, expected {}", outcome_.probing, v.as<bool>()));
  }

  void movements(const YAML::Node& v) {
    if (outcome_.movements != v.as<int>()) differs(fmt::format("{} movements, expected {}", outcome_.movements, v.as<int>()));
  }

  void exact(const YAML::Node& v, const std::map<ProcessId, TaskSet>& got, const char* role) {
    for (const auto& [id, want] : per_client<TaskSet>(v, [this](const YAML::Node& n) { return task_list(n, all_); }))
      if (got.at(id) != want) differs(fmt::format("{} {}: {}, expected {}", id, role, show_tasks(got.at(id)), show_tasks(want)));
  }
  void exact_active(const YAML::Node& v) { exact(v, outcome_.active, "active"); }
  void exact_standby(const YAML::Node& v) { exact(v, outcome_.standby, "standby"); }

  void count(const YAML::Node& v, const char* what, const std::function<int(const ProcessId&)>& got, bool at_least = false) {
    for (const auto& [id, want] : per_client<int>(v, [](const YAML::Node& n) { return n.as<int>(); })) {
      const int n = got(id);
      if (at_least ? n < want : n != want) differs(fmt::format("{} has {} {}, expected {}{}", id, n, what, at_least ? "at least " : "", want));
    }
  }
  int actives(const ProcessId& id) const { return static_cast<int>(outcome_.active.at(id).size()); }
  int standbys(const ProcessId& id) const { return static_cast<int>(outcome_.standby.at(id).size()); }
  void active_count(const YAML::Node& v) { count(v, "active tasks", [this](const ProcessId& id) { return actives(id); }); }
  void standby_count(const YAML::Node& v) { count(v, "standby tasks", [this](const ProcessId& id) { return standbys(id); }); }
  void min_standby_count(const YAML::Node& v) {
    count(v, "standby tasks", [this](const ProcessId& id) { return standbys(id); }, true);
  }
  void assigned_count(const YAML::Node& v) {
    count(v, "assigned tasks", [this](const ProcessId& id) { return actives(id) + standbys(id); });
  }

  void not_empty(const YAML::Node& v, const std::map<ProcessId, TaskSet>& got, const char* role) {
    for (const auto& id : client_list(v)) {
      if (!got.contains(id)) fail(v, fmt::format("unknown client '{}'", id));
      if (got.at(id).empty()) differs(fmt::format("{} has no {} task", id, role));
    }
  }
  void has_active(const YAML::Node& v) { not_empty(v, outcome_.active, "active"); }
  void has_standby(const YAML::Node& v) { not_empty(v, outcome_.standby, "standby"); }

  using Holders = std::map<TaskId, std::set<ProcessId>, ha::KafkaTaskOrder>;
  void add_holder(Holders& holders, const TaskId& t, const ProcessId& id, const char* role) {
    const auto it = holders.find(t);
    if (it == holders.end())
      differs(fmt::format("extra {} task {} on {}", role, st::to_string(t), id));
    else
      it->second.insert(id);
  }

  // AssignmentTestUtils.assertValidAssignment: per task, the clients holding
  // it number min(clients, 1 + standbys) (stateless: 1), or one more while
  // the warm-up allowance lasts, counted in task order.
  void valid(const YAML::Node& v) {
    const int standbys_wanted = v["standbys"] ? v["standbys"].as<int>() : 0;
    int warmups_left = v["warmups"] ? v["warmups"].as<int>() : 0;
    const TaskSet stateful = v["stateful"] ? task_list(v["stateful"], all_) : stateful_;
    TaskSet stateless;
    if (v["stateless"])
      stateless = task_list(v["stateless"], all_);
    else
      std::set_difference(all_.begin(), all_.end(), stateful.begin(), stateful.end(), std::inserter(stateless, stateless.end()));
    Holders holders;
    for (const auto& t : stateful) holders[t];
    for (const auto& t : stateless) holders[t];
    for (const auto& [id, tasks] : outcome_.active)
      for (const auto& t : tasks)
        add_holder(holders, t, id, "active");
    for (const auto& [id, tasks] : outcome_.standby)
      for (const auto& t : tasks) {
        if (stateless.contains(t))
          differs("standby of stateless task " + st::to_string(t) + " on " + id);
        else
          add_holder(holders, t, id, "standby");
      }
    const int clients = static_cast<int>(outcome_.active.size());
    for (const auto& [t, ids] : holders) {
      const int wanted = std::min(clients, 1 + (stateless.contains(t) ? 0 : standbys_wanted));
      const int n = static_cast<int>(ids.size());
      if (n == wanted) continue;
      if (n == wanted + 1 && warmups_left > 0) {
        --warmups_left;  // a warm-up, so it's fine
        continue;
      }
      differs(fmt::format("task {} held by {} clients, expected {}", st::to_string(t), n, wanted));
    }
  }

  // Max minus min over clients of tasks per thread; at most 1.
  void spread_at_most_one(const char* what, const std::function<double(const ProcessId&)>& load) {
    double lo = std::numeric_limits<double>::max(), hi = 0;
    for (const auto& [id, cap] : outcome_.capacity) {
      lo = std::min(lo, load(id));
      hi = std::max(hi, load(id));
    }
    if (hi - lo > 1.0) differs(fmt::format("{} per thread differ by {} > 1", what, hi - lo));
  }

  void balanced_active(const YAML::Node&) {
    spread_at_most_one("active tasks", [this](const ProcessId& id) { return 1.0 * actives(id) / outcome_.capacity.at(id); });
  }

  void balanced_stateful(const YAML::Node& v) {
    const std::string which = v.as<std::string>();
    if (which != "all" && which != "stateful") fail(v, "expected 'all' or 'stateful'");
    const TaskSet& tasks = which == "all" ? all_ : stateful_;
    spread_at_most_one("stateful tasks", [&](const ProcessId& id) {
      int n = 0;
      for (const auto& t : tasks) n += outcome_.active.at(id).contains(t) || outcome_.standby.at(id).contains(t);
      return 1.0 * n / outcome_.capacity.at(id);
    });
  }

  // analyzeTaskAssignmentBalance: sub-topologies whose active tasks per client
  // (among sub-topologies with any active) differ by more than `threshold`.
  std::vector<std::string> skewed_subtopologies(int threshold) const {
    std::map<std::string, std::map<ProcessId, int>> per_subtopology;
    for (const auto& [id, tasks] : outcome_.active)
      for (const auto& t : tasks) ++per_subtopology[t.subtopology][id];
    std::vector<std::string> out;
    for (const auto& [sub, counts] : per_subtopology) {
      int lo = std::numeric_limits<int>::max(), hi = 0;
      for (const auto& [id, _] : outcome_.capacity) {
        const auto it = counts.find(id);
        const int n = it == counts.end() ? 0 : it->second;
        lo = std::min(lo, n);
        hi = std::max(hi, n);
      }
      if (hi - lo > threshold) out.push_back(sub);
    }
    return out;
  }

  void balanced_tasks(const YAML::Node& v) {
    const auto skewed = skewed_subtopologies(v.as<int>());
    if (!skewed.empty()) differs(fmt::format("sub-topologies {} skewed by more than {}", fmt::join(skewed, ", "), v.as<int>()));
  }

  void skewed(const YAML::Node& v) {
    if (skewed_subtopologies(v.as<int>()).empty()) differs(fmt::format("no sub-topology skewed by more than {}", v.as<int>()));
  }

  std::string path_;
  const YAML::Node& case_;
  TaskSet all_, stateful_;
  Outcome outcome_;
  std::string diff_;
  std::vector<std::string> checked_;
};

}  // namespace

CaseResult HighAvailabilityCases::run(const YAML::Node& c) const {
  try {
    return HaCase(path_, c).run();
  } catch (const std::logic_error& e) {  // the assignor refused the input (invalid_argument, or a task held twice)
    throw scenario::InputError(path_, scenario::mark_of(c), e.what());
  }
}

}  // namespace rsim::vectors
