// KIP-1071: StreamsGroupHeartbeat, the only group RPC of a Streams group.
// Facts: the KIP-1071 design (../shared/reference/designs/) and Kafka's
// StreamsGroupHeartbeatRequest/Response (4.2).
#pragma once

#include "protocols/epoch/heartbeat.hpp"
#include "protocols/epoch/member_state.hpp"
#include "protocols/streams/group.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rsim::protocols::streams {

using epoch::Error;
using epoch::kJoinEpoch;
using epoch::kLeaveEpoch;
using epoch::kStaticLeaveEpoch;

struct HeartbeatRequest {
  std::string member_id;  // empty on a first join: the coordinator names the member
  std::uint32_t member_slot = epoch::kNoMemberSlot;  // the last answer's (not Kafka's: epoch/heartbeat.hpp)
  int member_epoch = kJoinEpoch;
  std::string client_id;  // the scenario's member id
  std::optional<std::string> instance_id, rack_id;
  Duration rebalance_timeout{0};  // the client's max.poll.interval.ms
  // The topology, sent when joining: its epoch (the structure itself is the
  // scenario's, shared by every member; see StreamsCoordinator).
  std::optional<int> topology_epoch;
  std::string process_id;
  std::string user_endpoint;
  std::map<std::string, std::string> client_tags;
  // activeTasks / standbyTasks / warmupTasks. Unset: not sent (as for the
  // consumer protocol: on a join, after a failed request, after a completed
  // reconciliation).
  std::optional<TasksTuple> owned;
};

// StreamsGroupHeartbeatResponse: the epoch-group answer, plus the group's
// statuses (MISSING_SOURCE_TOPICS, ...), each with Kafka's message.
struct HeartbeatResponse {
  epoch::HeartbeatAnswer<RoleTask> answer;
  std::vector<std::string> status;
};

using Reply = std::function<void(HeartbeatResponse)>;

class StreamsEndpoint {
 public:
  virtual ~StreamsEndpoint() = default;
  virtual void handle_heartbeat(HeartbeatRequest req, Reply reply) = 0;
};

}  // namespace rsim::protocols::streams
