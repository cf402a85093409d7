#include "protocols/streams/ha_task_movement.hpp"

#include "protocols/streams/constrained_priority_set.hpp"
#include "protocols/streams/java_priority_queue.hpp"

#include <algorithm>
#include <stdexcept>

namespace rsim::protocols::streams::ha {

namespace {

struct TaskMovement {
  TaskId task;
  ProcessId destination;  // where the balanced placement wanted the task
  int caught_up_clients = 0;
  bool operator==(const TaskMovement&) const = default;
};

// Fewest caught-up clients first (the scarcest candidates are served first),
// then task order. Two standby movements of one task compare equal: the
// heap's shape then decides, hence Java's heap.
struct MovementOrder {
  int operator()(const TaskMovement& a, const TaskMovement& b) const {
    if (a.caught_up_clients != b.caught_up_clients) return a.caught_up_clients < b.caught_up_clients ? -1 : 1;
    return KafkaTaskOrder::compare(a.task, b.task);
  }
};
using MovementQueue = JavaPriorityQueue<TaskMovement, MovementOrder>;

bool caught_up_on(const LagTables& tables, const TaskId& task, const ProcessId& client) {
  return tables.caught_up(task, client);
}

// The task should move away from `client` when it is not caught up there and
// the most caught-up client has a strictly lower lag.
bool should_move(const LagTables& tables, const ClientStates& clients, const TaskId& task, const ProcessId& client) {
  if (caught_up_on(tables, task, client)) return false;
  const ProcessId& most_caught_up = tables.by_lag(task).front();
  return clients.at(most_caught_up).lag_for(task) < clients.at(client).lag_for(task);
}

TaskMovement movement(const LagTables& tables, const TaskId& task, const ProcessId& destination) {
  return TaskMovement{task, destination, tables.caught_up_count(task)};
}


// Returned as a prvalue: built in place (the set cannot be copied).
ConstrainedPrioritySet caught_up_clients_by_load(const LagTables& tables, const ClientStates& clients) {
  return ConstrainedPrioritySet(
      clients, [&tables](const ProcessId& c, const TaskId& t) { return caught_up_on(tables, t, c); },
      [](const ClientState& c) { return c.assigned_load(); });
}

// The first client in lag order before `destination` that passes `eligible`.
std::optional<ProcessId> most_caught_up_eligible(const LagTables& tables, const TaskId& task, const ProcessId& destination,
                                                 const ConstrainedPrioritySet::Filter& eligible) {
  for (const auto& c : tables.by_lag(task)) {
    if (c == destination) break;
    if (eligible(c)) return c;
  }
  return std::nullopt;
}

bool take_warmup(std::int64_t& remaining_warmups) { return remaining_warmups-- > 0; }

void swap_standby_and_active(const TaskId& task, ClientState& source, ClientState& destination) {
  source.unassign_standby(task);
  source.assign_active(task);
  destination.unassign_active(task);
  destination.assign_standby(task);
}

void move_active_and_try_to_warm_up(const TaskId& task, const ProcessId& source, const ProcessId& destination,
                                    ClientStates& clients, Warmups& warmups, std::int64_t& remaining_warmups) {
  clients.at(source).assign_active(task);
  clients.at(destination).unassign_active(task);
  if (take_warmup(remaining_warmups)) {
    clients.at(destination).assign_standby(task);
    warmups[destination].insert(task);
  }
  // Otherwise the destination gets nothing now; a probing rebalance retries.
}

// The three tries of an active movement, in Kafka's order.
class ActiveMover {
 public:
  ActiveMover(const LagTables& tables, ClientStates& clients, Warmups& warmups, std::int64_t& remaining,
              ConstrainedPrioritySet& by_load)
      : tables_(tables), clients_(clients), warmups_(warmups), remaining_(remaining), by_load_(by_load) {}

  void move(const TaskMovement& m) {
    if (swap_with_caught_up_standby(m) || move_to_caught_up_client(m) || move_to_most_caught_up_client(m)) return;
    throw std::logic_error("no more caught-up client for " + to_string(m.task) + " although a movement was planned");
  }

 private:
  bool swap_with_caught_up_standby(const TaskMovement& m) {
    const auto source = by_load_.poll(m.task, [&](const ProcessId& c) { return clients_.at(c).has_standby(m.task); });
    if (!source) return false;
    swap_standby_and_active(m.task, clients_.at(*source), clients_.at(m.destination));
    by_load_.offer_all({*source, m.destination});
    return true;
  }

  bool move_to_caught_up_client(const TaskMovement& m) {
    const auto source = by_load_.poll(m.task);
    if (!source) return false;
    move_active_and_try_to_warm_up(m.task, *source, m.destination, clients_, warmups_, remaining_);
    by_load_.offer_all({*source, m.destination});
    return true;
  }

  bool move_to_most_caught_up_client(const TaskMovement& m) {
    const auto source = most_caught_up_eligible(tables_, m.task, m.destination, [](const ProcessId&) { return true; });
    if (!source) return false;
    if (clients_.at(*source).has_standby(m.task))
      swap_standby_and_active(m.task, clients_.at(*source), clients_.at(m.destination));
    else
      move_active_and_try_to_warm_up(m.task, *source, m.destination, clients_, warmups_, remaining_);
    by_load_.offer_all({*source, m.destination});
    return true;
  }

  const LagTables& tables_;
  ClientStates& clients_;
  Warmups& warmups_;
  std::int64_t& remaining_;
  ConstrainedPrioritySet& by_load_;
};

}  // namespace

// Every task starts from each client's unlisted lag (caught up or not, the
// same bit for every task), then each listed lag sets its own: the work is
// the lags the clients listed, not a lag per client and task (10 million
// at 1,000 clients on 10,000 tasks; issue 16).
LagTables::LagTables(const ClientStates& clients, const TaskSet& stateful, std::int64_t acceptable_recovery_lag)
    : clients_(&clients) {
  Caught unlisted;
  for (const auto& [id, state] : clients) {
    ids_.push_back(id);
    const auto lag = state.unlisted_lag();
    unlisted.by_rank.push_back(lag && ha::caught_up(*lag, acceptable_recovery_lag));
    unlisted.count += unlisted.by_rank.back() ? 1 : 0;
  }
  std::vector<Caught> caught(stateful.size(), unlisted);
  std::size_t rank = 0;
  for (const auto& [id, state] : clients) {
    std::size_t listed = 0;
    for (const auto& [task, lag] : state.lags()) {
      const auto it = stateful.find(task);
      if (it == stateful.end()) continue;  // not stateful: never read
      ++listed;
      Caught& c = caught[stateful.index_of(it)];
      if (const bool now = ha::caught_up(lag, acceptable_recovery_lag); now != c.by_rank[rank]) {
        c.by_rank[rank] = now;
        c.count += now ? 1 : -1;
      }
    }
    if (!state.unlisted_lag() && listed != stateful.size())
      throw std::invalid_argument("client " + id + " has no lag for some stateful task");
    ++rank;
  }
  std::size_t i = 0;
  for (const auto& task : stateful) caught_.emplace(task, std::move(caught[i++]));
}

LagTables::LagTables(const CaughtUp& caught_up, ByLag by_lag) : by_lag_(std::move(by_lag)) {
  boost::container::flat_set<ProcessId> ids;
  for (const auto& [task, clients] : caught_up) ids.insert(clients.begin(), clients.end());
  ids_.assign(ids.begin(), ids.end());
  for (const auto& [task, clients] : caught_up) {
    Caught& c = caught_[task];
    c.by_rank.resize(ids_.size());
    for (const auto& id : clients) c.by_rank[ids.index_of(ids.find(id))] = true;
    c.count = static_cast<int>(clients.size());
  }
}

bool LagTables::caught_up(const TaskId& task, const ProcessId& client) const {
  const Caught& c = caught_.at(task);
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), client);
  return it != ids_.end() && *it == client && c.by_rank[static_cast<std::size_t>(it - ids_.begin())];
}

const std::vector<ProcessId>& LagTables::by_lag(const TaskId& task) const {
  if (const auto it = by_lag_.find(task); it != by_lag_.end()) return it->second;
  if (!clients_ || !caught_.contains(task)) throw std::out_of_range("no lag order for task " + to_string(task));
  std::vector<std::pair<std::int64_t, const ProcessId*>> lags;
  lags.reserve(clients_->size());
  for (const auto& [id, state] : *clients_) lags.emplace_back(state.lag_for(task), &id);
  // Sentinel lags sort as the numbers they are: UNKNOWN_OFFSET_SUM (-3)
  // first, as in Kafka's comparingLong(lagFor); ties keep process id order.
  std::stable_sort(lags.begin(), lags.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto& order = by_lag_[task];
  order.reserve(lags.size());
  for (const auto& [lag, id] : lags) order.push_back(*id);
  return order;
}

int assign_active_task_movements(const LagTables& tables, ClientStates& clients, Warmups& warmups,
                                 std::int64_t& remaining_warmups) {
  ConstrainedPrioritySet by_load = caught_up_clients_by_load(tables, clients);
  MovementQueue movements{MovementOrder{}};
  for (const auto& [client, state] : clients) {
    for (const auto& task : state.active())
      if (should_move(tables, clients, task, client)) movements.offer(movement(tables, task, client));
    by_load.offer(client);
  }
  const int needed = static_cast<int>(movements.size());
  ActiveMover mover(tables, clients, warmups, remaining_warmups, by_load);
  while (const auto m = movements.poll()) mover.move(*m);
  return needed;
}

int assign_standby_task_movements(const LagTables& tables, ClientStates& clients, Warmups& warmups,
                                  std::int64_t& remaining_warmups) {
  ConstrainedPrioritySet by_load = caught_up_clients_by_load(tables, clients);
  MovementQueue movements{MovementOrder{}};
  for (const auto& [client, state] : clients) {
    const auto w = warmups.find(client);
    for (const auto& task : state.standby()) {
      const bool is_warmup = w != warmups.end() && w->second.contains(task);  // placed on purpose: stays
      if (!is_warmup && should_move(tables, clients, task, client)) movements.offer(movement(tables, task, client));
    }
    by_load.offer(client);
  }
  int needed = 0;
  while (const auto m = movements.poll()) {
    const ConstrainedPrioritySet::Filter lacks_task = [&](const ProcessId& c) { return !clients.at(c).has_assigned(m->task); };
    auto source = by_load.poll(m->task, lacks_task);
    if (!source) source = most_caught_up_eligible(tables, m->task, m->destination, lacks_task);
    if (!source) continue;  // every better client already holds a copy: nowhere to move it
    clients.at(*source).assign_standby(m->task);
    if (take_warmup(remaining_warmups))
      warmups[m->destination].insert(m->task);
    else
      clients.at(m->destination).unassign_standby(m->task);
    by_load.offer_all({*source, m->destination});
    ++needed;
  }
  return needed;
}

}  // namespace rsim::protocols::streams::ha
