// KIP-848 consumer group protocol: ConsumerGroupHeartbeat, the only group
// RPC. The records the coordinator writes to the group's log are the epoch
// core's (epoch/records.hpp), as Record<Partitions> (partitions.hpp).
// Facts: ../shared/reference/ section 6.
#pragma once

#include "protocols/topic_names.hpp"
#include "protocols/epoch/heartbeat.hpp"
#include "protocols/epoch/member_state.hpp"
#include "protocols/topic_partition.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rsim::protocols::consumer {

using epoch::Error;
using epoch::error_name;

// Member epochs with a meaning of their own: epoch/member_state.hpp.
using epoch::kJoinEpoch;
using epoch::kLeaveEpoch;
using epoch::kStaticLeaveEpoch;

struct HeartbeatRequest {
  std::string member_id;  // empty on a first join: the coordinator names the member
  std::uint32_t member_slot = epoch::kNoMemberSlot;  // the last answer's (not Kafka's: epoch/heartbeat.hpp)
  int member_epoch = kJoinEpoch;
  std::string client_id;  // the scenario's member id
  std::optional<std::string> instance_id;
  TopicNames topics;                     // the subscription: the member's own list, the same object until it resubscribes
  // ownedTopicPartitions. Unset: not sent. The client sends it when joining,
  // after a failed request, and in the first heartbeat after a completed
  // reconciliation; otherwise it is unchanged since the last one sent
  // (ConsumerHeartbeatRequestManager.HeartbeatState's sentFields), and the
  // coordinator takes the member to still own what it must revoke
  // (CurrentAssignmentBuilder.ownsRevokedPartitions: null -> true).
  std::optional<std::vector<TopicPartition>> owned;
  Duration rebalance_timeout{0};         // the client's max.poll.interval.ms
};

// What the member may own at its epoch, with its id, epoch and interval.
using HeartbeatResponse = epoch::HeartbeatAnswer<TopicPartition>;

template <class Response>
using Reply = std::function<void(Response)>;

// What a consumer-protocol member talks to: the group's host, which hands the
// heartbeat to the group's consumer coordinator (or converts a classic group).
class ConsumerEndpoint {
 public:
  virtual ~ConsumerEndpoint() = default;
  virtual void handle_heartbeat(HeartbeatRequest req, Reply<HeartbeatResponse> reply) = 0;
};

// The member's reconciliation state (CurrentAssignmentBuilder).
using epoch::MemberState;
using epoch::state_name;

}  // namespace rsim::protocols::consumer
