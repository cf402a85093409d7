// Seed 1, "Incremental Resolution of Imbalance": the deferred design's holds,
// and at most `max_moves` partitions change owner per round; the next round
// of moves waits `interval` (the members are told to rejoin then).
#include "protocols/classic/cooperative.hpp"
#include "protocols/classic/held_work.hpp"

#include <algorithm>

namespace rsim::protocols::classic {

namespace {

// Who the group is: the topics' partition counts and each member's id and
// subscription. The moves of one group never undo each other (below).
using GroupKey = std::pair<std::map<std::string, int>, std::vector<std::pair<std::string, TopicNames>>>;

GroupKey group_key(const GroupSnapshot& snapshot) {
  GroupKey key{snapshot.topics, {}};
  for (const auto& m : snapshot.members) key.second.emplace_back(m.member_id, m.topics);
  return key;
}

// The holds, when the last round of moves was started, and the moves
// started since the group was last different: partition -> the member id
// it moves to.
struct IncrementalState final : HeldWork {
  using HeldWork::HeldWork;
  std::optional<Time> last_moves;
  std::optional<GroupKey> moved_in;
  std::map<TopicPartition, std::string> moved;
};

bool subscribes(const MemberSubscription& m, Topic topic) {
  return std::find(m.topics.begin(), m.topics.end(), topic.name()) != m.topics.end();
}

// Asked again after each round, the assignor may undo a move that only
// balanced with others not started yet, and the next round would start it
// again, for ever (swarm seed 67825: one partition between two members every
// round for 800 s). So within one group a move, once started, ends with its
// new owner (the assignor, asked with the partition owned by nobody, may
// place it elsewhere), and a partition moves once.
void keep_moves(GroupAssignment& target, const std::map<TopicPartition, std::string>& owner,
                const GroupSnapshot& snapshot, IncrementalState& s) {
  GroupKey key = group_key(snapshot);
  if (s.moved_in != key) {
    s.moved.clear();
    s.moved_in = std::move(key);
    return;
  }
  for (const auto& move : s.moved) {
    const TopicPartition& tp = move.first;
    const std::string& to = move.second;  // a plain name: lambdas may not capture a binding (clang)
    if (owner.count(tp) != 0) continue;  // arrived, or claimed again
    const auto m = std::find_if(snapshot.members.begin(), snapshot.members.end(),
                                [&](const MemberSubscription& x) { return x.member_id == to; });
    if (m == snapshot.members.end() || !subscribes(*m, tp.topic)) continue;
    for (auto& [member, list] : target) std::erase(list, tp);
    target[to].push_back(tp);
  }
}

class IncrementalProtocol final : public CooperativeProtocol {
 public:
  explicit IncrementalProtocol(const StrategySettings& s)
      : max_delay_(s.max_delay), max_moves_(s.max_moves), interval_(s.round_interval) {}
  std::string_view name() const override { return "incremental"; }
  std::unique_ptr<LeaderState> new_leader_state() const override { return std::make_unique<IncrementalState>(max_delay_); }
  void remember_start(LeaderState* state, const std::map<std::string, std::vector<TopicPartition>>& by_client,
                      const std::map<std::string, std::vector<TopicPartition>>&, int generation) const override {
    static_cast<IncrementalState*>(state)->remember(by_client, generation);
  }
  std::vector<std::pair<std::string, MemberAssignment>> assign(const Assignor& assignor, const Metadata& metadata,
                                                               const std::vector<JoinedMember>& members,
                                                               LeaderState* state, const LeaderView& view) const override {
    auto& s = *static_cast<IncrementalState*>(state);
    s.begin(metadata, members, view);
    std::optional<Time> next_round;
    auto out = limited_moves(assignor, snapshot_of(assignor, metadata, members, view.generation), s, view.now, next_round);
    s.finish(out, members, view, next_round);
    return out;
  }

 private:
  // The assignor's target with at most `max_moves_` owner changes started
  // per interval; each started move is withheld from its new owner this
  // round (the old owner revokes it and rejoins), as the cooperative
  // designs do; the rest stay with their owners.
  std::vector<std::pair<std::string, MemberAssignment>> limited_moves(const Assignor& assignor, const GroupSnapshot& snapshot,
                                                                      IncrementalState& s, Time now,
                                                                      std::optional<Time>& next_round) const {
    GroupAssignment target = assignor.target(snapshot);
    std::map<TopicPartition, std::string> owner;
    for (const auto& m : snapshot.members)
      for (const auto& tp : m.owned) owner[tp] = m.member_id;
    keep_moves(target, owner, snapshot, s);
    std::vector<std::pair<TopicPartition, std::string>> moves;  // partition -> new owner, in partition order
    for (const auto& [member, list] : target)
      for (const auto& tp : list)
        if (auto it = owner.find(tp); it != owner.end() && it->second != member) moves.emplace_back(tp, member);
    auto take = [&](const TopicPartition& tp, const std::string& from) {
      auto& list = target[from];
      list.erase(std::remove(list.begin(), list.end(), tp), list.end());
    };
    std::erase_if(moves, [&](const auto& move) {  // a partition moved already stays where it is
      if (s.moved.count(move.first) == 0) return false;
      take(move.first, move.second);
      target[owner.at(move.first)].push_back(move.first);
      return true;
    });
    std::sort(moves.begin(), moves.end());
    const bool waiting = s.last_moves && now < *s.last_moves + interval_;
    const std::size_t allowed = waiting ? 0 : std::min<std::size_t>(moves.size(), static_cast<std::size_t>(max_moves_));
    for (std::size_t i = 0; i < moves.size(); ++i) {
      const auto& [tp, to] = moves[i];
      take(tp, to);  // started moves are withheld this round; the rest stay put
      if (i >= allowed) target[owner.at(tp)].push_back(tp);
      else s.moved.emplace(tp, to);
    }
    if (allowed > 0) s.last_moves = now;
    if (moves.size() > allowed) next_round = waiting ? *s.last_moves + interval_ : now + interval_;
    for (auto& [id, partitions] : target) std::sort(partitions.begin(), partitions.end());
    return entries(target);
  }

  Duration max_delay_;
  int max_moves_;
  Duration interval_;
};

}  // namespace

std::unique_ptr<EmbeddedProtocol> make_incremental_protocol(const StrategySettings& s) {
  return std::make_unique<IncrementalProtocol>(s);
}

}  // namespace rsim::protocols::classic
