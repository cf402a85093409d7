// Seed 1, "Incremental Resolution of Imbalance": the deferred design's holds,
// and at most `max_moves` partitions change owner per round; the next round
// of moves waits `interval` (the members are told to rejoin then).
#include "protocols/classic/cooperative.hpp"
#include "protocols/classic/held_work.hpp"

#include <algorithm>

namespace rsim::protocols::classic {

namespace {

// The holds, and when the last round of moves was started.
struct IncrementalState final : HeldWork {
  using HeldWork::HeldWork;
  std::optional<Time> last_moves;
};

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
    std::vector<std::pair<TopicPartition, std::string>> moves;  // partition -> new owner, in partition order
    for (const auto& [member, list] : target)
      for (const auto& tp : list)
        if (auto it = owner.find(tp); it != owner.end() && it->second != member) moves.emplace_back(tp, member);
    std::sort(moves.begin(), moves.end());
    const bool waiting = s.last_moves && now < *s.last_moves + interval_;
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
