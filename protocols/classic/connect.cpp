#include "protocols/classic/embedded.hpp"

#include <algorithm>
#include <chrono>

namespace rsim::protocols::classic {

namespace {
std::int64_t millis(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }
}  // namespace

std::vector<std::pair<std::string, MemberAssignment>> ConnectProtocol::assign(const Assignor& assignor,
                                                                              const Metadata& metadata,
                                                                              const std::vector<JoinedMember>& members,
                                                                              LeaderMemory& memory, Time now) const {
  if (!memory.connect) {
    memory.connect = std::make_shared<connect::IncrementalCooperativeAssignor>(millis(max_delay_));
    if (!memory.started_with.empty()) {
      std::vector<connect::WorkerLoad> loads;
      for (const auto& [member, load] : memory.started_with) loads.push_back({member, connect::split_work(load)});
      memory.connect->remember(loads, memory.last_completed_generation);
    }
  }
  // Each worker's JoinGroup metadata carries what it runs (its owned
  // resources): the snapshot's owned partitions.
  const GroupSnapshot g = snapshot_of(assignor, metadata, members);
  const auto r = memory.connect->assign(connect::configured_work(g), memory.last_completed_generation, memory.generation,
                                        connect::worker_loads(g), millis(now.time_since_epoch()));
  const int delay = memory.connect->delay();
  std::vector<std::pair<std::string, MemberAssignment>> out;
  for (const auto& m : members) {
    const connect::Work& w = r.all.at(m.member_id);
    std::vector<TopicPartition> runs = w.connectors;
    runs.insert(runs.end(), w.tasks.begin(), w.tasks.end());
    std::sort(runs.begin(), runs.end());
    std::optional<Duration> rejoin;
    if (delay > 0) rejoin = std::chrono::milliseconds(delay);
    const connect::Work& revoked = r.revoked.at(m.member_id);
    std::vector<TopicPartition> stop = revoked.connectors;
    stop.insert(stop.end(), revoked.tasks.begin(), revoked.tasks.end());
    std::sort(stop.begin(), stop.end());
    out.emplace_back(m.member_id, MemberAssignment{std::move(runs), rejoin, std::move(stop)});
  }
  return out;
}

// The worker stops what it no longer runs and rejoins whenever the
// assignment revokes anything, even work it never started (Connect's leader
// can deal lost work to a returning worker and revoke part of it for balance
// in the same round).
AssignmentOutcome ConnectProtocol::on_assignment(const std::vector<TopicPartition>& owned,
                                                 const MemberAssignment& assignment) const {
  AssignmentOutcome o = difference(owned, assignment);
  o.rejoin = !o.revoke.empty() || !assignment.revoked.empty();
  return o;
}

}  // namespace rsim::protocols::classic
