#include "protocols/streams/ha_task_movement.hpp"

#include "protocols/streams/constrained_priority_set.hpp"
#include "protocols/streams/java_priority_queue.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

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

// The task should move away from the client of `rank` when it is not caught
// up there and the most caught-up client has a strictly lower lag.
bool should_move(const LagTables& tables, const TaskId& task, std::uint32_t rank, const ClientState& client) {
  if (tables.caught_up(task, rank)) return false;
  return tables.lag_of_most_caught_up(task) < client.lag_for(task);
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

// Each client's caught-up bit for what it did not list comes from its
// unlisted lag; the lags it listed are kept by task (a counting sort of what
// the members reported): the work is the lags the clients listed, not a lag
// per client and task (100 million at 1,000 clients on 100,000 tasks; issue
// 16).
LagTables::LagTables(const ClientStates& clients, const TaskSet& stateful, std::int64_t acceptable_recovery_lag)
    : tasks_(stateful), clients_(&clients), build_orders_(true) {
  int unlisted_count = 0;
  for (const auto& [id, state] : clients) {
    ids_.push_back(id);
    const auto lag = state.unlisted_lag();
    unlisted_caught_.push_back(lag && ha::caught_up(*lag, acceptable_recovery_lag));
    unlisted_count += unlisted_caught_.back() ? 1 : 0;
    unlisted_lag_.push_back(lag.value_or(kMaxLag));
    if (lag) by_unlisted_lag_.push_back(static_cast<std::uint32_t>(ids_.size() - 1));
  }
  std::stable_sort(by_unlisted_lag_.begin(), by_unlisted_lag_.end(),
                   [this](std::uint32_t a, std::uint32_t b) { return unlisted_lag_[a] < unlisted_lag_[b]; });
  const std::uint32_t n = tasks_.size();
  has_caught_.assign(n, 1);
  counts_.assign(n, unlisted_count);
  offsets_.assign(n + 1, 0);
  std::vector<std::pair<std::uint32_t, Listed>> pending;  // (task, lag) in client order
  std::uint32_t rank = 0;
  for (const auto& [id, state] : clients) {
    std::size_t count = 0;
    for (const auto& [task, lag] : state.lags()) {
      const std::uint32_t i = tasks_.find(task);
      if (i == TaskIndex::npos) continue;  // not stateful: never read
      ++count;
      const bool now = ha::caught_up(lag, acceptable_recovery_lag);
      counts_[i] += (now ? 1 : 0) - (unlisted_caught_[rank] ? 1 : 0);
      ++offsets_[i + 1];
      pending.push_back({i, Listed{rank, now, lag}});
    }
    if (!state.unlisted_lag() && count != n) throw std::invalid_argument("client " + id + " has no lag for some stateful task");
    ++rank;
  }
  for (std::uint32_t i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i];
  listed_.resize(pending.size());
  std::vector<std::uint32_t> next(offsets_.begin(), offsets_.end() - 1);
  for (const auto& [i, l] : pending) listed_[next[i]++] = l;  // ranks ascending within a task
  by_lag_.resize(n);
  has_order_.assign(n, 0);
}

LagTables::LagTables(const ClientStates& clients, const CaughtUp& caught_up, const ByLag& by_lag)
    : clients_(&clients), build_orders_(false) {
  for (const auto& entry : clients) ids_.push_back(entry.first);
  unlisted_caught_.assign(ids_.size(), false);
  unlisted_lag_.assign(ids_.size(), kMaxLag);
  TaskSet named;
  for (const auto& entry : caught_up) named.insert(entry.first);
  for (const auto& entry : by_lag) named.insert(entry.first);
  tasks_ = TaskIndex(named);
  const std::uint32_t n = tasks_.size();
  has_caught_.assign(n, 0);
  counts_.assign(n, 0);
  offsets_.assign(n + 1, 0);
  by_lag_.resize(n);
  has_order_.assign(n, 0);
  std::vector<std::vector<Listed>> caught(n);
  for (const auto& [task, ids] : caught_up) {
    const std::uint32_t i = tasks_.find(task);
    has_caught_[i] = 1;
    counts_[i] = static_cast<int>(ids.size());
    for (const auto& id : ids) caught[i].push_back(Listed{client_rank(id), true, 0});  // ids sorted: ranks ascending
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    listed_.insert(listed_.end(), caught[i].begin(), caught[i].end());
    offsets_[i + 1] = static_cast<std::uint32_t>(listed_.size());
  }
  for (const auto& [task, ids] : by_lag) {
    const std::uint32_t i = tasks_.find(task);
    has_order_[i] = 1;
    for (const auto& id : ids) by_lag_[i].push_back(client_rank(id));
  }
}

std::uint32_t LagTables::rank(const ProcessId& client) const {
  return static_cast<std::uint32_t>(std::lower_bound(ids_.begin(), ids_.end(), client) - ids_.begin());
}

std::uint32_t LagTables::client_rank(const ProcessId& client) const {
  const std::uint32_t r = rank(client);
  if (r == ids_.size() || ids_[r] != client) throw std::invalid_argument(client + " is not a client");
  return r;
}

std::uint32_t LagTables::caught_index(const TaskId& task) const {
  if (last_index_ == TaskIndex::npos || !(last_task_ == task)) {
    last_index_ = tasks_.find(task);
    last_task_ = task;
  }
  if (last_index_ == TaskIndex::npos || !has_caught_[last_index_])
    throw std::out_of_range("not a stateful task: " + to_string(task));
  return last_index_;
}

const LagTables::Listed* LagTables::listed(std::uint32_t index, std::uint32_t rank) const {
  const auto first = listed_.begin() + offsets_[index], last = listed_.begin() + offsets_[index + 1];
  const auto at = std::lower_bound(first, last, rank, [](const Listed& l, std::uint32_t r) { return l.rank < r; });
  return at != last && at->rank == rank ? &*at : nullptr;
}

bool LagTables::caught_up(const TaskId& task, std::uint32_t rank) const {
  const std::uint32_t i = caught_index(task);
  if (rank >= ids_.size()) throw std::out_of_range("no client of rank " + std::to_string(rank));
  const Listed* l = listed(i, rank);
  return l != nullptr ? l->caught_up : unlisted_caught_[rank];
}

bool LagTables::caught_up(const TaskId& task, const ProcessId& client) const {
  caught_index(task);  // a task that is not stateful throws, client or not
  const std::uint32_t r = rank(client);
  return r < ids_.size() && ids_[r] == client && caught_up(task, r);  // not a client: not caught up
}

// Every client's lag for the task (listed, else unlisted), lowest first.
void LagTables::build_order(std::uint32_t index) const {
  std::vector<std::pair<std::int64_t, std::uint32_t>> lags;
  lags.reserve(ids_.size());
  for (std::uint32_t r = 0; r < ids_.size(); ++r) lags.emplace_back(unlisted_lag_[r], r);
  for (auto l = offsets_[index]; l < offsets_[index + 1]; ++l) lags[listed_[l].rank].first = listed_[l].lag;
  // Sentinel lags sort as the numbers they are: UNKNOWN_OFFSET_SUM (-3)
  // first, as in Kafka's comparingLong(lagFor); ties keep process id order.
  std::stable_sort(lags.begin(), lags.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto& order = by_lag_[index];
  order.reserve(lags.size());
  for (const auto& lag : lags) order.push_back(lag.second);
  has_order_[index] = 1;
}

const std::vector<std::uint32_t>& LagTables::by_lag(const TaskId& task) const {
  const std::uint32_t i = tasks_.find(task);
  if (i != TaskIndex::npos && has_order_[i]) return by_lag_[i];
  if (!build_orders_ || i == TaskIndex::npos || !has_caught_[i])
    throw std::out_of_range("no lag order for task " + to_string(task));
  build_order(i);
  return by_lag_[i];
}

const ProcessId& LagTables::most_caught_up(const TaskId& task) const {
  const auto& order = by_lag(task);
  if (order.empty()) throw std::out_of_range("no client lags on task " + to_string(task));
  return client(order.front());
}

// The lowest of the task's listed lags and of the unlisted lags of the
// clients that did not list it: the first client of the order's lag.
std::int64_t LagTables::lag_of_most_caught_up(const TaskId& task) const {
  if (!build_orders_) return clients_->at(most_caught_up(task)).lag_for(task);
  const std::uint32_t i = caught_index(task);
  std::optional<std::int64_t> lowest;
  for (auto l = offsets_[i]; l < offsets_[i + 1]; ++l) lowest = std::min(lowest.value_or(kMaxLag), listed_[l].lag);
  for (const std::uint32_t r : by_unlisted_lag_)
    if (listed(i, r) == nullptr) {
      lowest = std::min(lowest.value_or(kMaxLag), unlisted_lag_[r]);
      break;
    }
  if (!lowest) throw std::out_of_range("no client lags on task " + to_string(task));
  return *lowest;
}

int assign_active_task_movements(const LagTables& tables, ClientStates& clients, Warmups& warmups,
                                 std::int64_t& remaining_warmups) {
  ConstrainedPrioritySet by_load = caught_up_clients_by_load(tables, clients);
  MovementQueue movements{MovementOrder{}};
  std::uint32_t rank = 0;
  for (const auto& [client, state] : clients) {
    for (const auto& task : state.active())
      if (should_move(tables, task, rank, state)) movements.offer(movement(tables, task, client));
    by_load.offer(client);
    ++rank;
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
  std::uint32_t rank = 0;
  for (const auto& [client, state] : clients) {
    const auto w = warmups.find(client);
    for (const auto& task : state.standby()) {
      const bool is_warmup = w != warmups.end() && w->second.contains(task);  // placed on purpose: stays
      if (!is_warmup && should_move(tables, task, rank, state)) movements.offer(movement(tables, task, client));
    }
    by_load.offer(client);
    ++rank;
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
