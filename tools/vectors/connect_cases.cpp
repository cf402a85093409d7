#include "tools/vectors/connect_cases.hpp"

#include "protocols/assignors/connect.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/values.hpp"
#include "scenarios/yaml_mark.hpp"
#include "tools/vectors/connect_grammar.hpp"
#include "tools/vectors/sentences.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <set>

namespace rsim::vectors {

namespace cn = protocols::connect;
namespace grammar = connect_grammar;
using protocols::TopicPartition;

namespace {

// A connector is written by name; a task CONNECTOR-N.
TopicPartition connector(const std::string& name) { return TopicPartition{name, -1}; }
TopicPartition task(const std::string& name, int index) { return TopicPartition{name, index}; }

std::vector<int> sorted_counts(const std::map<std::string, cn::Work>& workers, bool connectors) {
  std::vector<int> out;
  for (const auto& [w, work] : workers) out.push_back(static_cast<int>((connectors ? work.connectors : work.tasks).size()));
  std::sort(out.begin(), out.end());
  return out;
}

std::string show(const std::vector<TopicPartition>& items) {
  std::vector<std::string> names;
  for (const auto& i : items) names.push_back(i.partition < 0 ? i.topic.name() : fmt::format("{}-{}", i.topic.name(), i.partition));
  return fmt::format("[{}]", fmt::join(names, ", "));
}

class CaseRun {
 public:
  CaseRun(const std::string& path, const YAML::Node& c) : path_(path), case_(c) {}

  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    throw scenario::InputError(path_, scenario::mark_of(n), msg);
  }

  int integer(const YAML::Node& at, const std::string& text) const {
    const auto v = scenario::parse_integer(text);
    if (!v) fail(at, fmt::format("'{}' is not an integer", text));
    return static_cast<int>(*v);
  }

  // "A..B" or "A..PREFIXB" -> [A, B].
  std::pair<int, int> range(const YAML::Node& at, const std::string& text, const std::string& prefix) const {
    const auto dots = text.find("..");
    if (dots == std::string::npos) {
      const int v = integer(at, text);
      return {v, v};
    }
    std::string hi = text.substr(dots + 2);
    if (starts_with(hi, prefix)) hi = hi.substr(prefix.size());
    return {integer(at, text.substr(0, dots)), integer(at, hi)};
  }

  std::string diff;
  bool ok = true;
  void check(bool cond, const std::string& what) {
    if (cond) return;
    ok = false;
    diff += "\n      " + what;
  }

 protected:
  const std::string& path_;
  const YAML::Node& case_;
};

// The multi-round cases: performStandardRebalance and friends.
class Rounds : public CaseRun {
 public:
  using CaseRun::CaseRun;

  void run() {
    const YAML::Node& in = case_["input"];
    max_delay_ = in["max_delay_ms"].as<std::int64_t>();
    const auto& init = in["initial"];
    for (const auto& kv : init["connectors"]) connectors_[kv.first.as<std::string>()] = kv.second.as<int>();
    for (const auto& w : init["workers"]) workers_[w.as<std::string>()] = cn::Work{};
    generation_ = init["generation"].as<int>();
    new_assignor();
    const YAML::Node& rounds = in["rounds"];
    const YAML::Node& expected = case_["expect"]["rounds"];
    if (!rounds.IsSequence() || !expected.IsSequence() || rounds.size() != expected.size())
      fail(in, "a Connect case needs 'rounds' and as many 'expect.rounds'");
    for (std::size_t i = 0; i < rounds.size(); ++i) {
      const YAML::Node& r = rounds[i];
      for (const auto& action : actions(r)) do_action(r, action);
      // Every expect round is asserted after a rebalance (the conventions'
      // performStandardRebalance): a round that only names changes ends with one.
      if (!rebalanced_) rebalance(1, true);
      rebalanced_ = false;
      expect(i + 1, expected[i]);
    }
  }

 private:
  void new_assignor() { assignor_ = std::make_unique<cn::IncrementalCooperativeAssignor>(max_delay_, generation_); }

  std::vector<grammar::Action> actions(const YAML::Node& at) const {
    try {
      return grammar::read_actions(at.as<std::string>());
    } catch (const grammar::Unreadable& e) {
      fail(at, fmt::format("unknown step '{}' in a Connect round: {}", e.part, e.why));
    }
  }

  void sleep(const grammar::Amount& a) { now_ += (a.of_delay ? assignor_->delay() : a.ms) / std::max(a.divisor, 1); }

  // "connector1" or a task "connector1-0..3" (tasks 0 to 3).
  void add_item(const YAML::Node& at, cn::Work& w, const std::string& item) const {
    const auto dash = item.rfind('-');
    if (dash == std::string::npos || !scenario::parse_integer(item.substr(dash + 1, item.find("..", dash) - dash - 1))) {
      w.connectors.push_back(connector(item));
      return;
    }
    const auto [lo, hi] = range(at, item.substr(dash + 1), "");
    for (int t = lo; t <= hi; ++t) w.tasks.push_back(task(item.substr(0, dash), t));
  }

  void do_action(const YAML::Node& at, const grammar::Action& a) {
    using grammar::Verb;
    switch (a.verb) {
      case Verb::Sleep: sleep(a.amount); break;
      case Verb::Rebalance:
        if (a.sleep_first) sleep(a.amount);
        rebalance(a.generation_lag, !a.failed);
        break;
      case Verb::NewAssignor: new_assignor(); break;
      case Verb::Join:
      case Verb::Assign:
        for (const auto& name : a.names) join(at, name, a.items);
        break;
      case Verb::Leave:
      case Verb::Delete:
        for (const auto& name : a.names) leave(at, name, a.verb == Verb::Delete);
        break;
      case Verb::NoOp: break;
      default: fail(at, "a Connect round has no lost-work steps");
    }
  }

  void join(const YAML::Node& at, const std::string& name, const std::vector<std::string>& items) {
    // "add connector3 with 4 tasks": a connector is configured, not a worker.
    if (starts_with(name, "connector") && workers_.count(name) == 0 && items.size() == 1 && is_number(items[0])) {
      connectors_[name] = integer(at, items[0]);
      return;
    }
    if (std::any_of(items.begin(), items.end(), [](const auto& i) { return is_number(i); }))
      fail(at, fmt::format("unknown step: what does worker '{}' run?", name));
    if (workers_.count(name) != 0) fail(at, fmt::format("worker '{}' already exists", name));
    cn::Work w;
    for (const auto& item : items) add_item(at, w, item);
    workers_[name] = w;
  }

  // The subject decides: a configured connector is deleted, a worker leaves.
  void leave(const YAML::Node& at, const std::string& name, bool deleting) {
    if (connectors_.erase(name) != 0) return;
    if (deleting && workers_.count(name) == 0) fail(at, fmt::format("no connector '{}'", name));
    if (workers_.erase(name) == 0) fail(at, fmt::format("no worker or connector '{}'", name));
  }

  void rebalance(int completed_lag, bool apply) {
    ++generation_;
    cn::Work configured;
    for (const auto& [c, n] : connectors_) {
      configured.connectors.push_back(connector(c));
      for (int t = 0; t < n; ++t) configured.tasks.push_back(task(c, t));
    }
    std::vector<cn::WorkerLoad> members;
    for (const auto& [w, work] : workers_) members.push_back(cn::WorkerLoad{w, work});
    last_ = assignor_->assign(configured, generation_ - completed_lag, generation_, members, now_);
    // No connector or task newly assigned twice, nor to a worker already
    // running it somewhere (assertNoRedundantAssignments).
    std::map<TopicPartition, int> fresh;
    for (const auto& [w, work] : last_.assigned) {
      for (const auto& x : work.connectors) ++fresh[x];
      for (const auto& x : work.tasks) ++fresh[x];
    }
    for (const auto& [x, n] : fresh) check(n == 1, fmt::format("{} newly assigned {} times", show({x}), n));
    if (apply) {
      for (const auto& [w, revoked] : last_.revoked) {
        auto& work = workers_[w];
        const std::set<TopicPartition> gone_c(revoked.connectors.begin(), revoked.connectors.end());
        const std::set<TopicPartition> gone_t(revoked.tasks.begin(), revoked.tasks.end());
        std::erase_if(work.connectors, [&](const auto& x) { return gone_c.count(x) != 0; });
        std::erase_if(work.tasks, [&](const auto& x) { return gone_t.count(x) != 0; });
      }
      for (const auto& [w, added] : last_.assigned) {
        auto& work = workers_[w];
        work.connectors.insert(work.connectors.end(), added.connectors.begin(), added.connectors.end());
        work.tasks.insert(work.tasks.end(), added.tasks.begin(), added.tasks.end());
      }
    }
    rebalanced_ = true;
  }

  // The asserts of a round, by the extractor's key or a synonym.
  static std::string canonical(const std::string& key) {
    static const std::map<std::string, std::string> alias = {
        {"delay", "delay"}, {"delay_ms", "delay"}, {"assert_delay", "delay"}, {"assignor_delay", "delay"},
        {"delay_gt", "delay_gt"}, {"delay_greater_than", "delay_gt"}, {"delay_above", "delay_gt"}, {"delay_over", "delay_gt"},
        {"no_delay", "no_delay"},
        {"workers", "workers"}, {"members", "workers"}, {"assert_workers", "workers"},
        {"connector_allocations", "connector_allocations"}, {"connectors", "connector_allocations"},
        {"connector_counts", "connector_allocations"}, {"assert_connector_allocations", "connector_allocations"},
        {"task_allocations", "task_allocations"}, {"tasks", "task_allocations"}, {"task_counts", "task_allocations"},
        {"assert_task_allocations", "task_allocations"},
        {"balanced_and_complete", "balanced_and_complete"}, {"balanced", "balanced_and_complete"},
        {"complete_and_balanced", "balanced_and_complete"}, {"balanced_and_complete_allocation", "balanced_and_complete"},
        {"empty_assignment", "empty_assignment"}, {"no_changes", "empty_assignment"}, {"unchanged", "empty_assignment"},
        {"no_revocations", "no_revocations"}, {"no_revocation", "no_revocations"}, {"no_revokes", "no_revocations"}};
    std::string k;  // camelCase and spaces to snake_case: "assertConnectorAllocations" -> "assert_connector_allocations"
    for (char c : key) {
      if (std::isupper(static_cast<unsigned char>(c)) != 0 && !k.empty()) k += '_';
      k += (c == '-' || c == ' ') ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (starts_with(k, "assert_") && alias.count(k) == 0) k = k.substr(7);  // Kafka's assertX helpers
    const auto it = alias.find(k);
    return it == alias.end() ? std::string() : it->second;
  }

  // A list written as a YAML sequence or as "a, b, c" / "[a, b]".
  static std::vector<std::string> list_of(const YAML::Node& v) {
    std::vector<std::string> out;
    if (v.IsSequence()) {
      for (const auto& x : v) out.push_back(x.as<std::string>());
      return out;
    }
    std::string text = v.as<std::string>();
    std::erase_if(text, [](char c) { return c == '[' || c == ']' || c == '{' || c == '}'; });
    return split(text, ", ");
  }

  // A flag written `true` is asserted; `false` asserts nothing.
  static bool asserted(const YAML::Node& v) { return !v.IsScalar() || (lower(v.as<std::string>()) != "false" && v.as<std::string>() != "no"); }

  // A delay value: N, "> N", "0", "none".
  void check_delay(const std::string& at, const YAML::Node& v, bool above) {
    std::string text = lower(v.as<std::string>());
    if (text.find('>') != std::string::npos) above = true;
    std::erase_if(text, [](char c) { return c == '>' || c == ' ' || c == '='; });
    const int want = text == "none" || text.empty() ? 0 : integer(v, text);
    const int got = assignor_->delay();
    check(above ? got > want : got == want, fmt::format("{}: delay want {}{} got {}", at, above ? "> " : "", want, got));
  }

  void expect(std::size_t round, const YAML::Node& e) {
    const std::string at = fmt::format("round {}", round);
    for (const auto& kv : e) {
      const std::string key = canonical(kv.first.as<std::string>());
      const YAML::Node& v = kv.second;
      if (key.empty()) fail(kv.first, fmt::format("unknown Connect round expectation '{}'", kv.first.as<std::string>()));
      if (key == "delay" || key == "delay_gt") {
        check_delay(at, v, key == "delay_gt");
      } else if (key == "no_delay") {
        if (asserted(v)) check(assignor_->delay() == 0, fmt::format("{}: delay want 0 got {}", at, assignor_->delay()));
      } else if (key == "workers") {
        std::set<std::string> want, got;
        for (const auto& w : list_of(v)) want.insert(w);
        for (const auto& [w, work] : last_.all) got.insert(w);
        check(want == got, fmt::format("{}: workers want {} got {}", at, want, got));
      } else if (key == "connector_allocations" || key == "task_allocations") {
        std::vector<int> want;
        for (const auto& n : list_of(v)) want.push_back(integer(v, n));
        std::sort(want.begin(), want.end());
        const auto got = sorted_counts(workers_, key == "connector_allocations");
        check(want == got, fmt::format("{}: {} want {} got {}", at, key, want, got));
      } else if (key == "balanced_and_complete") {
        if (asserted(v)) balanced_and_complete(at);
      } else if (key == "empty_assignment") {
        bool empty = true;
        for (const auto& [w, work] : last_.assigned) empty &= work.empty();
        for (const auto& [w, work] : last_.revoked) empty &= work.empty();
        if (asserted(v)) check(empty, at + ": something was assigned or revoked");
      } else if (key == "no_revocations" && asserted(v)) {
        for (const auto& [w, work] : last_.revoked)
          check(work.empty(), fmt::format("{}: {} revoked {} {}", at, w, show(work.connectors), show(work.tasks)));
      }
    }
  }

  void balanced_and_complete(const std::string& at) {
    for (bool conns : {true, false}) {
      const auto counts = sorted_counts(workers_, conns);
      check(counts.back() - counts.front() <= 1, fmt::format("{}: {} imbalanced {}", at, conns ? "connectors" : "tasks", counts));
    }
    std::multiset<TopicPartition> running, configured;
    for (const auto& [w, work] : workers_) {
      running.insert(work.connectors.begin(), work.connectors.end());
      running.insert(work.tasks.begin(), work.tasks.end());
    }
    for (const auto& [c, n] : connectors_) {
      configured.insert(connector(c));
      for (int t = 0; t < n; ++t) configured.insert(task(c, t));
    }
    check(std::set<TopicPartition>(running.begin(), running.end()) == std::set<TopicPartition>(configured.begin(), configured.end()),
          at + ": the connectors and tasks running are not the configured ones");
  }

  std::int64_t max_delay_ = 0;
  std::int64_t now_ = 1'000'000'000'000;  // MockTime starts at the wall clock: any positive instant
  int generation_ = 0;
  std::map<std::string, int> connectors_;
  std::map<std::string, cn::Work> workers_;
  std::unique_ptr<cn::IncrementalCooperativeAssignor> assignor_;
  cn::ClusterAssignment last_;
  bool rebalanced_ = false;
};

// testLostAssignmentHandling*: handleLostAssignments driven step by step.
class LostSteps : public CaseRun {
 public:
  using CaseRun::CaseRun;

  void run() {
    const YAML::Node& in = case_["input"];
    assignor_ = std::make_unique<cn::IncrementalCooperativeAssignor>(in["max_delay_ms"].as<std::int64_t>());
    std::set<std::string> members;
    for (const auto& kv : in["configured"]) {
      loads_.push_back(cn::WorkerLoad{kv.first.as<std::string>(), work(kv.second)});
      members.insert(loads_.back().worker);
    }
    // Every Java test of this kind starts with the configured workers as the
    // previous round's members.
    assignor_->set_previous_members(members);
    // The extractor may list the steps under input or under expect.
    const YAML::Node& steps = case_["expect"]["steps"] ? case_["expect"]["steps"] : in["steps"];
    for (const auto& s : steps) step(s);
  }

 private:
  // "connector0-1, task-0..3"
  cn::Work work(const YAML::Node& at) const {
    cn::Work w;
    for (const auto& part : split(at.as<std::string>(), ",")) {
      if (starts_with(part, "task-")) {
        const auto [lo, hi] = range(at, part.substr(5), "");
        for (int t = lo; t <= hi; ++t) w.tasks.push_back(task("task", t));
      } else if (starts_with(part, "connector")) {
        const auto dash = part.find('-');
        const int first = integer(at, part.substr(9, dash - 9));
        const int last = dash == std::string::npos ? first : integer(at, part.substr(dash + 1));
        for (int c = first; c <= last; ++c) w.connectors.push_back(connector(fmt::format("connector{}", c)));
      } else {
        fail(at, fmt::format("'{}' is neither connectors nor tasks", part));
      }
    }
    return w;
  }

  cn::WorkerLoad* find(const std::string& name) {
    for (auto& l : loads_)
      if (l.worker == name) return &l;
    return nullptr;
  }

  // One step: what happens (workers go, come back, time passes), one call
  // of handleLostAssignments, then what holds.
  void step(const YAML::Node& at) {
    const std::string text = at.as<std::string>();
    std::vector<grammar::Action> actions;
    std::vector<grammar::Claim> claims;
    try {
      const auto [happens, holds] = grammar::split_step(text);
      actions = grammar::read_actions(happens);
      claims = grammar::read_claims(holds);
    } catch (const grammar::Unreadable& e) {
      fail(at, fmt::format("unknown step '{}': {}", e.part, e.why));
    }
    for (const auto& a : actions) act(at, a);
    // The Java test hands handleLostAssignments the workers in HashMap order.
    std::sort(loads_.begin(), loads_.end(), [](const auto& a, const auto& b) { return a.worker < b.worker; });
    cn::Work reassign;
    assignor_->handle_lost(lost_, reassign, loads_, now_);
    const std::string at_step = fmt::format("step '{}'", trim(grammar::split_step(text).first));
    for (const auto& c : claims) claim(at_step, c, reassign);
    std::set<std::string> members;
    for (const auto& l : loads_) members.insert(l.worker);
    assignor_->set_previous_members(members);
  }

  // Work written as in `configured` ("connector6-7, task-8..11"); names of
  // workers (a departed worker's load) say nothing more than its departure.
  bool is_work(const std::vector<std::string>& items) const {
    return !items.empty() && std::all_of(items.begin(), items.end(), [](const auto& i) { return starts_with(i, "connector") || starts_with(i, "task-"); });
  }
  cn::Work work_of(const YAML::Node& at, const std::vector<std::string>& items) const {
    YAML::Node listed(fmt::format("{}", fmt::join(items, ", ")));
    try {
      return work(listed);
    } catch (const scenario::InputError&) {
      fail(at, fmt::format("cannot read the work '{}'", listed.as<std::string>()));
    }
  }

  void act(const YAML::Node& at, const grammar::Action& a) {
    using grammar::Verb;
    switch (a.verb) {
      case Verb::NoLost: lost_ = cn::Work{}; break;
      case Verb::SetLost:
        if (is_work(a.items)) lost_ = work_of(at, a.items);
        break;
      case Verb::Sleep: now_ += (a.amount.of_delay ? assignor_->delay() : a.amount.ms) / std::max(a.amount.divisor, 1); break;
      case Verb::Leave:
        for (const auto& name : a.names) {
          auto* l = find(name);
          if (l == nullptr) fail(at, fmt::format("no worker '{}'", name));
          if (!l->work.empty()) lost_ = l->work;  // a worker back empty that leaves again loses nothing new
          loads_.erase(loads_.begin() + (l - loads_.data()));
        }
        break;
      case Verb::Join:
      case Verb::Assign:
        for (const auto& name : a.names) {
          const cn::Work w = is_work(a.items) ? work_of(at, a.items) : cn::Work{};
          if (auto* l = find(name)) {
            if (a.verb == Verb::Join && a.items.empty()) fail(at, fmt::format("worker '{}' is here", name));
            l->work = w;
          } else {
            loads_.push_back(cn::WorkerLoad{name, w});
          }
        }
        break;
      case Verb::NoOp: break;
      default: fail(at, "not a lost-assignment step");
    }
  }

  void claim(const std::string& at_step, const grammar::Claim& c, const cn::Work& reassign) {
    using grammar::ClaimKind;
    switch (c.kind) {
      case ClaimKind::Candidates: {
        std::set<std::string> want(c.names.begin(), c.names.end()), got(assignor_->candidates().begin(), assignor_->candidates().end());
        check(want == got, fmt::format("{}: candidates want {} got {}", at_step, want, got));
        break;
      }
      case ClaimKind::Scheduled: {
        const auto want = c.from_now ? now_ + c.number : 0;
        const auto got = assignor_->scheduled_rebalance();
        check(got == want, fmt::format("{}: scheduledRebalance want {} got {}", at_step,
                                       c.from_now ? fmt::format("now+{}", c.number) : "0", got == 0 ? std::string("0") : fmt::format("now+{}", got - now_)));
        break;
      }
      case ClaimKind::Delay:
      case ClaimKind::DelayAbove: {
        const bool above = c.kind == ClaimKind::DelayAbove;
        const int got = assignor_->delay();
        check(above ? got > c.number : got == c.number, fmt::format("{}: delay want {}{} got {}", at_step, above ? "> " : "", c.number, got));
        break;
      }
      case ClaimKind::LostOn: {
        std::set<TopicPartition> on;
        for (const auto& name : c.names)
          if (const auto* l = find(name)) {
            on.insert(l->work.connectors.begin(), l->work.connectors.end());
            on.insert(l->work.tasks.begin(), l->work.tasks.end());
          }
        bool all = true;
        for (const auto& x : lost_.connectors) all &= on.count(x) != 0;
        for (const auto& x : lost_.tasks) all &= on.count(x) != 0;
        check(all, fmt::format("{}: the lost work is not on {}", at_step, fmt::join(c.names, ", ")));
        break;
      }
      case ClaimKind::LostToReassign:
      case ClaimKind::NothingToReassign: {
        const cn::Work want = c.kind == ClaimKind::LostToReassign ? lost_ : cn::Work{};
        check(reassign.connectors == want.connectors && reassign.tasks == want.tasks,
              fmt::format("{}: to reassign want {} {} got {} {}", at_step, show(want.connectors), show(want.tasks), show(reassign.connectors), show(reassign.tasks)));
        break;
      }
    }
  }

  std::unique_ptr<cn::IncrementalCooperativeAssignor> assignor_;
  std::vector<cn::WorkerLoad> loads_;
  cn::Work lost_;
  std::int64_t now_ = 1'000'000'000'000;
};

}  // namespace

CaseResult ConnectCases::run(const YAML::Node& c) {
  CaseResult r;
  r.name = c["name"] ? c["name"].as<std::string>() : std::string("?");
  r.method = c["method"] ? c["method"].as<std::string>() : std::string();
  r.assignor = "connect";
  const YAML::Node& in = c["input"];
  const YAML::Node& expect = c["expect"];
  if (!in || !expect) throw scenario::InputError(path_, scenario::mark_of(c), "a case needs 'input' and 'expect'");
  auto finish = [&](const CaseRun& run) {
    r.status = run.ok ? Status::Pass : Status::Fail;
    if (!run.ok) r.detail = "differs:" + run.diff;
    return r;
  };
  if (in["rounds"]) {
    Rounds run(path_, c);
    run.run();
    return finish(run);
  }
  if (expect["steps"] || in["steps"]) {
    LostSteps run(path_, c);
    run.run();
    return finish(run);
  }
  // assignConnectors / assignTasks on given loads.
  CaseRun run(path_, c);
  std::vector<cn::WorkerLoad> loads;
  if (in["workers_in_order"]) {
    last_workers_ = in["workers_in_order"];
    for (const auto& kv : in["workers_in_order"]) {
      cn::WorkerLoad l{kv.first.as<std::string>(), {}};
      for (const auto& name : kv.second["connectors"]) l.work.connectors.push_back(connector(name.as<std::string>()));
      loads.push_back(l);
    }
  } else if (in["workers"] && in["workers"].IsScalar() && starts_with(in["workers"].as<std::string>(), "as above")) {
    // "as above plus tasks task-0..task-5 two per worker"
    if (!last_workers_) run.fail(in["workers"], "'as above' needs a previous case with workers_in_order");
    const std::string text = in["workers"].as<std::string>();
    const auto from = text.find("task-");
    const auto spec = split(text.substr(from + 5), " ");
    const auto [lo, hi] = run.range(in["workers"], spec[0], "task-");
    if (spec.size() < 2 || spec[1] != "two") run.fail(in["workers"], "expected 'two per worker'");
    const int per = 2;
    int t = lo;
    for (const auto& kv : *last_workers_) {
      cn::WorkerLoad l{kv.first.as<std::string>(), {}};
      for (const auto& name : kv.second["connectors"]) l.work.connectors.push_back(connector(name.as<std::string>()));
      for (int k = 0; k < per && t <= hi; ++k) l.work.tasks.push_back(task("task", t++));
      loads.push_back(l);
    }
  } else if (in["workers"] && in["workers"].IsMap()) {
    // worker: "C connectors/T tasks" or "C/T", numbered on from 0.
    int next_c = 0, next_t = 0;
    for (const auto& kv : in["workers"]) {
      const std::string spec = kv.second.as<std::string>();
      const auto slash = spec.find('/');
      if (slash == std::string::npos) run.fail(kv.second, "expected 'C connectors/T tasks'");
      const int nc = run.integer(kv.second, split(spec.substr(0, slash), " ")[0]);
      const int nt = run.integer(kv.second, split(spec.substr(slash + 1), " ")[0]);
      cn::WorkerLoad l{kv.first.as<std::string>(), {}};
      for (int k = 0; k < nc; ++k) l.work.connectors.push_back(connector(fmt::format("connector{}", next_c++)));
      for (int k = 0; k < nt; ++k) l.work.tasks.push_back(task("task", next_t++));
      loads.push_back(l);
    }
  } else {
    run.fail(in, "unknown Connect case input");
  }
  std::vector<TopicPartition> new_connectors, new_tasks;
  if (in["new_connectors"]) {
    const YAML::Node& n = in["new_connectors"];
    if (n.IsSequence()) {
      for (const auto& x : n) new_connectors.push_back(connector(x.as<std::string>()));
    } else {  // "connector9..connector23 (15)"
      const auto [lo, hi] = run.range(n, without_comment(n.as<std::string>()).substr(9), "connector");
      for (int k = lo; k <= hi; ++k) new_connectors.push_back(connector(fmt::format("connector{}", k)));
    }
  }
  if (in["new_tasks"]) {
    const YAML::Node& n = in["new_tasks"];
    if (n.IsSequence()) {
      for (const auto& x : n) {
        const std::string s = x.as<std::string>();
        new_tasks.push_back(task(s.substr(0, s.rfind('-')), run.integer(x, s.substr(s.rfind('-') + 1))));
      }
    } else {  // a count, numbered after the existing tasks
      int next = 0;
      for (const auto& l : loads) next += static_cast<int>(l.work.tasks.size());
      const int count = run.integer(n, n.as<std::string>());
      for (int k = 0; k < count; ++k) new_tasks.push_back(task("task", next + k));
    }
  }
  const auto before = loads;
  cn::IncrementalCooperativeAssignor::assign_connectors(loads, new_connectors);
  cn::IncrementalCooperativeAssignor::assign_tasks(loads, new_tasks);
  auto added = [&](const std::string& worker, bool conns) {
    std::vector<TopicPartition> out;
    for (const auto& l : loads)
      if (l.worker == worker) out = conns ? l.work.connectors : l.work.tasks;
    for (const auto& l : before)
      if (l.worker == worker) out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>((conns ? l.work.connectors : l.work.tasks).size()));
    return out;
  };
  for (const auto& kv : expect) {
    const std::string key = kv.first.as<std::string>();
    if (key == "added" || key == "added_tasks") {
      for (const auto& w : kv.second) {
        std::vector<TopicPartition> want;
        for (const auto& x : w.second) {
          const std::string s = x.as<std::string>();
          want.push_back(key == "added" ? connector(s) : task(s.substr(0, s.rfind('-')), run.integer(x, s.substr(s.rfind('-') + 1))));
        }
        const auto got = added(w.first.as<std::string>(), key == "added");
        run.check(want == got, fmt::format("{} {}: want {} got {}", key, w.first.as<std::string>(), show(want), show(got)));
      }
    } else if (key == "property") {
      // "every worker ends with exactly N connectors and N tasks"
      const auto words = split(kv.second.as<std::string>(), " ");
      const auto exactly = std::find(words.begin(), words.end(), "exactly");
      if (exactly == words.end() || exactly + 4 >= words.end()) run.fail(kv.second, "unknown property");
      const int nc = run.integer(kv.second, *(exactly + 1)), nt = run.integer(kv.second, *(exactly + 4));
      for (const auto& l : loads)
        run.check(static_cast<int>(l.work.connectors.size()) == nc && static_cast<int>(l.work.tasks.size()) == nt,
                  fmt::format("{} has {} connectors and {} tasks", l.worker, l.work.connectors.size(), l.work.tasks.size()));
    } else {
      run.fail(kv.second, fmt::format("unknown Connect expectation '{}'", key));
    }
  }
  return finish(run);
}

}  // namespace rsim::vectors
