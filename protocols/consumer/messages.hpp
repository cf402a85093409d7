// KIP-848 consumer group protocol: ConsumerGroupHeartbeat, the only group
// RPC, and the records the coordinator writes to the group's log.
// Facts: ../shared/reference/ section 6.
#pragma once

#include "protocols/topic_partition.hpp"
#include "sim/time.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace rsim::protocols::consumer {

enum class Error { None, FencedMemberEpoch, UnknownMemberId, UnreleasedInstanceId, GroupIdNotFound };
const char* error_name(Error e);

// Member epochs with a meaning of their own.
constexpr int kJoinEpoch = 0;
constexpr int kLeaveEpoch = -1;
constexpr int kStaticLeaveEpoch = -2;

struct HeartbeatRequest {
  std::string member_id;  // empty on a first join: the coordinator names the member
  int member_epoch = kJoinEpoch;
  std::string client_id;  // the scenario's member id
  std::optional<std::string> instance_id;
  std::vector<std::string> topics;       // the subscription
  // ownedTopicPartitions. Unset: not sent. The client sends it when joining,
  // after a failed request, and in the first heartbeat after a completed
  // reconciliation; otherwise it is unchanged since the last one sent
  // (ConsumerHeartbeatRequestManager.HeartbeatState's sentFields), and the
  // coordinator takes the member to still own what it must revoke
  // (CurrentAssignmentBuilder.ownsRevokedPartitions: null -> true).
  std::optional<std::vector<TopicPartition>> owned;
  Duration rebalance_timeout{0};         // the client's max.poll.interval.ms
};

struct HeartbeatResponse {
  Error error = Error::None;
  std::string member_id;
  int member_epoch = 0;
  Duration heartbeat_interval{0};
  std::vector<TopicPartition> assignment;  // what the member may own at its epoch
};

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
enum class MemberState { Stable, UnrevokedPartitions, UnreleasedPartitions };
const char* state_name(MemberState s);

// Records (key/value in __consumer_offsets; a tombstone deletes a member's).
struct GroupEpochRecord {
  int epoch = 0;
  std::map<std::string, int> subscribed_metadata;  // partition counts of the subscribed topics then
};
struct MemberMetadataRecord {
  std::string member_id, client_id;
  std::optional<std::string> instance_id;
  std::vector<std::string> topics;
  Duration rebalance_timeout{0};
  bool classic = false;          // speaks JoinGroup/SyncGroup (online migration)
  Duration session_timeout{0};   // a classic member's own; 0: the group's
};
struct TargetAssignmentRecord {
  std::string member_id;
  std::vector<TopicPartition> partitions;
};
struct TargetEpochRecord {
  int epoch = 0;
};
struct CurrentAssignmentRecord {
  std::string member_id;
  int epoch = 0, previous_epoch = 0;
  MemberState state = MemberState::Stable;
  std::vector<TopicPartition> assigned, revoking;
};
struct MemberTombstone {
  std::string member_id;
};
using Record = std::variant<GroupEpochRecord, MemberMetadataRecord, TargetAssignmentRecord, TargetEpochRecord,
                            CurrentAssignmentRecord, MemberTombstone>;

}  // namespace rsim::protocols::consumer
