#include "protocols/streams/classic_leader.hpp"

#include "protocols/streams/classic_thread.hpp"

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
  ha::OrderedTasks unassigned(tasks.begin(), tasks.end());
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

// One client (a KafkaStreams process) as its threads' subscriptions tell it.
struct Client {
  std::set<std::string> consumers;  // member ids, sorted (Kafka's SortedSet)
  TaskSet prev_active, prev_standby;
  std::map<std::string, std::vector<TaskId>> owned_by;  // the stateful tasks a thread reported (its previous tasks)
  std::map<TaskId, std::int64_t> reported;             // the process's copies: records behind, or LATEST
};

struct Group {
  std::map<ha::ProcessId, Client> clients;
  std::map<TaskId, std::string> owner;  // an active task -> the thread that owns it (ownedPartitions)
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
  Group group_of(const std::vector<JoinedMember>& members, const TaskSet& stateful) const;
  ha::TaskLags lags_of(const Client& c, const TaskSet& stateful) const;
  std::vector<std::pair<std::string, MemberAssignment>> per_thread(const Group& group,
                                                                   const ha::Assignment& result, const TaskSet& stateful,
                                                                   const std::string& probing_client) const;

  const Topology& topology_;
  ha::AssignmentConfigs configs_;
  bool cooperative_;
  std::int64_t changelog_records_;  // a stateful task's changelog, in records: a client without its state lags by this
};

Group ClassicStreamsProtocol::group_of(const std::vector<JoinedMember>& members, const TaskSet& stateful) const {
  Group g;
  auto& clients = g.clients;
  for (const auto& m : members) {
    const auto& info = m.subscription.streams;
    Client& c = clients[info ? info->process_id : m.member_id];
    c.consumers.insert(m.member_id);
    auto& mine = c.owned_by[m.member_id];
    for (const auto& tp : m.subscription.owned) {
      c.prev_active.insert(task_of(tp));
      g.owner[task_of(tp)] = m.member_id;
    }
    if (!info) continue;
    // ClientState.addPreviousTasksAndOffsetSums: the client's sums merged
    // (a running active's LATEST_OFFSET wins), the thread's previous tasks.
    for (const auto& [tp, lag] : info->task_lags) {
      const TaskId t = task_of(tp);
      if (stateful.contains(t)) mine.push_back(t);
      auto [it, fresh] = c.reported.emplace(t, lag);
      if (!fresh && it->second != ha::kLatestOffset) it->second = lag == ha::kLatestOffset ? lag : std::min(it->second, lag);
    }
  }
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
ha::TaskLags ClassicStreamsProtocol::lags_of(const Client& c, const TaskSet& stateful) const {
  ha::TaskLags::sequence_type lags;
  for (const auto& [t, lag] : c.reported)
    if (stateful.contains(t)) lags.emplace_back(t, lag);
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
  const Group group = group_of(members, stateful);
  std::map<ha::ProcessId, ha::ClientInput> inputs;
  for (const auto& [pid, c] : group.clients) {
    ha::ClientInput& in = inputs[pid];
    in.capacity = static_cast<int>(c.consumers.size());
    in.prev_active = c.prev_active;
    in.prev_standby = c.prev_standby;
    in.lags = lags_of(c, stateful);
    in.unlisted_lag = changelog_records_;
  }
  const ha::Assignment result = ha::assign(std::move(inputs), all, stateful, configs_);
  // The leader's own client triggers the probing rebalance.
  std::string probing_client;
  if (result.probing_rebalance_needed)
    for (const auto& m : members)
      if (m.member_id == view.leader && m.subscription.streams) probing_client = m.subscription.streams->process_id;
  return per_thread(group, result, stateful, probing_client);
}

std::vector<TopicPartition> resources(const std::vector<TaskId>& tasks) {
  std::vector<TopicPartition> out;
  out.reserve(tasks.size());
  for (const auto& t : tasks) out.push_back(task_resource(t));
  std::sort(out.begin(), out.end());
  return out;
}

// Within each client, its tasks over its threads; then each thread's
// assignment (addClientAssignments), withholding under cooperative an active
// task another thread still owns.
std::vector<std::pair<std::string, MemberAssignment>> ClassicStreamsProtocol::per_thread(
    const Group& group, const ha::Assignment& result, const TaskSet& stateful, const std::string& probing_client) const {
  std::vector<std::pair<std::string, MemberAssignment>> out;
  for (const auto& entry : group.clients) {
    const ha::ProcessId& pid = entry.first;
    const Client& c = entry.second;  // a named reference: lambdas below capture it (clang 14: not a binding)
    const TasksTuple& tuple = result.clients.at(pid);
    std::vector<TaskId> stateful_active, stateless_active, standby;
    for (const auto& t : tuple.active) (stateful.contains(t) ? stateful_active : stateless_active).push_back(t);
    standby.assign(tuple.standby.begin(), tuple.standby.end());
    standby.insert(standby.end(), tuple.warmup.begin(), tuple.warmup.end());
    const auto by_lag = [&](const std::string& consumer) {
      std::vector<TaskId> prev;
      if (const auto it = c.owned_by.find(consumer); it != c.owned_by.end()) prev = it->second;
      std::sort(prev.begin(), prev.end());
      prev.erase(std::unique(prev.begin(), prev.end()), prev.end());
      const auto lag = [&](const TaskId& t) {
        const auto r = c.reported.find(t);
        return r == c.reported.end() ? changelog_records_ : r->second;
      };
      std::stable_sort(prev.begin(), prev.end(), [&](const TaskId& a, const TaskId& b) {
        if (lag(a) != lag(b)) return lag(a) < lag(b);
        return ha::KafkaTaskOrder::compare(a, b) < 0;
      });
      return prev;
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
        const auto it = group.owner.find(t);
        (it != group.owner.end() && it->second != consumer ? removed : assigned).push_back(t);
      }
      // A task withheld but whose state the thread's process keeps as a
      // standby stays a standby until it can be handed over.
      for (const auto& t : removed)
        if (c.prev_standby.contains(t) && stateful.contains(t)) standby_tasks.push_back(t);
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
