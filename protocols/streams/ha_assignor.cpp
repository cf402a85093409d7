#include "protocols/streams/ha_assignor.hpp"

#include "protocols/streams/constrained_priority_set.hpp"
#include "protocols/streams/ha_task_movement.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <optional>
#include <stdexcept>

namespace rsim::protocols::streams::ha {

namespace {

ClientStates client_states(std::map<ProcessId, ClientInput>& clients) {
  ClientStates out;
  for (auto& [id, c] : clients) out.emplace_hint(out.end(), id, ClientState(c.capacity, std::move(c.lags), c.unlisted_lag));
  return out;
}

// Round-robin in (task, process id) order gives each client its share before
// the thread-aware balancing below evens it out by capacity.
void round_robin_stateful_actives(ClientStates& clients, const OrderedTasks& stateful) {
  auto next = clients.begin();
  for (const auto& task : stateful) {
    if (next == clients.end()) next = clients.begin();
    (next++)->second.assign_active(task);
  }
}

// HighAvailabilityTaskAssignor.shouldMoveATask: only a move that lowers the
// load skew between the two clients without reversing it.
bool should_move_a_task(const ClientState& source, const ClientState& destination) {
  const double skew = source.assigned_load() - destination.assigned_load();
  if (skew <= 0) return false;
  const double at_destination = (destination.assigned_count() + 1.0) / destination.capacity();
  const double at_source = (source.assigned_count() - 1.0) / source.capacity();
  const double proposed_skew = at_source - at_destination;
  return proposed_skew >= 0 && proposed_skew < skew;
}

// A role's accessors, so one balancing loop serves actives and standbys.
struct Role {
  const OrderedTasks& (ClientState::*tasks)() const;
  void (ClientState::*unassign)(const TaskId&);
  void (ClientState::*assign)(const TaskId&);
};
constexpr Role kActive{&ClientState::active, &ClientState::unassign_active, &ClientState::assign_active};
constexpr Role kStandby{&ClientState::standby, &ClientState::unassign_standby, &ClientState::assign_standby};

// Moves tasks of one client to another, lowest task first, while that
// improves their skew; returns whether any moved.
bool balance_pair(ClientState& source, ClientState& destination, const Role& role) {
  // Most pairs of a balanced group: nothing to move, so no snapshot either
  // (a copy per pair was a fifth of a 300-client rebalance).
  if (!should_move_a_task(source, destination)) return false;
  bool moved = false;
  const OrderedTasks snapshot = (source.*role.tasks)();
  for (auto it = snapshot.begin(); it != snapshot.end() && should_move_a_task(source, destination); ++it) {
    if (destination.has_assigned(*it)) continue;
    (source.*role.unassign)(*it);
    (destination.*role.assign)(*it);
    moved = true;
  }
  return moved;
}

// balanceTasksOverThreads: passes over every (source, destination) pair in
// process id order until one pass moves nothing. Each move lowers the sum of
// squared loads, so the loop ends; the bound guards that argument.
// A million pairs a pass at 1,000 clients: the clients in a vector, and
// shouldMoveATask's first test (the source more loaded than the
// destination) on loads kept beside them, recomputed after a move.
void balance_over_threads(ClientStates& clients, const Role& role) {
  std::vector<ClientState*> states;
  std::vector<double> load;
  for (auto& entry : clients) {
    states.push_back(&entry.second);
    load.push_back(entry.second.assigned_load());
  }
  const std::size_t n = states.size();
  const std::size_t pass_limit = 1'000'000;
  for (std::size_t pass = 0;; ++pass) {
    if (pass == pass_limit) throw std::logic_error("balancing tasks over threads does not converge");
    bool moved = false;
    for (std::size_t s = 0; s < n; ++s)
      for (std::size_t d = 0; d < n; ++d) {
        if (s == d || load[s] - load[d] <= 0) continue;  // no skew to lower
        if (!balance_pair(*states[s], *states[d], role)) continue;
        moved = true;
        load[s] = states[s]->assigned_load();
        load[d] = states[d]->assigned_load();
      }
    if (!moved) return;
  }
}

std::vector<ProcessId> ids(const ClientStates& clients) {
  std::vector<ProcessId> out;
  for (const auto& [id, _] : clients) out.push_back(id);
  return out;
}

// DefaultStandbyTaskAssignor: each stateful task in order takes its standbys
// on the least loaded clients that hold no copy of it yet; a shortage of
// clients leaves standbys out (Kafka logs a warning).
void assign_standbys(ClientStates& clients, const OrderedTasks& stateful, int num_standby_replicas) {
  ConstrainedPrioritySet by_load(
      clients, [](std::size_t, const ClientState& c, const TaskId& t) { return !c.has_assigned(t); },
      [](const ClientState& c) { return c.assigned_load(); });
  by_load.offer_all(ids(clients));
  for (const auto& task : stateful) {
    for (int placed = 0; placed < num_standby_replicas; ++placed) {
      const auto client = by_load.poll(task);
      if (!client) break;
      clients.at(*client).assign_standby(task);
      by_load.offer(*client);
    }
  }
}

// Stateless tasks cost no restoration, so they only even out the active load.
void assign_stateless_actives(ClientStates& clients, const OrderedTasks& stateless) {
  ConstrainedPrioritySet by_active_load(
      clients, [](std::size_t, const ClientState&, const TaskId&) { return true; },
      [](const ClientState& c) { return c.active_load(); });
  by_active_load.offer_all(ids(clients));
  for (const auto& task : stateless) {
    const ProcessId client = *by_active_load.poll(task);
    clients.at(client).assign_active(task);
    by_active_load.offer(client);
  }
}

// The first stateful task (in key order) some client has no lag for, and
// the first such client: one walk of each client's lags beside the tasks,
// not a lookup per task and client.
std::optional<std::pair<TaskId, const ProcessId*>> first_missing_lag(const std::map<ProcessId, ClientInput>& clients,
                                                                     const TaskSet& stateful) {
  std::optional<std::pair<TaskId, const ProcessId*>> first;
  for (const auto& [id, c] : clients) {
    if (c.unlisted_lag) continue;  // every task has a lag
    auto lag = c.lags.begin();
    for (const auto& t : stateful) {
      while (lag != c.lags.end() && lag->first < t) ++lag;
      if (lag != c.lags.end() && lag->first == t) continue;
      if (!first || t < first->first) first.emplace(t, &id);  // a tie keeps the earlier client
      break;
    }
  }
  return first;
}

// The first error in task order, as a check of every client per task finds.
void check_input(const std::map<ProcessId, ClientInput>& clients, const TaskSet& all_tasks, const TaskSet& stateful) {
  const auto missing = first_missing_lag(clients, stateful);
  auto known = all_tasks.begin();  // both sorted: one walk
  for (const auto& t : stateful) {
    while (known != all_tasks.end() && *known < t) ++known;
    if (known == all_tasks.end() || !(*known == t))
      throw std::invalid_argument("stateful task " + to_string(t) + " is not one of the tasks");
    if (missing && missing->first == t)
      throw std::invalid_argument("client " + *missing->second + " has no lag for stateful task " + to_string(t));
  }
  if (clients.empty() && !all_tasks.empty()) throw std::invalid_argument("tasks to assign but no client");
}

Assignment result(const ClientStates& clients, const Warmups& warmups, bool probing) {
  Assignment out;
  out.probing_rebalance_needed = probing;
  for (const auto& [id, state] : clients) {
    TasksTuple& t = out.clients[id];
    const auto w = warmups.find(id);
    for (const auto& task : state.active()) t.active.insert(task);
    for (const auto& task : state.standby())
      (w != warmups.end() && w->second.contains(task) ? t.warmup : t.standby).insert(task);
  }
  return out;
}

}  // namespace

Assignment assign(std::map<ProcessId, ClientInput> clients, const TaskSet& all_tasks, const TaskSet& stateful_tasks,
                  const AssignmentConfigs& configs) {
  check_input(clients, all_tasks, stateful_tasks);
  ClientStates states = client_states(clients);
  const OrderedTasks stateful(stateful_tasks.begin(), stateful_tasks.end());
  std::vector<TaskId> stateless_tasks;  // both sorted: one walk
  std::set_difference(all_tasks.begin(), all_tasks.end(), stateful_tasks.begin(), stateful_tasks.end(),
                      std::back_inserter(stateless_tasks));
  const OrderedTasks stateless(stateless_tasks.begin(), stateless_tasks.end());  // sorted once

  round_robin_stateful_actives(states, stateful);
  balance_over_threads(states, kActive);
  if (configs.num_standby_replicas > 0) {
    assign_standbys(states, stateful, configs.num_standby_replicas);
    balance_over_threads(states, kStandby);
  }

  std::int64_t remaining_warmups = configs.max_warmup_replicas;
  const LagTables tables(states, stateful_tasks, configs.acceptable_recovery_lag);
  Warmups warmups;
  const int active_moves = assign_active_task_movements(tables, states, warmups, remaining_warmups);
  const int standby_moves = assign_standby_task_movements(tables, states, warmups, remaining_warmups);

  assign_stateless_actives(states, stateless);
  return result(states, warmups, active_moves + standby_moves > 0);
}

TaskLags task_lags(const std::map<TaskId, std::int64_t>& offset_sums, const std::map<TaskId, std::int64_t>& end_offset_sums) {
  TaskLags lags;
  lags.reserve(end_offset_sums.size());
  for (const auto& [task, end] : end_offset_sums) {
    const auto it = offset_sums.find(task);
    const std::int64_t offset = it == offset_sums.end() ? 0 : it->second;
    if (offset == kLatestOffset || offset == kUnknownOffsetSum)
      lags.emplace_hint(lags.end(), task, offset);  // in key order
    else
      lags.emplace_hint(lags.end(), task, end < offset ? end : end - offset);
  }
  return lags;
}

}  // namespace rsim::protocols::streams::ha
