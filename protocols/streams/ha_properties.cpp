#include "protocols/streams/ha_properties.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

namespace rsim::protocols::streams::ha {

namespace {

class Checker {
 public:
  Checker(const std::map<ProcessId, ClientInput>& clients, const TaskSet& all, const TaskSet& stateful,
          const AssignmentConfigs& configs, const Assignment& a)
      : clients_(clients), all_(all), stateful_(stateful), configs_(configs), a_(a) {}

  std::vector<std::string> run() {
    same_clients();
    copies_per_client();
    actives_once();
    standbys_per_task();
    warmups();
    actives_caught_up();
    return out_;
  }

 private:
  void add(std::string v) { out_.push_back(std::move(v)); }

  void same_clients() {
    for (const auto& [id, _] : clients_)
      if (!a_.clients.contains(id)) add("client " + id + " has no assignment");
    for (const auto& [id, _] : a_.clients)
      if (!clients_.contains(id)) add("unknown client " + id + " has an assignment");
  }

  void copies_per_client() {
    for (const auto& [id, t] : a_.clients) {
      std::map<TaskId, int> copies;
      for (const TaskSet* role : {&t.active, &t.standby, &t.warmup})
        for (const auto& task : *role) ++copies[task];
      for (const auto& [task, n] : copies) {
        if (n > 1) add("client " + id + " holds " + std::to_string(n) + " copies of " + to_string(task));
        if (!all_.contains(task)) add("client " + id + " holds unknown task " + to_string(task));
      }
      for (const TaskSet* role : {&t.standby, &t.warmup})
        for (const auto& task : *role)
          if (!stateful_.contains(task)) add("stateless task " + to_string(task) + " has a standby or warm-up on " + id);
    }
  }

  void actives_once() {
    if (clients_.empty()) return;
    for (const auto& task : all_) {
      const auto n = std::count_if(a_.clients.begin(), a_.clients.end(), [&](const auto& kv) { return kv.second.active.contains(task); });
      if (n != 1) add("task " + to_string(task) + " is active on " + std::to_string(n) + " clients");
    }
  }

  void standbys_per_task() {
    const auto wanted = std::min<std::int64_t>(configs_.num_standby_replicas, static_cast<std::int64_t>(clients_.size()) - 1);
    for (const auto& task : stateful_) {
      const auto n = std::count_if(a_.clients.begin(), a_.clients.end(), [&](const auto& kv) { return kv.second.standby.contains(task); });
      if (n != std::max<std::int64_t>(wanted, 0))
        add("task " + to_string(task) + " has " + std::to_string(n) + " standbys, expected " + std::to_string(wanted));
    }
  }

  void warmups() {
    std::size_t total = 0;
    for (const auto& [id, t] : a_.clients) {
      total += t.warmup.size();
      for (const auto& task : t.warmup)
        if (stateful_.contains(task) && is_caught_up(id, task))
          add("warm-up of " + to_string(task) + " on " + id + ", which is caught up on it");
    }
    if (total > static_cast<std::size_t>(std::max(configs_.max_warmup_replicas, 0)))
      add(std::to_string(total) + " warm-ups, above max.warmup.replicas " + std::to_string(configs_.max_warmup_replicas));
    if (total > 0 && !a_.probing_rebalance_needed) add("warm-ups assigned but no probing rebalance requested");
  }

  void actives_caught_up() {
    for (const auto& [id, t] : a_.clients) {
      for (const auto& task : t.active) {
        if (!stateful_.contains(task) || !clients_.contains(id) || is_caught_up(id, task)) continue;
        const auto mine = clients_.at(id).lag_for(task);
        if (!mine) continue;  // no lag: input the assignor refuses
        const std::int64_t lag = *mine;
        for (const auto& [other, c] : clients_)
          if (const auto lower = c.lag_for(task); lower && *lower < lag)
            add("active " + to_string(task) + " on " + id + " (lag " + std::to_string(lag) + "), not caught up, while " + other +
                " lags " + std::to_string(*lower));
      }
    }
  }

  bool is_caught_up(const ProcessId& id, const TaskId& task) const {
    const auto c = clients_.find(id);
    if (c == clients_.end()) return false;
    const auto lag = c->second.lag_for(task);
    return lag && caught_up(*lag, configs_.acceptable_recovery_lag);
  }

  const std::map<ProcessId, ClientInput>& clients_;
  const TaskSet& all_;
  const TaskSet& stateful_;
  const AssignmentConfigs& configs_;
  const Assignment& a_;
  std::vector<std::string> out_;
};

}  // namespace

std::vector<std::string> assignment_violations(const std::map<ProcessId, ClientInput>& clients, const TaskSet& all_tasks,
                                               const TaskSet& stateful_tasks, const AssignmentConfigs& configs,
                                               const Assignment& assignment) {
  return Checker(clients, all_tasks, stateful_tasks, configs, assignment).run();
}

}  // namespace rsim::protocols::streams::ha
