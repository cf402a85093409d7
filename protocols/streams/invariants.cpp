#include "protocols/streams/invariants.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace rsim::protocols::streams {

namespace {

void check_members(const StreamsGroupSpec& group, const StreamsGroupAssignment& a, std::vector<std::string>& out) {
  for (const auto& [id, spec] : group.members)
    if (a.count(id) == 0) out.push_back("member " + id + " has no entry");
  for (const auto& [id, tasks] : a)
    if (group.members.count(id) == 0) out.push_back("assignment names " + id + ", not a member");
}

// Active owners per task; a task of no sub-topology is reported.
void check_actives(const StreamsGroupSpec& group, const TopologyDescriber& topology, const StreamsGroupAssignment& a,
                   std::vector<std::string>& out) {
  std::map<TaskId, int> owners;
  for (const auto& [id, tasks] : a)
    for (const auto& t : tasks.active) ++owners[t];
  for (const auto& [sub, info] : topology.subtopologies)
    for (int p = 0; p < info.tasks; ++p) {
      const TaskId t{sub, p};
      const int n = owners.count(t) ? owners.at(t) : 0;
      if (n != (group.members.empty() ? 0 : 1)) out.push_back(to_string(t) + " is active on " + std::to_string(n) + " members");
      owners.erase(t);
    }
  for (const auto& [t, n] : owners) out.push_back(to_string(t) + " is assigned but is no task of the topology");
}

// The sticky assignor's balance: no member above ceil(tasks / members).
void check_balance(const StreamsGroupSpec& group, const TopologyDescriber& topology, const StreamsGroupAssignment& a,
                   std::vector<std::string>& out) {
  std::size_t most = 0, total = 0;
  for (const auto& [id, tasks] : a) most = std::max(most, tasks.active.size());
  for (const auto& [sub, info] : topology.subtopologies) total += static_cast<std::size_t>(info.tasks);
  const std::size_t members = group.members.size();
  if (members > 0 && most > (total + members - 1) / members)
    out.push_back("a member has " + std::to_string(most) + " active tasks, more than ceil(" + std::to_string(total) + " / " +
                  std::to_string(members) + ")");
}

// No process holds two copies of a task; standbys and warm-ups are copies
// of the topology's stateful tasks.
void check_copies(const StreamsGroupSpec& group, const TopologyDescriber& topology, const StreamsGroupAssignment& a,
                  std::vector<std::string>& out) {
  std::map<std::string, std::multiset<TaskId>> by_process;
  for (const auto& [id, tasks] : a) {
    const auto spec = group.members.find(id);
    if (spec == group.members.end()) continue;
    auto& held = by_process[spec->second.process_id];
    held.insert(tasks.active.begin(), tasks.active.end());
    held.insert(tasks.standby.begin(), tasks.standby.end());
    held.insert(tasks.warmup.begin(), tasks.warmup.end());
    for (const auto* copies : {&tasks.standby, &tasks.warmup})
      for (const auto& t : *copies) {
        const auto sub = topology.subtopologies.find(t.subtopology);
        if (sub == topology.subtopologies.end() || t.partition < 0 || t.partition >= sub->second.tasks)
          out.push_back(to_string(t) + " is assigned but is no task of the topology");
        else if (!sub->second.stateful)
          out.push_back(to_string(t) + " is stateless: it has no state to keep a standby or warm-up copy of");
      }
  }
  for (const auto& [process, held] : by_process)
    for (auto it = held.begin(); it != held.end(); it = held.upper_bound(*it))
      if (held.count(*it) > 1) out.push_back("process " + process + " holds " + to_string(*it) + " twice");
}

// The sticky assignor's standbys: min(num_standby_replicas, processes - 1)
// of each stateful task.
void check_standby_counts(const StreamsGroupSpec& group, const TopologyDescriber& topology,
                          const StreamsGroupAssignment& a, std::vector<std::string>& out) {
  std::map<TaskId, int> standbys;
  for (const auto& [id, tasks] : a)
    for (const auto& t : tasks.standby) ++standbys[t];
  std::set<std::string> processes;
  for (const auto& [id, spec] : group.members) processes.insert(spec.process_id);
  const int copies = processes.empty() ? 0 : std::min(group.num_standby_replicas, static_cast<int>(processes.size()) - 1);
  for (const auto& [sub, info] : topology.subtopologies)
    for (int p = 0; p < info.tasks; ++p) {
      const TaskId t{sub, p};
      const int n = standbys.count(t) ? standbys.at(t) : 0;
      const int want = info.stateful ? copies : 0;
      if (n != want)
        out.push_back(to_string(t) + " has " + std::to_string(n) + " standbys, want " + std::to_string(want));
    }
}

}  // namespace

std::vector<std::string> assignment_violations(const StreamsGroupSpec& group, const TopologyDescriber& topology,
                                               const StreamsGroupAssignment& assignment) {
  std::vector<std::string> out = protocol_violations(group, topology, assignment);
  check_balance(group, topology, assignment, out);
  check_standby_counts(group, topology, assignment, out);
  return out;
}

std::vector<std::string> protocol_violations(const StreamsGroupSpec& group, const TopologyDescriber& topology,
                                             const StreamsGroupAssignment& assignment) {
  std::vector<std::string> out;
  check_members(group, assignment, out);
  check_actives(group, topology, assignment, out);
  check_copies(group, topology, assignment, out);
  return out;
}

}  // namespace rsim::protocols::streams
