// A deliberately broken cooperative leader, for testing the checkers (the
// swarm must find it): a partition that moves goes to its new owner in the
// same round its old owner is told to revoke it, instead of in the follow-up
// rebalance. Test-only: `list` hides it.
#include "protocols/classic/cooperative.hpp"

namespace rsim::protocols::classic {

namespace {

class PlantedBugCooperativeProtocol final : public CooperativeProtocol {
 public:
  std::string_view name() const override { return "cooperative-planted-bug"; }
  // The bug: the assignor's target as it is, moving partitions included
  // (cooperative-sticky withholds them this round).
  std::vector<std::pair<std::string, MemberAssignment>> assign(const Assignor& assignor, const Metadata& metadata,
                                                               const std::vector<JoinedMember>& members, LeaderState*,
                                                               const LeaderView&) const override {
    return entries(assignor.target(snapshot_of(assignor, metadata, members)));
  }
};

}  // namespace

std::unique_ptr<EmbeddedProtocol> make_planted_bug_protocol(const StrategySettings&) {
  return std::make_unique<PlantedBugCooperativeProtocol>();
}

}  // namespace rsim::protocols::classic
