#include "protocols/epoch/group.hpp"

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

}  // namespace rsim::protocols::epoch
