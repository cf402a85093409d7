#include "protocols/epoch/group.hpp"
#include "protocols/epoch/heartbeat.hpp"

namespace rsim::protocols::epoch {

const char* group_state_name(GroupState s) {
  switch (s) {
    case GroupState::Empty:
      return "Empty";
    case GroupState::Assigning:
      return "Assigning";
    case GroupState::Reconciling:
      return "Reconciling";
    case GroupState::Stable:
      return "Stable";
  }
  return "?";
}

const char* error_name(Error e) {
  switch (e) {
    case Error::None:
      return "NONE";
    case Error::FencedMemberEpoch:
      return "FENCED_MEMBER_EPOCH";
    case Error::UnknownMemberId:
      return "UNKNOWN_MEMBER_ID";
    case Error::UnreleasedInstanceId:
      return "UNRELEASED_INSTANCE_ID";
    case Error::GroupIdNotFound:
      return "GROUP_ID_NOT_FOUND";
  }
  return "?";
}

}  // namespace rsim::protocols::epoch
