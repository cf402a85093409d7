// Kafka Connect as shipped (KIP-415): the leader runs Connect's
// IncrementalCooperativeAssignor, whose memory lives in the leader process
// (a new leader starts afresh). Lost work waits for the delay even when its
// worker is back; successive revoking rounds back off. Members rejoin after
// a revocation and when the delay their assignment carries expires.
#include "protocols/assignors/connect.hpp"
#include "protocols/classic/cooperative.hpp"

#include <algorithm>
#include <chrono>

namespace rsim::protocols::classic {

namespace {

std::int64_t millis(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }

// Connect's assignor instance with its previous round, created at the first
// assignment this process computes.
struct ConnectMemory final : LeaderState {
  std::unique_ptr<connect::IncrementalCooperativeAssignor> assignor;
  std::map<std::string, std::vector<TopicPartition>> started_with;  // member id -> load, a group that starts stable
  int started_generation = -1;
};

class ConnectProtocol final : public CooperativeProtocol {
 public:
  explicit ConnectProtocol(Duration max_delay) : max_delay_(max_delay) {}
  std::string_view name() const override { return "connect"; }
  std::unique_ptr<LeaderState> new_leader_state() const override { return std::make_unique<ConnectMemory>(); }
  void remember_start(LeaderState* state, const std::map<std::string, std::vector<TopicPartition>>&,
                      const std::map<std::string, std::vector<TopicPartition>>& by_member, int generation) const override {
    auto& m = *static_cast<ConnectMemory*>(state);
    m.started_with = by_member;
    m.started_generation = generation;
  }
  std::vector<std::pair<std::string, MemberAssignment>> assign(const Assignor& assignor, const Metadata& metadata,
                                                               const std::vector<JoinedMember>& members,
                                                               LeaderState* state, const LeaderView& view) const override;
  // The worker stops what it no longer runs and rejoins whenever the
  // assignment revokes anything, even work it never started (Connect's
  // leader can deal lost work to a returning worker and revoke part of it
  // for balance in the same round).
  AssignmentOutcome on_assignment(const std::vector<TopicPartition>& owned,
                                  const MemberAssignment& assignment) const override {
    AssignmentOutcome o = difference(owned, assignment);
    o.rejoin = !o.revoke.empty() || !assignment.revoked.empty();
    return o;
  }

 private:
  static std::vector<std::pair<std::string, MemberAssignment>> assign_with(const Assignor& assignor, const Metadata& metadata,
                                                                           const std::vector<JoinedMember>& members,
                                                                           const LeaderView& view);
  Duration max_delay_;
};

std::vector<std::pair<std::string, MemberAssignment>> ConnectProtocol::assign(const Assignor& assignor,
                                                                              const Metadata& metadata,
                                                                              const std::vector<JoinedMember>& members,
                                                                              LeaderState* state,
                                                                              const LeaderView& view) const {
  if (assignor.name() != "connect") return assign_with(assignor, metadata, members, view);
  auto& memory = *static_cast<ConnectMemory*>(state);
  if (!memory.assignor) {
    memory.assignor = std::make_unique<connect::IncrementalCooperativeAssignor>(millis(max_delay_));
    if (!memory.started_with.empty()) {
      std::vector<connect::WorkerLoad> loads;
      for (const auto& [member, load] : memory.started_with) loads.push_back({member, connect::split_work(load)});
      memory.assignor->remember(loads, memory.started_generation);
    }
  }
  // Each worker's JoinGroup metadata carries what it runs (its owned
  // resources): the snapshot's owned partitions.
  const GroupSnapshot g = snapshot_of(assignor, metadata, members, view.generation);
  const auto r = memory.assignor->assign(connect::configured_work(g), view.last_completed_generation, view.generation,
                                         connect::worker_loads(g), millis(view.now.time_since_epoch()));
  const int delay = memory.assignor->delay();
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
    out.emplace_back(m.member_id, MemberAssignment{std::move(runs), rejoin, std::move(stop), false, {}});
  }
  return out;
}

// Another assignor (a plug-in) answers what each worker runs after the
// round; a worker stops what it runs and is not given. No delay: holding
// lost work is Connect's own assignor's policy.
std::vector<std::pair<std::string, MemberAssignment>> ConnectProtocol::assign_with(const Assignor& assignor,
                                                                                   const Metadata& metadata,
                                                                                   const std::vector<JoinedMember>& members,
                                                                                   const LeaderView& view) {
  const GroupSnapshot g = snapshot_of(assignor, metadata, members, view.generation);
  const GroupAssignment a = assignor.assign(g);
  std::vector<std::pair<std::string, MemberAssignment>> out;
  for (const auto& m : g.members) {
    const auto& runs = a.at(m.member_id);
    std::vector<TopicPartition> stop;
    for (const auto& tp : m.owned)
      if (!std::binary_search(runs.begin(), runs.end(), tp)) stop.push_back(tp);
    std::sort(stop.begin(), stop.end());
    out.emplace_back(m.member_id, MemberAssignment{runs, std::nullopt, std::move(stop), false, {}});
  }
  return out;
}

}  // namespace

std::unique_ptr<EmbeddedProtocol> make_connect_protocol(const StrategySettings& s) {
  return std::make_unique<ConnectProtocol>(s.max_delay);
}

}  // namespace rsim::protocols::classic
