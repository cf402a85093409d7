#include "protocols/streams/classic_leader.hpp"

#include "protocols/streams/classic_thread.hpp"
#include "protocols/streams/task_index.hpp"

#include <boost/container/flat_map.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <stdexcept>

namespace rsim::protocols::streams {

std::map<std::string, std::vector<TaskId>> assign_tasks_to_threads(const std::vector<TaskId>& tasks, bool stateful,
                                                                   const std::set<std::string>& consumers,
                                                                   const PreviousTasks& prev_tasks_by_lag,
                                                                   std::map<std::string, int>& thread_load) {
  std::map<std::string, std::vector<TaskId>> assignment;
  for (const auto& c : consumers) assignment[c];
  auto load = [&](const std::string& c) {
    const auto it = thread_load.find(c);
    return it == thread_load.end() ? 0 : it->second;
  };
  int total = static_cast<int>(tasks.size());
  for (const auto& [c, n] : thread_load) total += n;
  const int min_per_thread = consumers.empty() ? 0 : total / static_cast<int>(consumers.size());
  std::set<TaskId, ha::KafkaTaskOrder> unassigned(tasks.begin(), tasks.end());  // taken from the front
  std::deque<std::string> to_fill;
  // Tasks skipped in the first pass because their previous owner was full.
  std::map<TaskId, std::string, ha::KafkaTaskOrder> previous_owner;
  if (!unassigned.empty()) {
    // Each thread keeps its previous stateful tasks, up to the minimum share.
    for (const auto& c : consumers) {
      auto& mine = assignment[c];
      const int target = min_per_thread - load(c);
      if (stateful)
        for (const auto& task : prev_tasks_by_lag(c)) {
          if (!unassigned.contains(task)) continue;
          if (static_cast<int>(mine.size()) < target) {
            mine.push_back(task);
            unassigned.erase(task);
          } else {
            previous_owner[task] = c;
          }
        }
      if (static_cast<int>(mine.size()) < target) to_fill.push_back(c);
    }
    // The rest, lowest task first, round-robin over the threads below it.
    while (!to_fill.empty()) {
      if (unassigned.empty()) throw std::logic_error("ran out of unassigned tasks but some threads were not at capacity");
      const TaskId task = *unassigned.begin();
      unassigned.erase(unassigned.begin());
      const std::string c = to_fill.front();
      to_fill.pop_front();
      assignment[c].push_back(task);
      if (static_cast<int>(assignment[c].size()) + load(c) < min_per_thread) to_fill.push_back(c);
    }
    // Every thread is at the minimum or one above: what is left goes one
    // each to threads at the minimum, a skipped task to its previous owner
    // where it can.
    if (!unassigned.empty()) {
      for (const auto& c : consumers)
        if (static_cast<int>(assignment[c].size()) + load(c) == min_per_thread) to_fill.push_back(c);
      for (const auto& [task, c] : previous_owner) {
        const auto at = std::find(to_fill.begin(), to_fill.end(), c);
        if (at == to_fill.end() || !unassigned.contains(task)) continue;
        assignment[c].push_back(task);
        unassigned.erase(task);
        to_fill.erase(at);
      }
      for (const auto& task : unassigned) {
        if (to_fill.empty()) throw std::logic_error("more tasks left than threads at the minimum");
        assignment[to_fill.front()].push_back(task);
        to_fill.pop_front();
      }
    }
  }
  for (const auto& [c, list] : assignment) thread_load[c] = load(c) + static_cast<int>(list.size());
  return assignment;
}

namespace {

using classic::JoinedMember;
using classic::MemberAssignment;

// A value that is the same for a run of one key (a topic's partitions, a
// sub-topology's tasks), computed once per run: a lookup of the interned name
// per task was a twentieth of a 1,000-client rebalance.
template <class Key, class Value>
class PerRun {
 public:
  template <class Compute>
  const Value& operator()(const Key& key, const Compute& compute) {
    if (!known_ || !(key == key_)) {
      key_ = key;
      value_ = compute();
      known_ = true;
    }
    return value_;
  }

 private:
  bool known_ = false;
  Key key_{};
  Value value_{};
};

// A task from its resource, and back.
class TaskOf {
 public:
  TaskId operator()(const TopicPartition& tp) {
    return {subtopology_(tp.topic, [&tp] { return task_of(tp).subtopology; }), tp.partition};
  }

 private:
  PerRun<Topic, SubtopologyId> subtopology_;
};

class ResourceOf {
 public:
  TopicPartition operator()(const TaskId& t) { return {topic_(t.subtopology, [&t] { return task_resource(t).topic; }), t.partition}; }

 private:
  PerRun<SubtopologyId, Topic> topic_;
};

// A client's reported copies: records behind, or LATEST (contiguous, by task).
using Reported = boost::container::flat_map<TaskId, std::int64_t>;

// One client (a KafkaStreams process) as its threads' subscriptions tell it.
struct Client {
  std::set<std::string> consumers;  // member ids, sorted (Kafka's SortedSet)
  TaskSet prev_active, prev_standby;
  std::map<std::string, std::vector<TaskId>> owned_by;  // the stateful tasks a thread reported (its previous tasks)
  Reported reported;
};

struct Group {
  std::map<ha::ProcessId, Client> clients;
  // Per task of the topology, the thread that owns it (ownedPartitions), or
  // null: the member ids live in the JoinGroup's members, which outlive the
  // group.
  std::vector<const std::string*> owner;
};

class ClassicStreamsProtocol final : public classic::EmbeddedProtocol {
 public:
  ClassicStreamsProtocol(const Topology& topology, ha::AssignmentConfigs configs, bool cooperative,
                         std::int64_t changelog_records)
      : topology_(topology), configs_(configs), cooperative_(cooperative), changelog_records_(changelog_records) {}

  std::string_view name() const override { return cooperative_ ? "cooperative" : "eager"; }

  // Eager: onPartitionsRevoked suspends every active task before the
  // rejoin; cooperative: nothing (a Streams app's subscription never changes).
  std::vector<TopicPartition> revoke_before_join(const std::vector<TopicPartition>& owned,
                                                 const TopicNames&) const override {
    return cooperative_ ? std::vector<TopicPartition>{} : owned;
  }

  classic::AssignmentOutcome on_assignment(const std::vector<TopicPartition>& owned,
                                           const MemberAssignment& assignment) const override {
    classic::AssignmentOutcome o = difference(owned, assignment);
    o.rejoin = cooperative_ && !o.revoke.empty();
    return o;
  }

  std::vector<std::pair<std::string, MemberAssignment>> assign(const Assignor&, const classic::Metadata& metadata,
                                                               const std::vector<JoinedMember>& members,
                                                               classic::LeaderState*,
                                                               const classic::LeaderView& view) const override;

 private:
  Group group_of(const std::vector<JoinedMember>& members, const TaskIndex& all, const TaskIndex& stateful) const;
  ha::TaskLags lags_of(const Client& c, const TaskIndex& stateful) const;
  std::map<std::string, std::vector<TaskId>> previous_by_lag(const Client& c) const;
  std::vector<std::pair<std::string, MemberAssignment>> per_thread(const Group& group,
                                                                   const ha::Assignment& result, const TaskIndex& all,
                                                                   const TaskIndex& stateful,
                                                                   const std::string& probing_client) const;

  const Topology& topology_;
  ha::AssignmentConfigs configs_;
  bool cooperative_;
  std::int64_t changelog_records_;  // a stateful task's changelog, in records: a client without its state lags by this
};

// ClientState.addPreviousTasksAndOffsetSums: the client's sums merged (a
// running active's LATEST_OFFSET wins, else the least behind: the order the
// threads come in does not matter), the thread's previous tasks.
Reported merged(std::vector<std::pair<TaskId, std::int64_t>> sums) {
  std::stable_sort(sums.begin(), sums.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Reported::sequence_type out;
  for (const auto& [t, lag] : sums) {
    if (out.empty() || !(out.back().first == t)) {
      out.emplace_back(t, lag);
      continue;
    }
    std::int64_t& kept = out.back().second;
    if (kept != ha::kLatestOffset) kept = lag == ha::kLatestOffset ? lag : std::min(kept, lag);
  }
  Reported r;
  r.adopt_sequence(boost::container::ordered_unique_range, std::move(out));
  return r;
}

Group ClassicStreamsProtocol::group_of(const std::vector<JoinedMember>& members, const TaskIndex& all,
                                       const TaskIndex& stateful) const {
  Group g;
  auto& clients = g.clients;
  g.owner.assign(all.size(), nullptr);
  std::map<ha::ProcessId, std::vector<std::pair<TaskId, std::int64_t>>> sums;
  TaskOf task;
  for (const auto& m : members) {
    const auto& info = m.subscription.streams;
    const ha::ProcessId& pid = info ? info->process_id : m.member_id;
    Client& c = clients[pid];
    c.consumers.insert(m.member_id);
    auto& mine = c.owned_by[m.member_id];
    for (const auto& tp : m.subscription.owned) {
      const TaskId t = task(tp);
      c.prev_active.insert(t);
      if (const auto i = all.find(t); i != TaskIndex::npos) g.owner[i] = &m.member_id;  // the later claim wins
    }
    if (!info) continue;
    auto& client_sums = sums[pid];
    for (const auto& [tp, lag] : info->task_lags) {
      const TaskId t = task(tp);
      if (stateful.find(t) != TaskIndex::npos) mine.push_back(t);
      client_sums.emplace_back(t, lag);
    }
  }
  for (auto& [pid, client_sums] : sums) clients.at(pid).reported = merged(std::move(client_sums));
  // ClientState.initializeRemainingPrevTasksFromTaskOffsetSums: a reported
  // task not owned active was a standby (any copy of its state counts).
  for (auto& [pid, c] : clients)
    for (const auto& [t, lag] : c.reported)
      if (!c.prev_active.contains(t)) (lag == ha::kLatestOffset ? c.prev_active : c.prev_standby).insert(t);
  return g;
}

// ClientState.computeTaskLags: the stateful tasks the client reported, in
// key order (adopted as sorted: an insertion compares keys); a task it did
// not report lags by its whole changelog, the input's unlisted lag.
ha::TaskLags ClassicStreamsProtocol::lags_of(const Client& c, const TaskIndex& stateful) const {
  ha::TaskLags::sequence_type lags;
  for (const auto& [t, lag] : c.reported)
    if (stateful.find(t) != TaskIndex::npos) lags.emplace_back(t, lag);
  ha::TaskLags out;
  out.adopt_sequence(boost::container::ordered_unique_range, std::move(lags));
  return out;
}

std::vector<std::pair<std::string, MemberAssignment>> ClassicStreamsProtocol::assign(
    const Assignor&, const classic::Metadata& metadata, const std::vector<JoinedMember>& members, classic::LeaderState*,
    const classic::LeaderView& view) const {
  const ConfiguredTopology configured = configure(topology_, TopicMetadata(metadata.begin(), metadata.end()));
  TaskSet all, stateful;
  for (const auto& st : configured.subtopologies)
    for (int p = 0; p < st.tasks; ++p) {
      all.insert({st.id, p});
      if (st.stateful) stateful.insert({st.id, p});
    }
  const TaskIndex all_index(all), stateful_index(stateful);
  const Group group = group_of(members, all_index, stateful_index);
  std::map<ha::ProcessId, ha::ClientInput> inputs;
  for (const auto& [pid, c] : group.clients) {
    ha::ClientInput& in = inputs.emplace_hint(inputs.end(), pid, ha::ClientInput{})->second;
    in.capacity = static_cast<int>(c.consumers.size());
    in.prev_active = c.prev_active;
    in.prev_standby = c.prev_standby;
    in.lags = lags_of(c, stateful_index);
    in.unlisted_lag = changelog_records_;
  }
  const ha::Assignment result = ha::assign(std::move(inputs), all, stateful, configs_);
  // The leader's own client triggers the probing rebalance.
  std::string probing_client;
  if (result.probing_rebalance_needed)
    for (const auto& m : members)
      if (m.member_id == view.leader && m.subscription.streams) probing_client = m.subscription.streams->process_id;
  return per_thread(group, result, all_index, stateful_index, probing_client);
}

std::vector<TopicPartition> resources(const std::vector<TaskId>& tasks) {
  std::vector<TopicPartition> out;
  out.reserve(tasks.size());
  ResourceOf resource;
  for (const auto& t : tasks) out.push_back(resource(t));
  std::sort(out.begin(), out.end());
  return out;
}

// Each thread's previous stateful tasks, least behind first, then in task
// order (the thread's sorted set, ordered by the process's lags).
std::map<std::string, std::vector<TaskId>> ClassicStreamsProtocol::previous_by_lag(const Client& c) const {
  std::map<std::string, std::vector<TaskId>> out;
  for (const auto& [consumer, owned] : c.owned_by) {
    std::vector<TaskId> prev = owned;
    std::sort(prev.begin(), prev.end());
    prev.erase(std::unique(prev.begin(), prev.end()), prev.end());
    std::vector<std::pair<std::int64_t, TaskId>> by_lag;
    by_lag.reserve(prev.size());
    for (const auto& t : prev) {
      const auto r = c.reported.find(t);
      by_lag.emplace_back(r == c.reported.end() ? changelog_records_ : r->second, t);
    }
    std::stable_sort(by_lag.begin(), by_lag.end(), [](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      return ha::KafkaTaskOrder::compare(a.second, b.second) < 0;
    });
    auto& mine = out[consumer];
    mine.reserve(by_lag.size());
    for (const auto& entry : by_lag) mine.push_back(entry.second);
  }
  return out;
}

// Within each client, its tasks over its threads; then each thread's
// assignment (addClientAssignments), withholding under cooperative an active
// task another thread still owns.
std::vector<std::pair<std::string, MemberAssignment>> ClassicStreamsProtocol::per_thread(
    const Group& group, const ha::Assignment& result, const TaskIndex& all, const TaskIndex& stateful,
    const std::string& probing_client) const {
  std::vector<std::pair<std::string, MemberAssignment>> out;
  for (const auto& entry : group.clients) {
    const ha::ProcessId& pid = entry.first;
    const Client& c = entry.second;  // a named reference: lambdas below capture it (clang 14: not a binding)
    const TasksTuple& tuple = result.clients.at(pid);
    std::vector<TaskId> stateful_active, stateless_active, standby;
    for (const auto& t : tuple.active) (stateful.find(t) != TaskIndex::npos ? stateful_active : stateless_active).push_back(t);
    standby.assign(tuple.standby.begin(), tuple.standby.end());
    standby.insert(standby.end(), tuple.warmup.begin(), tuple.warmup.end());
    const auto previous = previous_by_lag(c);  // read by the actives' and the standbys' passes
    const auto by_lag = [&previous](const std::string& consumer) {
      const auto it = previous.find(consumer);
      return it == previous.end() ? std::vector<TaskId>{} : it->second;
    };
    std::map<std::string, int> load;
    auto actives = assign_tasks_to_threads(stateful_active, true, c.consumers, by_lag, load);
    const auto standbys = assign_tasks_to_threads(standby, true, c.consumers, by_lag, load);
    const auto stateless = assign_tasks_to_threads(stateless_active, false, c.consumers, by_lag, load);
    bool encode_probing = pid == probing_client;
    for (const auto& consumer : c.consumers) {
      std::vector<TaskId> mine = actives.at(consumer);
      const auto& more = stateless.at(consumer);
      mine.insert(mine.end(), more.begin(), more.end());
      std::vector<TaskId> assigned, removed, standby_tasks = standbys.at(consumer);
      for (const auto& t : mine) {
        const auto i = all.find(t);
        const std::string* owner = i == TaskIndex::npos ? nullptr : group.owner[i];
        (owner != nullptr && *owner != consumer ? removed : assigned).push_back(t);
      }
      // A task withheld but whose state the thread's process keeps as a
      // standby stays a standby until it can be handed over.
      for (const auto& t : removed)
        if (c.prev_standby.contains(t) && stateful.find(t) != TaskIndex::npos) standby_tasks.push_back(t);
      MemberAssignment a;
      a.streams = true;
      a.partitions = resources(assigned);
      a.standby = resources(standby_tasks);
      if (!removed.empty()) {
        a.scheduled_rebalance = Duration{0};
        encode_probing = false;
      } else if (encode_probing) {
        a.scheduled_rebalance = std::chrono::milliseconds(configs_.probing_rebalance_interval_ms);
        encode_probing = false;
      }
      out.emplace_back(consumer, std::move(a));
    }
  }
  return out;
}

}  // namespace

std::unique_ptr<classic::EmbeddedProtocol> make_classic_streams_protocol(const Topology& topology,
                                                                         const ha::AssignmentConfigs& configs,
                                                                         bool cooperative, std::int64_t changelog_records) {
  return std::make_unique<ClassicStreamsProtocol>(topology, configs, cooperative, changelog_records);
}

}  // namespace rsim::protocols::streams
