#include "protocols/assignors/connect.hpp"

#include "protocols/assignors/java_order.hpp"

#include <algorithm>
#include <cmath>

namespace rsim::protocols::connect {

namespace {

// Sorted vectors, not trees: a round builds sets of every connector and task
// the cluster runs (100,000 and more), so they are sorted once, not grown.
using Set = boost::container::flat_set<TopicPartition>;

Set to_set(const std::vector<TopicPartition>& v) { return Set(v.begin(), v.end()); }

// The items listed more than once across `lists`, sorted.
Set listed_twice(std::initializer_list<const std::vector<TopicPartition>*> lists) {
  std::vector<TopicPartition> all;
  for (const auto* l : lists) all.insert(all.end(), l->begin(), l->end());
  std::sort(all.begin(), all.end());
  std::vector<TopicPartition> twice;
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i] == all[i - 1] && (twice.empty() || !(twice.back() == all[i]))) twice.push_back(all[i]);
  return Set(boost::container::ordered_unique_range, twice.begin(), twice.end());
}

// base - each of `minus`, in base's (sorted) order.
std::vector<TopicPartition> minus(const Set& base, std::initializer_list<const Set*> subtract) {
  std::vector<TopicPartition> out;
  for (const auto& x : base)
    if (std::none_of(subtract.begin(), subtract.end(), [&](const Set* s) { return s->count(x) != 0; })) out.push_back(x);
  return out;
}

void erase_all(std::vector<TopicPartition>& v, const Set& s) {
  v.erase(std::remove_if(v.begin(), v.end(), [&](const TopicPartition& x) { return s.count(x) != 0; }), v.end());
}

void remove_work(std::vector<WorkerLoad>& loads, const std::map<std::string, Work>& remove) {
  for (auto& l : loads) {
    auto it = remove.find(l.worker);
    if (it == remove.end()) continue;
    erase_all(l.work.connectors, to_set(it->second.connectors));
    erase_all(l.work.tasks, to_set(it->second.tasks));
  }
}

void append(Work& to, const Work& from) {
  to.connectors.insert(to.connectors.end(), from.connectors.begin(), from.connectors.end());
  to.tasks.insert(to.tasks.end(), from.tasks.begin(), from.tasks.end());
}

// Items of the worker's load that are in `s`, in the load's order.
std::vector<TopicPartition> intersection(const std::vector<TopicPartition>& load, const Set& s) {
  std::vector<TopicPartition> out;
  for (const auto& x : load)
    if (s.count(x) != 0) out.push_back(x);
  return out;
}

// Names of `names` (in insertion order) in the order a java.util.HashSet of
// them iterates.
std::vector<std::string> hash_set_order(const std::vector<std::string>& names) {
  std::vector<std::int32_t> hashes;
  for (const auto& n : names) hashes.push_back(java::string_hash(n));
  std::vector<std::string> out;
  for (auto i : java::iteration_order(hashes, java::capacity_for(names.size()))) out.push_back(names[i]);
  return out;
}

// loadBalancingRevocations for one resource type: the first `extra` workers
// above the minimum (in list order) may keep min + 1; every other is cut to
// the minimum. The revoked items are the first of the worker's load.
std::map<std::string, std::vector<TopicPartition>> balancing_revocations(
    std::size_t total, const std::vector<WorkerLoad>& workers, std::vector<TopicPartition> Work::*type) {
  std::map<std::string, std::vector<TopicPartition>> result;
  const std::size_t n = workers.size();
  const std::size_t min = total / n;
  const std::size_t extra = total % n;
  std::size_t at_min = 0, at_min_plus_one = 0;
  for (const auto& w : workers) {
    const auto size = (w.work.*type).size();
    at_min += size == min;
    at_min_plus_one += size == min + 1;
  }
  if (at_min_plus_one == extra && at_min + at_min_plus_one == n) return result;
  std::size_t extras_given = 0;
  for (const auto& w : workers) {
    const auto& load = w.work.*type;
    if (load.size() <= min) continue;
    std::size_t keep = min;
    if (extras_given < extra) {
      ++extras_given;
      if (load.size() == min + 1) continue;
      keep = min + 1;
    }
    result[w.worker].assign(load.begin(), load.begin() + static_cast<std::ptrdiff_t>(load.size() - keep));
  }
  return result;
}

// Deals `items` round robin over the workers whose load of `type` equals the
// first's, growing the tier as it fills (assignConnectors / assignTasks).
void deal(std::vector<WorkerLoad>& loads, const std::vector<TopicPartition>& items,
          std::vector<TopicPartition> Work::*type) {
  std::sort(loads.begin(), loads.end(), [&](const WorkerLoad& a, const WorkerLoad& b) {
    const auto sa = (a.work.*type).size(), sb = (b.work.*type).size();
    return sa != sb ? sa < sb : a.worker < b.worker;
  });
  std::size_t next = 0;
  while (next < items.size()) {
    const std::size_t first_load = (loads[0].work.*type).size();
    std::size_t up_to = 0;
    while (up_to < loads.size() && (loads[up_to].work.*type).size() <= first_load) ++up_to;
    for (std::size_t i = 0; i < up_to && next < items.size(); ++i) (loads[i].work.*type).push_back(items[next++]);
  }
}

}  // namespace

std::int64_t exponential_backoff(std::int64_t initial, int multiplier, std::int64_t max, std::int64_t attempts) {
  initial = std::min(max, initial);
  const double exp_max =
      max > initial ? std::log(static_cast<double>(max) / static_cast<double>(std::max<std::int64_t>(initial, 1))) /
                          std::log(static_cast<double>(multiplier))
                    : 0.0;
  if (exp_max == 0.0) return initial;
  const double exp = std::min(static_cast<double>(attempts), exp_max);
  const auto value = static_cast<std::int64_t>(static_cast<double>(initial) * std::pow(multiplier, exp));
  return value > max ? max : value;
}

IncrementalCooperativeAssignor::IncrementalCooperativeAssignor(std::int64_t max_delay_ms, int previous_generation)
    : max_delay_(max_delay_ms), previous_generation_(previous_generation) {}

void IncrementalCooperativeAssignor::assign_connectors(std::vector<WorkerLoad>& loads,
                                                       const std::vector<TopicPartition>& connectors) {
  deal(loads, connectors, &Work::connectors);
}

void IncrementalCooperativeAssignor::assign_tasks(std::vector<WorkerLoad>& loads, const std::vector<TopicPartition>& tasks) {
  deal(loads, tasks, &Work::tasks);
}

void IncrementalCooperativeAssignor::remember(const std::vector<WorkerLoad>& loads, int generation) {
  previous_members_.clear();
  std::vector<TopicPartition> connectors, tasks;
  for (const auto& l : loads) {
    connectors.insert(connectors.end(), l.work.connectors.begin(), l.work.connectors.end());
    tasks.insert(tasks.end(), l.work.tasks.begin(), l.work.tasks.end());
    previous_members_.insert(l.worker);
  }
  previous_connectors_ = to_set(connectors);
  previous_tasks_ = to_set(tasks);
  previous_generation_ = generation;
}

void IncrementalCooperativeAssignor::reset_delay() {
  candidates_.clear();
  scheduled_rebalance_ = 0;
  delay_ = 0;
}

void IncrementalCooperativeAssignor::handle_lost(const Work& lost, Work& to_reassign, std::vector<WorkerLoad>& loads,
                                                 std::int64_t now) {
  if (lost.empty() && !revoked_in_previous_) {
    reset_delay();
    return;
  }
  std::set<std::string> active;
  for (const auto& l : loads) active.insert(l.worker);
  if (scheduled_rebalance_ <= 0 && std::includes(active.begin(), active.end(), previous_members_.begin(), previous_members_.end())) {
    // Nobody left: the leader's last assignment did not reach some workers.
    append(to_reassign, lost);
    return;
  }
  if (max_delay_ == 0) {
    append(to_reassign, lost);
    return;
  }
  if (scheduled_rebalance_ > 0 && now >= scheduled_rebalance_) {
    // The delay expired: lost work goes to the workers that came back empty
    // during it, if any are still here, else to everyone.
    std::vector<WorkerLoad*> candidates;
    for (const auto& name : candidates_)
      for (auto& l : loads)
        if (l.worker == name) candidates.push_back(&l);
    if (!candidates.empty()) {
      std::size_t i = 0;
      for (const auto& c : lost.connectors) candidates[i++ % candidates.size()]->work.connectors.push_back(c);
      i = 0;
      for (const auto& t : lost.tasks) candidates[i++ % candidates.size()]->work.tasks.push_back(t);
    } else {
      append(to_reassign, lost);
    }
    reset_delay();
    revoked_in_previous_ = false;
    return;
  }
  std::vector<std::string> empty_workers;
  for (const auto& l : loads)
    if (l.work.empty()) empty_workers.push_back(l.worker);
  for (const auto& w : hash_set_order(empty_workers))
    if (std::find(candidates_.begin(), candidates_.end(), w) == candidates_.end()) candidates_.push_back(w);
  if (now < scheduled_rebalance_) {
    delay_ = static_cast<int>(std::min(scheduled_rebalance_ - now, max_delay_));
  } else {
    delay_ = static_cast<int>(max_delay_);
  }
  scheduled_rebalance_ = now + delay_;
}

ClusterAssignment IncrementalCooperativeAssignor::assign(const Work& configured, int last_completed_generation,
                                                         int generation, const std::vector<WorkerLoad>& given,
                                                         std::int64_t now) {
  // Kafka iterates the members as a HashMap keyed by member id.
  std::vector<WorkerLoad> members;
  {
    std::vector<std::string> names;
    for (const auto& m : given) names.push_back(m.worker);
    for (const auto& name : hash_set_order(names))
      for (const auto& m : given)
        if (m.worker == name) members.push_back(m);
  }
  if (previous_generation_ != last_completed_generation) {
    // The last assignment this leader computed never completed.
    previous_connectors_.clear();
    previous_tasks_.clear();
  }
  const Set configured_connectors = to_set(configured.connectors), configured_tasks = to_set(configured.tasks);
  std::vector<TopicPartition> running_connectors, running_tasks;
  for (const auto& m : members) {
    running_connectors.insert(running_connectors.end(), m.work.connectors.begin(), m.work.connectors.end());
    running_tasks.insert(running_tasks.end(), m.work.tasks.begin(), m.work.tasks.end());
  }
  const Set active_connectors = to_set(running_connectors), active_tasks = to_set(running_tasks);
  if (!revoked_connectors_.empty() || !revoked_tasks_.empty()) {
    // A revocation that did not take effect: start again from what runs.
    const bool still_running =
        std::any_of(revoked_connectors_.begin(), revoked_connectors_.end(), [&](const auto& c) { return active_connectors.count(c) != 0; }) ||
        std::any_of(revoked_tasks_.begin(), revoked_tasks_.end(), [&](const auto& t) { return active_tasks.count(t) != 0; });
    if (still_running) {
      previous_connectors_ = active_connectors;
      previous_tasks_ = active_tasks;
    }
    revoked_connectors_.clear();
    revoked_tasks_.clear();
  }
  const Set deleted_connectors = to_set(minus(previous_connectors_, {&configured_connectors}));
  const Set deleted_tasks = to_set(minus(previous_tasks_, {&configured_tasks}));
  const Set duplicated = listed_twice({&running_connectors, &running_tasks});
  const Work lost{minus(previous_connectors_, {&active_connectors, &deleted_connectors}),
                  minus(previous_tasks_, {&active_tasks, &deleted_tasks})};
  const Work created{minus(configured_connectors, {&previous_connectors_, &active_connectors}),
                     minus(configured_tasks, {&previous_tasks_, &active_tasks})};

  // Deleted and duplicated work is revoked wherever it runs.
  std::map<std::string, Work> to_revoke;
  for (const auto& m : members) {
    Work& r = to_revoke[m.worker];
    append(r, Work{intersection(m.work.connectors, deleted_connectors), intersection(m.work.tasks, deleted_tasks)});
    append(r, Work{intersection(m.work.connectors, duplicated), intersection(m.work.tasks, duplicated)});
  }
  std::vector<WorkerLoad> next = members;
  remove_work(next, to_revoke);

  Work lost_to_reassign;
  handle_lost(lost, lost_to_reassign, next, now);

  if (delay_ == 0) {
    std::map<std::string, Work> balancing;
    const bool all_empty = std::all_of(next.begin(), next.end(), [](const WorkerLoad& l) { return l.work.empty(); });
    const bool nothing_configured = configured_connectors.empty() && configured_tasks.empty();
    if (!all_empty && !nothing_configured) {
      for (auto& [w, items] : balancing_revocations(configured_connectors.size(), next, &Work::connectors))
        balancing[w].connectors = std::move(items);
      for (auto& [w, items] : balancing_revocations(configured_tasks.size(), next, &Work::tasks))
        balancing[w].tasks = std::move(items);
    }
    auto apply = [&] {
      for (const auto& [w, work] : balancing) append(to_revoke[w], work);
      remove_work(next, balancing);
    };
    if (revoked_in_previous_ && !balancing.empty()) {
      // Successive revoking rebalances back off.
      ++successive_revoking_rounds_;
      delay_ = static_cast<int>(exponential_backoff(max_delay_ == 0 ? 0 : 1, 40, max_delay_, successive_revoking_rounds_));
      if (delay_ != 0) {
        scheduled_rebalance_ = now + delay_;
      } else {
        apply();
      }
    } else if (!balancing.empty()) {
      apply();
      revoked_in_previous_ = true;
    } else if (revoked_in_previous_) {
      revoked_in_previous_ = false;
      successive_revoking_rounds_ = 0;
    }
  } else {
    revoked_in_previous_ = false;
  }

  Work to_assign = created;
  append(to_assign, lost_to_reassign);
  assign_connectors(next, to_assign.connectors);
  assign_tasks(next, to_assign.tasks);

  ClusterAssignment out;
  std::map<std::string, const Work*> current;
  for (const auto& m : members) current[m.worker] = &m.work;
  std::vector<TopicPartition> kept_connectors, kept_tasks;
  for (const auto& l : next) {
    const Work& revoked = to_revoke[l.worker];
    const Set revoked_set = [&] {
      Set s = to_set(revoked.connectors);
      s.insert(revoked.tasks.begin(), revoked.tasks.end());
      return s;
    }();
    // Newly assigned: what the worker runs next and did not run.
    const Work& was = *current.at(l.worker);
    Set had = to_set(was.connectors);
    had.insert(was.tasks.begin(), was.tasks.end());
    Work added, all;
    for (const auto& c : l.work.connectors) {
      if (had.count(c) == 0) added.connectors.push_back(c);
      if (revoked_set.count(c) == 0) all.connectors.push_back(c);
    }
    for (const auto& t : l.work.tasks) {
      if (had.count(t) == 0) added.tasks.push_back(t);
      if (revoked_set.count(t) == 0) all.tasks.push_back(t);
    }
    kept_connectors.insert(kept_connectors.end(), all.connectors.begin(), all.connectors.end());
    kept_tasks.insert(kept_tasks.end(), all.tasks.begin(), all.tasks.end());
    revoked_connectors_.insert(revoked.connectors.begin(), revoked.connectors.end());
    revoked_tasks_.insert(revoked.tasks.begin(), revoked.tasks.end());
    out.assigned[l.worker] = std::move(added);
    out.revoked[l.worker] = revoked;
    out.all[l.worker] = std::move(all);
  }
  kept_connectors.insert(kept_connectors.end(), lost.connectors.begin(), lost.connectors.end());
  kept_tasks.insert(kept_tasks.end(), lost.tasks.begin(), lost.tasks.end());
  previous_connectors_ = to_set(kept_connectors);
  previous_tasks_ = to_set(kept_tasks);
  previous_generation_ = generation;
  previous_members_.clear();
  for (const auto& m : members) previous_members_.insert(m.worker);
  return out;
}

Work split_work(const std::vector<TopicPartition>& resources) {
  Work w;
  for (const auto& r : resources) (is_connector_instance(r) ? w.connectors : w.tasks).push_back(r);
  return w;
}

Work configured_work(const GroupSnapshot& group) {
  std::set<std::string> subscribed;
  for (const auto& m : group.members) subscribed.insert(m.topics.begin(), m.topics.end());
  std::vector<TopicPartition> all;
  for (const auto& [topic, count] : group.topics)
    if (subscribed.count(topic) != 0)
      for (int p = 0; p < count; ++p) all.push_back(TopicPartition{topic, p});
  return split_work(all);
}

std::vector<WorkerLoad> worker_loads(const GroupSnapshot& group) {
  std::vector<WorkerLoad> out;
  for (const auto& m : group.members) out.push_back(WorkerLoad{m.member_id, split_work(m.owned)});
  return out;
}

GroupAssignment ConnectAssignor::assign(const GroupSnapshot& group) const {
  IncrementalCooperativeAssignor fresh(max_delay_);
  const ClusterAssignment r = fresh.assign(configured_work(group), -1, 0, worker_loads(group), 0);
  GroupAssignment out;
  for (const auto& m : group.members) {
    auto& list = out[m.member_id];
    const Work& w = r.all.at(m.member_id);
    list = w.connectors;
    list.insert(list.end(), w.tasks.begin(), w.tasks.end());
    std::sort(list.begin(), list.end());
  }
  return out;
}

}  // namespace rsim::protocols::connect
