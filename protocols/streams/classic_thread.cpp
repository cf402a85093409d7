#include "protocols/streams/classic_thread.hpp"

#include "protocols/streams/ha_client_state.hpp"

#include <algorithm>

namespace rsim::protocols::streams {

TopicPartition task_resource(const TaskId& t) { return {Topic::subtopology(t.subtopology.str()), t.partition}; }

TaskId task_of(const TopicPartition& tp) {
  const std::string& n = tp.topic.name();
  return {n.substr(0, n.size() - 1), tp.partition};
}

ClassicThread::ClassicThread(Kernel& kernel, Trace& trace, LocalState& state, std::string member, std::string process,
                             Duration assign_cost, std::uint64_t record_bytes)
    : kernel_(kernel),
      trace_(trace),
      state_(state),
      member_(std::move(member)),
      process_(std::move(process)),
      assign_cost_(assign_cost),
      record_bytes_(std::max<std::uint64_t>(record_bytes, 1)) {}

std::int64_t ClassicThread::records_behind(const TaskId& t) const { return records(state_.lag(process_, t, kernel_.now())); }

std::int64_t ClassicThread::records(std::uint64_t bytes) const {
  return static_cast<std::int64_t>((bytes + record_bytes_ - 1) / record_bytes_);
}

// TaskManager.getTaskOffsetSums: the thread's tasks and the task directories
// it holds the lock of; a running active task (restored) reports
// LATEST_OFFSET, every other copy its changelog position. The thread that
// closed a task last keeps its directory (Kafka: a suspended task under
// eager; a closed one is locked by the next thread to look).
// Later entries for a task win (an owned task's LATEST_OFFSET over its
// copy's lag): gathered in a list, sorted once.
classic::StreamsSubscription ClassicThread::describe(const std::vector<TopicPartition>& owned) const {
  std::vector<std::pair<TopicPartition, std::int64_t>> lags;
  for (const auto& t : standby_) lags.emplace_back(task_resource(t), records_behind(t));
  const Time now = kernel_.now();
  for (const auto& [t, bytes] : state_.released_copies(process_, member_, now))
    lags.emplace_back(task_resource(t), records(bytes));
  for (const auto& tp : owned) {
    const TaskId t = task_of(tp);
    const auto it = caught_up_at_.find(t);
    if (!state_.stateful(t)) continue;
    lags.emplace_back(tp, it != caught_up_at_.end() && it->second <= now ? ha::kLatestOffset : records_behind(t));
  }
  std::stable_sort(lags.begin(), lags.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  decltype(classic::StreamsSubscription::task_lags)::sequence_type last;
  last.reserve(lags.size());
  for (auto& entry : lags) {
    if (!last.empty() && last.back().first == entry.first)
      last.back().second = entry.second;
    else
      last.push_back(entry);
  }
  classic::StreamsSubscription s;
  s.process_id = process_;
  s.task_lags.adopt_sequence(boost::container::ordered_unique_range, std::move(last));
  return s;
}

void ClassicThread::standbys(const std::vector<TopicPartition>& assigned) {
  std::set<TaskId> next;
  for (const auto& tp : assigned) next.insert(task_of(tp));
  const Time now = kernel_.now();
  for (const auto& t : standby_)
    if (!next.contains(t)) state_.release(process_, t, now, member_);
  for (const auto& t : next)
    if (!standby_.contains(t)) state_.maintain(process_, t, now, now);
  standby_ = std::move(next);
}

// Restorations run one after another, after those already queued; the
// tasks being initialised are ready together, when the last ends, plus the
// assign cost of the new ones (as a KIP-1071 member's, member.cpp).
Duration ClassicThread::activate(const std::vector<TopicPartition>& added) {
  const Time now = kernel_.now();
  Time restored = now;
  for (const auto& [t, at] : caught_up_at_) restored = std::max(restored, at);
  std::vector<std::string> restoring;
  std::uint64_t bytes = 0;
  for (const auto& tp : added) {
    const TaskId t = task_of(tp);
    const std::uint64_t lag = state_.lag(process_, t, now);
    restored = state_.maintain(process_, t, now, restored);
    caught_up_at_[t] = restored;
    if (lag > 0) {
      restoring.push_back(to_string(t));
      bytes += lag;
    }
  }
  if (!restoring.empty())
    trace_.emit(now, member_, "restoring",
                {{"resources", restoring}, {"bytes", static_cast<std::int64_t>(bytes)},
                 {"until_us", std::chrono::duration_cast<std::chrono::microseconds>(restored - kTimeZero).count()}});
  return (restored - now) + assign_cost_ * static_cast<std::int64_t>(added.size());
}

void ClassicThread::released(const std::vector<TopicPartition>& actives) {
  const Time now = kernel_.now();
  for (const auto& tp : actives) {
    const TaskId t = task_of(tp);
    if (caught_up_at_.erase(t) != 0) state_.release(process_, t, now, member_);
  }
}

void ClassicThread::stopped() {
  const Time now = kernel_.now();
  for (const auto& t : standby_) state_.release(process_, t, now, member_);
  standby_.clear();
}

}  // namespace rsim::protocols::streams
