// What a member of an epoch group (KIP-848 consumer, KIP-1071 Streams) gets
// back from its group heartbeat, whatever the protocol's request carries:
// an error, its id and epoch, the heartbeat interval and what it may own now.
#pragma once

#include "sim/time.hpp"

#include <string>
#include <vector>

namespace rsim::protocols::epoch {

// The heartbeat errors both protocols share (Kafka's Errors names).
enum class Error { None, FencedMemberEpoch, UnknownMemberId, UnreleasedInstanceId, GroupIdNotFound };
const char* error_name(Error e);

template <class Unit>
struct HeartbeatAnswer {
  Error error = Error::None;
  std::string member_id;
  int member_epoch = 0;
  Duration heartbeat_interval{0};
  std::vector<Unit> assignment;  // sorted: what the member may own at its epoch
};

}  // namespace rsim::protocols::epoch
