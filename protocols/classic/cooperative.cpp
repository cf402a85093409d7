#include "protocols/classic/embedded.hpp"

#include "protocols/assignors/sticky.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace rsim::protocols::classic {

// ConsumerCoordinator.onJoinPrepare, COOPERATIVE: only partitions of topics
// no longer subscribed are revoked before rejoining.
std::vector<TopicPartition> CooperativeProtocol::revoke_before_join(const std::vector<TopicPartition>& owned,
                                                                    const std::vector<std::string>& topics) const {
  std::vector<TopicPartition> out;
  for (const auto& tp : owned)
    if (std::find(topics.begin(), topics.end(), tp.topic) == topics.end()) out.push_back(tp);
  return out;
}

// onJoinComplete: revoke what is no longer assigned, add what is new; a
// revocation means a follow-up rebalance ("need to revoke partitions and
// re-join").
AssignmentOutcome CooperativeProtocol::on_assignment(const std::vector<TopicPartition>& owned,
                                                     const MemberAssignment& assignment) const {
  AssignmentOutcome o = difference(owned, assignment);
  o.rejoin = !o.revoke.empty();
  return o;
}

std::vector<std::pair<std::string, MemberAssignment>> DeferredProtocol::assign(
    const Assignor& assignor, const Metadata& metadata, const std::vector<JoinedMember>& members,
    LeaderMemory& memory, Time now) const {
  std::set<std::string> present;
  for (const auto& m : members) present.insert(m.subscription.client_id);
  // Another leader assigned since this process last did: what it remembers
  // (holds, owners) is stale; it starts afresh as a new leader would.
  if (!memory.current()) {
    memory.previous.clear();
    memory.departed.clear();
    memory.last_moves.reset();
  }
  memory.last_assigned_generation = memory.generation;
  reconstruct(metadata, members, memory, now);
  // Members that were in the last assignment and are gone now departed.
  for (const auto& [client, partitions] : memory.previous)
    if (present.count(client) == 0 && memory.departed.count(client) == 0 && !partitions.empty())
      memory.departed[client] = LeaderMemory::Departed{partitions, now + max_delay_};
  // A member back in time gets its old partitions again (below); expired
  // holds are released.
  std::map<std::string, std::vector<TopicPartition>> returning;  // client id -> partitions
  for (const auto& m : members) {
    auto back = memory.departed.find(m.subscription.client_id);
    if (back == memory.departed.end()) continue;
    returning[back->first] = back->second.partitions;
    memory.departed.erase(back);
  }
  // Work held since before this leader goes to the first member new to it
  // that owns nothing: most likely its owner, back (seed 1's heuristic).
  if (auto unknown = memory.departed.find(std::string(kUnknownDeparted)); unknown != memory.departed.end()) {
    for (const auto& m : members) {
      if (memory.previous.count(m.subscription.client_id) != 0 || !m.subscription.owned.empty()) continue;
      returning[m.subscription.client_id] = unknown->second.partitions;
      memory.departed.erase(unknown);
      break;
    }
  }
  std::set<TopicPartition> held;
  std::optional<Time> next_deadline;
  for (auto it = memory.departed.begin(); it != memory.departed.end();) {
    if (it->second.deadline <= now) {
      it = memory.departed.erase(it);
      continue;
    }
    held.insert(it->second.partitions.begin(), it->second.partitions.end());
    next_deadline = next_deadline ? std::min(*next_deadline, it->second.deadline) : it->second.deadline;
    ++it;
  }
  std::optional<Time> next_round;
  auto out = compute(assignor, metadata, members, memory, now, next_round);
  // Nobody owned a returning member's partitions while they were held, so
  // they go straight back to it, whoever the assignor picked.
  std::map<std::string, std::string> member_of;  // client id -> member id
  for (const auto& m : members) member_of[m.subscription.client_id] = m.member_id;
  for (const auto& [client, partitions] : returning) {
    const auto& back = partitions;  // clang 14 cannot capture a structured binding in a lambda
    for (auto& [member_id, assignment] : out) {
      auto& parts = assignment.partitions;
      parts.erase(std::remove_if(parts.begin(), parts.end(),
                                 [&](const TopicPartition& tp) { return std::find(back.begin(), back.end(), tp) != back.end(); }),
                  parts.end());
    }
    for (auto& [member_id, assignment] : out)
      if (member_id == member_of[client])
        assignment.partitions.insert(assignment.partitions.end(), partitions.begin(), partitions.end());
  }
  if (next_round) next_deadline = next_deadline ? std::min(*next_deadline, *next_round) : *next_round;
  memory.previous.clear();
  std::map<std::string, std::string> client_of;
  for (const auto& m : members) client_of[m.member_id] = m.subscription.client_id;
  for (auto& [member_id, assignment] : out) {
    auto& parts = assignment.partitions;
    parts.erase(std::remove_if(parts.begin(), parts.end(), [&](const TopicPartition& tp) { return held.count(tp) != 0; }),
                parts.end());
    if (next_deadline) assignment.scheduled_rebalance = *next_deadline - now;
    memory.previous[client_of[member_id]] = parts;
  }
  return out;
}

// Seed 1: a leader new to the group has no memory of the last assignment and
// must reconstruct what it can from the subscriptions. What members own is
// the last assignment as far as anyone knows. Partitions nobody owns, in a
// group that owns something, were probably held by a member that is gone
// (perhaps the old leader): if some member owns nothing it is taken for that
// member coming back (the seed's heuristic) and the assignor gives them out;
// otherwise they are held for the delay, as a departed member's.
void DeferredProtocol::reconstruct(const Metadata& metadata, const std::vector<JoinedMember>& members,
                                   LeaderMemory& memory, Time now) const {
  if (!memory.previous.empty() || !memory.departed.empty()) return;  // not new, or nothing to go on
  std::set<TopicPartition> owned, all;
  bool someone_empty = false;
  for (const auto& m : members) {
    owned.insert(m.subscription.owned.begin(), m.subscription.owned.end());
    someone_empty |= m.subscription.owned.empty();
    for (const auto& t : m.subscription.topics)
      if (auto it = metadata.find(t); it != metadata.end())
        for (int p = 0; p < it->second; ++p) all.insert(TopicPartition{t, p});
  }
  if (owned.empty()) return;  // a new group: nothing to reconstruct
  for (const auto& m : members) memory.previous[m.subscription.client_id] = m.subscription.owned;
  std::vector<TopicPartition> unowned;
  for (const auto& tp : all)
    if (owned.count(tp) == 0) unowned.push_back(tp);
  if (!unowned.empty() && !someone_empty)
    memory.departed[std::string(kUnknownDeparted)] = LeaderMemory::Departed{unowned, now + max_delay_};
}

std::vector<std::pair<std::string, MemberAssignment>> DeferredProtocol::compute(
    const Assignor& assignor, const Metadata& metadata, const std::vector<JoinedMember>& view, LeaderMemory& memory,
    Time now, std::optional<Time>&) const {
  return EmbeddedProtocol::assign(assignor, metadata, view, memory, now);
}

// The sticky target, with at most `max_moves_` owner changes started per
// interval; each started move is withheld from its new owner this round (the
// old owner revokes it and rejoins), as the cooperative designs do.
std::vector<std::pair<std::string, MemberAssignment>> IncrementalProtocol::compute(
    const Assignor& assignor, const Metadata& metadata, const std::vector<JoinedMember>& view, LeaderMemory& memory,
    Time now, std::optional<Time>& next_round) const {
  const GroupSnapshot snapshot = snapshot_of(assignor, metadata, view);
  GroupAssignment target = StickyAssignor().assign(snapshot);
  std::map<TopicPartition, std::string> owner;
  for (const auto& m : snapshot.members)
    for (const auto& tp : m.owned) owner[tp] = m.member_id;
  std::vector<std::pair<TopicPartition, std::string>> moves;  // partition -> new owner, in partition order
  for (const auto& [member, list] : target)
    for (const auto& tp : list)
      if (auto it = owner.find(tp); it != owner.end() && it->second != member) moves.emplace_back(tp, member);
  std::sort(moves.begin(), moves.end());
  const bool waiting = memory.last_moves && now < *memory.last_moves + interval_;
  const std::size_t allowed = waiting ? 0 : std::min<std::size_t>(moves.size(), static_cast<std::size_t>(max_moves_));
  auto take = [&](const TopicPartition& tp, const std::string& from) {
    auto& list = target[from];
    list.erase(std::remove(list.begin(), list.end(), tp), list.end());
  };
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const auto& [tp, to] = moves[i];
    take(tp, to);  // started moves are withheld this round; the rest stay put
    if (i >= allowed) target[owner.at(tp)].push_back(tp);
  }
  if (allowed > 0) memory.last_moves = now;
  if (moves.size() > allowed) next_round = waiting ? *memory.last_moves + interval_ : now + interval_;
  std::vector<std::pair<std::string, MemberAssignment>> out;
  for (auto& [id, partitions] : target) {
    std::sort(partitions.begin(), partitions.end());
    out.emplace_back(id, MemberAssignment{partitions, std::nullopt, {}});
  }
  return out;
}

}  // namespace rsim::protocols::classic
