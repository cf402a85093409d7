#include "protocols/classic/embedded.hpp"

namespace rsim::protocols::classic {

std::vector<TopicPartition> EagerProtocol::revoke_before_join(const std::vector<TopicPartition>& owned,
                                                              const std::vector<std::string>&) const {
  return owned;  // CC onJoinPrepare, EAGER: revoke everything
}

// An eager member owns nothing when the assignment arrives: all of it is new.
AssignmentOutcome EagerProtocol::on_assignment(const std::vector<TopicPartition>& owned,
                                               const MemberAssignment& assignment) const {
  return difference(owned, assignment);
}

}  // namespace rsim::protocols::classic
