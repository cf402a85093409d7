// Seed 1, "Deferred Resolution of Imbalance": cooperative, and the leader
// holds a departed member's partitions for scheduled.rebalance.max.delay.ms,
// telling members when to rejoin (ScheduledRebalanceTimeout). A member that
// comes back in time gets its partitions back in the rebalance its return
// triggers; otherwise they are assigned when the delay expires.
#include "protocols/classic/cooperative.hpp"
#include "protocols/classic/held_work.hpp"

namespace rsim::protocols::classic {

namespace {

class DeferredProtocol final : public CooperativeProtocol {
 public:
  explicit DeferredProtocol(Duration max_delay) : max_delay_(max_delay) {}
  std::string_view name() const override { return "deferred"; }
  std::unique_ptr<LeaderState> new_leader_state() const override { return std::make_unique<HeldWork>(max_delay_); }
  void remember_start(LeaderState* state, const std::map<std::string, std::vector<TopicPartition>>& by_client,
                      const std::map<std::string, std::vector<TopicPartition>>&, int generation) const override {
    static_cast<HeldWork*>(state)->remember(by_client, generation);
  }
  std::vector<std::pair<std::string, MemberAssignment>> assign(const Assignor& assignor, const Metadata& metadata,
                                                               const std::vector<JoinedMember>& members,
                                                               LeaderState* state, const LeaderView& view) const override {
    auto& held = *static_cast<HeldWork*>(state);
    held.begin(metadata, members, view);
    auto out = entries(assignor.assign(snapshot_of(assignor, metadata, members, view.generation)));
    held.finish(out, members, view, std::nullopt);
    return out;
  }

 private:
  Duration max_delay_;
};

}  // namespace

std::unique_ptr<EmbeddedProtocol> make_deferred_protocol(const StrategySettings& s) {
  return std::make_unique<DeferredProtocol>(s.max_delay);
}

}  // namespace rsim::protocols::classic
