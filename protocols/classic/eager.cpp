// Kafka < 2.4 and the default RangeAssignor: every member revokes everything
// before it rejoins, so nothing is processed until the new assignment.
#include "protocols/classic/embedded.hpp"

namespace rsim::protocols::classic {

namespace {

class EagerProtocol final : public EmbeddedProtocol {
 public:
  std::string_view name() const override { return "eager"; }
  // ConsumerCoordinator.onJoinPrepare, EAGER: revoke everything.
  std::vector<TopicPartition> revoke_before_join(const std::vector<TopicPartition>& owned,
                                                 const TopicNames&) const override {
    return owned;
  }
  // An eager member owns nothing when the assignment arrives: all of it is new.
  AssignmentOutcome on_assignment(const std::vector<TopicPartition>& owned,
                                  const MemberAssignment& assignment) const override {
    return difference(owned, assignment);
  }
};

}  // namespace

std::unique_ptr<EmbeddedProtocol> make_eager_protocol(const StrategySettings&) { return std::make_unique<EagerProtocol>(); }

}  // namespace rsim::protocols::classic
