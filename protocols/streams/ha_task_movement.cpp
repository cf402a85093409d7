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
  const ProcessId& most_caught_up = tables.most_caught_up(task);
  return clients.at(most_caught_up).lag_for(task) < clients.at(client).lag_for(task);
}

TaskMovement movement(const LagTables& tables, const TaskId& task, const ProcessId& destination) {
  return TaskMovement{task, destination, tables.caught_up_count(task)};
}


// Returned as a prvalue: built in place (the set cannot be copied). The
// constraint asks the tables by the set's ranks: they must be the same.
ConstrainedPrioritySet caught_up_clients_by_load(const LagTables& tables, const ClientStates& clients) {
  if (!tables.ranks(clients)) throw std::logic_error("lag tables built over other clients");
  return ConstrainedPrioritySet(
      clients, [&tables](std::size_t rank, const ClientState&, const TaskId& t) { return tables.caught_up(t, rank); },
      [](const ClientState& c) { return c.assigned_load(); });
}

// The first client in lag order before `destination` that passes `eligible`.
std::optional<ProcessId> most_caught_up_eligible(const LagTables& tables, const TaskId& task, const ProcessId& destination,
                                                 const ConstrainedPrioritySet::Filter& eligible) {
  for (const auto rank : tables.by_lag(task)) {
    const ProcessId& c = tables.client(rank);
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
    : clients_(&clients), build_orders_(true) {
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

LagTables::LagTables(const ClientStates& clients, const CaughtUp& caught_up, const ByLag& by_lag)
    : clients_(&clients), build_orders_(false) {
  for (const auto& entry : clients) ids_.push_back(entry.first);
  for (const auto& [task, named] : caught_up) {
    Caught& c = caught_[task];
    c.by_rank.resize(ids_.size());
    for (const auto& id : named) c.by_rank[client_rank(id)] = true;
    c.count = static_cast<int>(named.size());
  }
  for (const auto& [task, named] : by_lag)
    for (const auto& id : named) by_lag_[task].push_back(client_rank(id));
}

std::uint32_t LagTables::rank(const ProcessId& client) const {
  return static_cast<std::uint32_t>(std::lower_bound(ids_.begin(), ids_.end(), client) - ids_.begin());
}

std::uint32_t LagTables::client_rank(const ProcessId& client) const {
  const std::uint32_t r = rank(client);
  if (r == ids_.size() || ids_[r] != client) throw std::invalid_argument(client + " is not a client");
  return r;
}

const LagTables::Caught& LagTables::caught(const TaskId& task) const {
  if (last_ == nullptr || !(last_->first == task)) {
    const auto it = caught_.find(task);
    if (it == caught_.end()) throw std::out_of_range("not a stateful task: " + to_string(task));
    last_ = &*it;
  }
  return last_->second;
}

bool LagTables::caught_up(const TaskId& task, const ProcessId& client) const {
  const Caught& c = caught(task);
  const std::uint32_t r = rank(client);
  return r < ids_.size() && ids_[r] == client && c.by_rank[r];
}

const std::vector<std::uint32_t>& LagTables::by_lag(const TaskId& task) const {
  if (const auto it = by_lag_.find(task); it != by_lag_.end()) return it->second;
  if (!build_orders_ || !caught_.contains(task)) throw std::out_of_range("no lag order for task " + to_string(task));
  std::vector<std::pair<std::int64_t, std::uint32_t>> lags;
  lags.reserve(clients_->size());
  std::uint32_t r = 0;
  for (const auto& entry : *clients_) lags.emplace_back(entry.second.lag_for(task), r++);
  // Sentinel lags sort as the numbers they are: UNKNOWN_OFFSET_SUM (-3)
  // first, as in Kafka's comparingLong(lagFor); ties keep process id order.
  std::stable_sort(lags.begin(), lags.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto& order = by_lag_[task];
  order.reserve(lags.size());
  for (const auto& lag : lags) order.push_back(lag.second);
  return order;
}

const ProcessId& LagTables::most_caught_up(const TaskId& task) const {
  const auto& order = by_lag(task);
  if (order.empty()) throw std::out_of_range("no client lags on task " + to_string(task));
  return client(order.front());
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
