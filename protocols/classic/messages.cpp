#include "protocols/classic/messages.hpp"

namespace rsim::protocols::classic {

const char* error_name(Error e) {
  switch (e) {
    case Error::None:
      return "NONE";
    case Error::MemberIdRequired:
      return "MEMBER_ID_REQUIRED";
    case Error::UnknownMemberId:
      return "UNKNOWN_MEMBER_ID";
    case Error::IllegalGeneration:
      return "ILLEGAL_GENERATION";
    case Error::RebalanceInProgress:
      return "REBALANCE_IN_PROGRESS";
    case Error::FencedInstanceId:
      return "FENCED_INSTANCE_ID";
    case Error::CoordinatorNotAvailable:
      return "COORDINATOR_NOT_AVAILABLE";
    case Error::InconsistentGroupProtocol:
      return "INCONSISTENT_GROUP_PROTOCOL";
  }
  return "?";
}

}  // namespace rsim::protocols::classic
