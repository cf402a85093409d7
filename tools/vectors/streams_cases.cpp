#include "tools/vectors/streams_cases.hpp"

#include "protocols/streams/assignor.hpp"
#include "protocols/streams/invariants.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/yaml_mark.hpp"
#include "tools/vectors/sentences.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <regex>
#include <set>

namespace rsim::vectors {

namespace st = protocols::streams;
using st::TaskId;
using st::TaskSet;

std::string show_tasks(const TaskSet& s) {
  std::vector<std::string> names;
  for (const auto& t : s) names.push_back(st::to_string(t));
  return fmt::format("[{}]", fmt::join(names, ", "));
}

namespace {

std::vector<int> numbers(const std::string& list) {
  std::vector<int> out;
  for (const auto& n : split(list, ",")) out.push_back(std::stoi(n));
  return out;
}

// One case: its topology, and checks of clauses against an assignment.
class StreamsCase {
 public:
  StreamsCase(std::string path, const YAML::Node& c) : path_(std::move(path)), case_(c) {
    const YAML::Node& input = c["input"];
    if (!input || !input.IsMap() || !input["subtopologies"] || !input["members"]) fail(c, "a streams case needs input.subtopologies and input.members");
    for (const auto& kv : input["subtopologies"])
      topology_.subtopologies[kv.first.as<std::string>()] =
          st::SubtopologyTasks{kv.second["tasks"].as<int>(), kv.second["stateful"] && kv.second["stateful"].as<bool>()};
    standbys_ = input["num_standby_replicas"] ? input["num_standby_replicas"].as<int>() : 0;
  }

  CaseResult run() {
    CaseResult r;
    r.name = case_["name"] ? case_["name"].as<std::string>() : std::string("?");
    r.method = case_["method"] ? case_["method"].as<std::string>() : std::string();
    r.assignor = "streams sticky";
    const YAML::Node& expect = case_["expect"];
    if (!expect || !expect.IsMap()) fail(case_, "a case needs an 'expect' map");
    const st::StreamsGroupSpec g = group(case_["input"]["members"], standbys_);
    const st::StreamsGroupAssignment got = assign(g, "result");
    for (const auto& kv : expect) expectation(kv.first.as<std::string>(), kv.second, g, got);
    if (!ok_) {
      r.status = Status::Fail;
      r.detail = "differs:" + diff_;
    } else {
      r.status = Status::Pass;
      r.detail = unparsed_.empty() ? fmt::format("checked {} and the invariants", fmt::join(checked_, ", "))
                                   : fmt::format("could not read {}; only the generic invariants checked them",
                                                 fmt::join(unparsed_, "; "));
    }
    return r;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const {
    throw scenario::InputError(path_, scenario::mark_of(n), msg);
  }

  void differs(const std::string& what) {
    ok_ = false;
    diff_ += "\n      " + what;
  }

  // Runs the assignor and checks the generic invariants of its result.
  st::StreamsGroupAssignment assign(const st::StreamsGroupSpec& g, const std::string& label) {
    st::StreamsGroupAssignment a = st::sticky_task_assign(g, topology_);
    for (const auto& v : st::assignment_violations(g, topology_, a)) differs(label + ": " + v);
    return a;
  }

  // {subtopology: [partitions]}
  TaskSet tasks(const YAML::Node& n) const {
    TaskSet out;
    if (!n.IsMap()) fail(n, "tasks are written {subtopology: [partitions]}");
    for (const auto& kv : n)
      for (const auto& p : kv.second) out.insert(TaskId{kv.first.as<std::string>(), p.as<int>()});
    return out;
  }

  st::StreamsGroupSpec group(const YAML::Node& members, int standbys) const {
    st::StreamsGroupSpec g;
    g.num_standby_replicas = standbys;
    for (const auto& m : members) {
      st::AssignmentMemberSpec spec;
      spec.process_id = m["process"].as<std::string>();
      if (m["prev_active"]) spec.current.active = tasks(m["prev_active"]);
      if (m["prev_standby"]) spec.current.standby = tasks(m["prev_standby"]);
      if (m["prev_warmup"]) spec.current.warmup = tasks(m["prev_warmup"]);
      if (m["task_offsets"])
        for (const auto& [t, offset] : offsets(m["task_offsets"])) spec.task_offsets[t] = offset;
      g.members[m["id"].as<std::string>()] = spec;
    }
    return g;
  }

  std::map<TaskId, std::int64_t> offsets(const YAML::Node& n) const {
    std::map<TaskId, std::int64_t> out;
    for (const auto& kv : n) {
      if (kv.second.IsMap()) {  // {subtopology: {partition: offset}}
        for (const auto& p : kv.second) out[TaskId{kv.first.as<std::string>(), p.first.as<int>()}] = p.second.as<std::int64_t>();
      } else {
        const auto t = st::parse_task(kv.first.as<std::string>());
        if (!t) fail(kv.first, "a task offset is keyed by a task, SUBTOPOLOGY_PARTITION");
        out[*t] = kv.second.as<std::int64_t>();
      }
    }
    return out;
  }

  // A bare partition number names a task when the topology has one
  // sub-topology.
  std::optional<TaskId> task_of(int partition) const {
    if (topology_.subtopologies.size() != 1) return std::nullopt;
    return TaskId{topology_.subtopologies.begin()->first, partition};
  }

  // "sub1" in a sentence abbreviates "test-subtopology1".
  std::optional<std::string> subtopology_named(const std::string& name) const {
    if (topology_.subtopologies.count(name)) return name;
    const auto digits = name.find_first_of("0123456789");
    if (digits == std::string::npos) return std::nullopt;
    for (const auto& [id, info] : topology_.subtopologies)
      if (id.size() > name.size() - digits && id.compare(id.size() - (name.size() - digits), std::string::npos, name, digits) == 0 &&
          id.find(name.substr(0, digits)) != std::string::npos)
        return id;
    return std::nullopt;
  }

  TaskSet all_tasks() const {
    TaskSet out;
    for (const auto& [id, info] : topology_.subtopologies)
      for (int p = 0; p < info.tasks; ++p) out.insert(TaskId{id, p});
    return out;
  }

  static TaskSet actives(const st::StreamsGroupAssignment& a) {
    TaskSet out;
    for (const auto& [m, t] : a) out.insert(t.active.begin(), t.active.end());
    return out;
  }

  static std::size_t active_count(const st::StreamsGroupAssignment& a) {
    std::size_t n = 0;
    for (const auto& [m, t] : a) n += t.active.size();
    return n;
  }

  const st::TasksTuple& of(const st::StreamsGroupAssignment& a, const std::string& member) {
    static const st::TasksTuple none;
    const auto it = a.find(member);
    if (it == a.end()) differs(member + " is not in the assignment");
    return it == a.end() ? none : it->second;
  }

  // A sentence: clauses split at ';' and ',' outside braces, each read on
  // its own. `subject` is prefixed to a clause without one ("standby does not
  // contain task 1" under a member's key).
  void sentence(const std::string& text, const st::StreamsGroupSpec& g, const st::StreamsGroupAssignment& a,
                const std::string& subject = {}) {
    std::string last_member;
    std::optional<TaskSet> kept;  // what "keeps one of {..}" kept, for "gets the other of {..}"
    for (auto clause : split(without_remarks(text), ";,")) {
      if (!subject.empty()) clause = subject + " " + clause;
      if (!read_clause(clause, g, a, last_member, kept)) unparsed_.push_back("'" + clause + "'");
    }
  }

  bool read_clause(const std::string& clause, const st::StreamsGroupSpec& g, const st::StreamsGroupAssignment& a,
                   std::string& last_member, std::optional<TaskSet>& kept) {
    std::smatch m;
    static const std::regex each(R"(each (?:of the (\d+) )?members? (?:has )?exactly (\d+) active tasks?)");
    static const std::regex union_is(R"(union = \{(.*)\})");
    static const std::regex covers(R"((?:union of actives covers all|all) (\d+) tasks(?: assigned)?)");
    static const std::regex total(R"(total (?:actives )?(\d+))");
    static const std::regex keeps(R"((\S+) keeps (\d+))");
    static const std::regex keeps_one(R"((\S+) keeps one of \{([\d,\s]+)\})");
    static const std::regex other(R"((\S+) gets the other of \{([\d,\s]+)\})");
    static const std::regex ends(R"((\S+) (?:ends )?with (\d+)(?: active tasks?)?)");
    static const std::regex not_contain(R"((\S+) (active|standby) does not contain task (\d+))");
    static const std::regex rerun(R"(for num_standby_replicas in \{([\d,\s]+)\}: assign\(members with prev = first result\) == first result)");
    if (std::regex_match(clause, m, each)) {
      if (m[1].matched && g.members.size() != std::stoul(m[1])) differs(fmt::format("'{}': the group has {} members", clause, g.members.size()));
      for (const auto& [id, t] : a)
        if (t.active.size() != std::stoul(m[2])) differs(fmt::format("{} has {} active tasks: {}", id, t.active.size(), show_tasks(t.active)));
    } else if (std::regex_match(clause, m, union_is)) {
      const auto want = task_sets(m[1]);
      if (!want) return false;
      if (actives(a) != *want) differs(fmt::format("union of actives {} != {}", show_tasks(actives(a)), show_tasks(*want)));
    } else if (std::regex_match(clause, m, covers)) {
      if (actives(a) != all_tasks() || active_count(a) != std::stoul(m[1]))
        differs(fmt::format("'{}': {} active assignments over {}", clause, active_count(a), show_tasks(actives(a))));
    } else if (std::regex_match(clause, m, total)) {
      if (active_count(a) != std::stoul(m[1])) differs(fmt::format("'{}': {} active tasks in all", clause, active_count(a)));
    } else if (std::regex_match(clause, m, keeps_one)) {
      const auto set = partitions(m[2]);
      if (!set) return false;
      TaskSet both;
      for (const auto& t : of(a, m[1]).active)
        if (set->count(t)) both.insert(t);
      if (both.size() != 1) differs(fmt::format("{} keeps {} of {}", std::string(m[1]), show_tasks(both), show_tasks(*set)));
      kept = both;
    } else if (std::regex_match(clause, m, other)) {
      const auto set = partitions(m[2]);
      if (!set || !kept) return false;
      TaskSet rest;
      std::set_difference(set->begin(), set->end(), kept->begin(), kept->end(), std::inserter(rest, rest.end()));
      const auto& have = of(a, m[1]).active;
      if (!std::includes(have.begin(), have.end(), rest.begin(), rest.end()))
        differs(fmt::format("{} has {}, not the other of {}: {}", std::string(m[1]), show_tasks(have), show_tasks(*set), show_tasks(rest)));
    } else if (std::regex_match(clause, m, keeps)) {
      const auto t = task_of(std::stoi(m[2]));
      if (!t) return false;
      if (of(a, m[1]).active.count(*t) == 0) differs(fmt::format("{} does not keep {}: {}", std::string(m[1]), st::to_string(*t), show_tasks(of(a, m[1]).active)));
      last_member = m[1];
    } else if (std::regex_match(clause, m, ends)) {
      const auto& who = g.members.count(m[1]) ? std::string(m[1]) : last_member;
      if (!g.members.count(who)) return false;
      if (of(a, who).active.size() != std::stoul(m[2]))
        differs(fmt::format("{} has {} active tasks, want {}", who, of(a, who).active.size(), std::string(m[2])));
      last_member = who;
    } else if (std::regex_match(clause, m, not_contain)) {
      const auto t = task_of(std::stoi(m[3]));
      if (!t) return false;
      const auto& role = m[2] == "active" ? of(a, m[1]).active : of(a, m[1]).standby;
      if (role.count(*t)) differs(fmt::format("{} {} contains {}", std::string(m[1]), std::string(m[2]), st::to_string(*t)));
    } else if (std::regex_match(clause, m, rerun)) {
      for (const int n : numbers(m[1])) rerun_own_output(g, n);
    } else {
      return false;
    }
    return true;
  }

  // Fed its own result as every member's current assignment, the assignor
  // returns the same result (shouldReturnItsOwnOutput...).
  void rerun_own_output(st::StreamsGroupSpec g, int standbys) {
    g.num_standby_replicas = standbys;
    const auto first = assign(g, fmt::format("standbys {}", standbys));
    for (auto& [id, spec] : g.members) spec.current = first.at(id);
    const auto second = assign(g, fmt::format("standbys {} re-run", standbys));
    if (second != first) differs(fmt::format("num_standby_replicas {}: the re-run on its own output differs", standbys));
  }

  // "sub1:{0,1,2}, sub2:{0,1,2}"
  std::optional<TaskSet> task_sets(const std::string& text) const {
    TaskSet out;
    static const std::regex one(R"(([\w-]+):\{([\d,\s]+)\})");
    for (const auto& part : split(text, ",")) {
      std::smatch m;
      const auto sub = std::regex_match(part, m, one) ? subtopology_named(m[1]) : std::nullopt;
      if (!sub) return std::nullopt;
      for (const int p : numbers(m[2])) out.insert(TaskId{*sub, p});
    }
    return out;
  }

  std::optional<TaskSet> partitions(const std::string& list) const {
    TaskSet out;
    for (const int p : numbers(list)) {
      const auto t = task_of(p);
      if (!t) return std::nullopt;
      out.insert(*t);
    }
    return out;
  }

  // An exact role: {subtopology: [partitions]}, or "no entry" (none).
  void exact(const std::string& who, const std::string& role, const YAML::Node& want, const TaskSet& got) {
    const TaskSet w = want.IsScalar() && want.as<std::string>() == "no entry" ? TaskSet{} : tasks(want);
    if (w != got) differs(fmt::format("{} {}: want {} got {}", who, role, show_tasks(w), show_tasks(got)));
  }

  void assignment_active(const YAML::Node& v, const st::StreamsGroupAssignment& a) {
    for (const auto& kv : v) exact(kv.first.as<std::string>(), "active", kv.second, of(a, kv.first.as<std::string>()).active);
  }

  // A later round: the members listed, with their previous tasks as written.
  void round(const YAML::Node& v) {
    const st::StreamsGroupSpec g = group(v["members"], standbys_);
    const auto a = assign(g, "round 2");
    for (const auto& kv : v) {
      const std::string key = kv.first.as<std::string>();
      if (key == "expect") sentence(kv.second.as<std::string>(), g, a);
      else if (key == "assignment_active") assignment_active(kv.second, a);
      else if (key != "members") unparsed_.push_back("round key '" + key + "'");
    }
  }

  void expectation(const std::string& key, const YAML::Node& v, const st::StreamsGroupSpec& g, const st::StreamsGroupAssignment& a) {
    if (key == "property" || key == "round1") {
      sentence(v.as<std::string>(), g, a);
    } else if (key == "round2") {
      round(v);
    } else if (key == "assignment_active") {
      assignment_active(v, a);
    } else if (g.members.count(key) && v.IsScalar()) {
      sentence(v.as<std::string>(), g, a, key);
    } else if (g.members.count(key) && v.IsMap()) {
      for (const auto& role : v) {
        const std::string r = role.first.as<std::string>();
        if (r != "active" && r != "standby" && r != "warmup") fail(role.first, "a member's expected roles are active, standby, warmup");
        const auto& t = of(a, key);
        exact(key, r, role.second, r == "active" ? t.active : r == "standby" ? t.standby : t.warmup);
      }
    } else {
      unparsed_.push_back("expectation '" + key + "'");
      return;
    }
    checked_.push_back(key);
  }

  std::string path_;
  YAML::Node case_;
  st::TopologyDescriber topology_;
  int standbys_ = 0;
  bool ok_ = true;
  std::string diff_;
  std::vector<std::string> checked_, unparsed_;
};

}  // namespace

CaseResult StreamsCases::run(const YAML::Node& c) const { return StreamsCase(path_, c).run(); }

}  // namespace rsim::vectors
