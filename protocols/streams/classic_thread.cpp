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

std::int64_t ClassicThread::records_behind(const TaskId& t) const {
  const std::uint64_t bytes = state_.lag(process_, t, kernel_.now());
  return static_cast<std::int64_t>((bytes + record_bytes_ - 1) / record_bytes_);
}

// TaskManager.getTaskOffsetSums: the thread's tasks and the task directories
// it holds the lock of; a running active task (restored) reports
// LATEST_OFFSET, every other copy its changelog position. The thread that
// closed a task last keeps its directory (Kafka: a suspended task under
// eager; a closed one is locked by the next thread to look).
classic::StreamsSubscription ClassicThread::describe(const std::vector<TopicPartition>& owned) const {
  classic::StreamsSubscription s;
  s.process_id = process_;
  for (const auto& t : standby_) s.task_lags[task_resource(t)] = records_behind(t);
  const Time now = kernel_.now();
  for (const auto& t : state_.copies_at(process_, now))
    if (const std::string* by = state_.released_by(process_, t, now); by != nullptr && (by->empty() || *by == member_))
      s.task_lags[task_resource(t)] = records_behind(t);
  for (const auto& tp : owned) {
    const TaskId t = task_of(tp);
    const auto it = caught_up_at_.find(t);
    if (!state_.stateful(t)) continue;
    s.task_lags[tp] = it != caught_up_at_.end() && it->second <= now ? ha::kLatestOffset : records_behind(t);
  }
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
