// The classic group protocol's requests and responses (JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup), as the simulator carries them.
//
// The coordinator never reads `Subscription` or `MemberAssignment`: they are
// the embedded protocol's bytes (seed 1: the coordinator stays agnostic of
// the embedded protocol). It only stores, compares and forwards them.
#pragma once

#include "protocols/topic_partition.hpp"
#include "protocols/topic_names.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/container/flat_map.hpp>

namespace rsim::protocols::classic {

enum class Error {
  None,
  MemberIdRequired,
  UnknownMemberId,
  IllegalGeneration,
  RebalanceInProgress,
  FencedInstanceId,
  CoordinatorNotAvailable,
  InconsistentGroupProtocol,  // no assignor the member lists is supported by every member
};

const char* error_name(Error e);

// Kafka Streams' SubscriptionInfo, the user data of a stream thread's
// subscription (classic Streams): its process and, for each task it has
// state for, how far behind that state is (a task reported but not owned
// active counts as its previous standby). Kafka
// sends offset sums and the leader subtracts them from the changelogs' end
// offset sums; the lag itself is carried here (the same entries, the same
// size). A running active task reports LATEST_OFFSET (-2).
struct StreamsSubscription {
  std::string process_id;
  // Records behind, or -2; sorted and contiguous: every JoinGroup copies it,
  // and a tree's nodes were a tenth of a 1,000-instance rebalance (issue 16).
  boost::container::flat_map<TopicPartition, std::int64_t> task_lags;
  bool operator==(const StreamsSubscription&) const = default;
};

// Embedded protocol metadata in JoinGroup (ConsumerProtocolSubscription).
struct Subscription {
  TopicNames topics;  // the member's list, shared by its every JoinGroup and the leader's snapshot
  std::vector<TopicPartition> owned;  // ownedPartitions: what the member holds now
  int generation = -1;
  // The StickyAssignor's user data: the member's last assignment (kept even
  // after an eager revocation). CooperativeStickyAssignor reads `owned`.
  std::vector<TopicPartition> last_assignment;
  // Who the member is across restarts (a Connect worker's identity; here the
  // scenario's member id), for leaders that remember departed members.
  std::string client_id;
  std::optional<StreamsSubscription> streams;  // a stream thread's user data
  bool operator==(const Subscription&) const = default;
};

// Embedded protocol assignment in SyncGroup (ConsumerProtocolAssignment).
struct MemberAssignment {
  std::vector<TopicPartition> partitions;
  // ScheduledRebalanceTimeout (deferred designs): rejoin after this long.
  std::optional<Duration> scheduled_rebalance;
  // Connect: what the leader revokes, listed explicitly.
  std::vector<TopicPartition> revoked;
  // Classic Streams (the user data is an AssignmentInfo): the thread's
  // standby tasks, warm-ups among them (a member cannot tell them apart);
  // `partitions` are its active tasks.
  bool streams = false;
  std::vector<TopicPartition> standby;
};

struct JoinGroupRequest {
  std::string member_id;  // empty on a first join
  std::string client_id;  // the scenario's member id, as Kafka's client.id
  std::optional<std::string> instance_id;
  Duration session_timeout{0};
  Duration rebalance_timeout{0};
  Subscription subscription;
  // The JoinGroup protocols: the client's assignors (partition.assignment.
  // strategy) in preference order, each carrying `subscription`.
  std::vector<std::string> protocols;
};

struct JoinedMember {
  std::string member_id;
  std::optional<std::string> instance_id;
  Subscription subscription;
};

struct JoinGroupResponse {
  Error error = Error::None;
  int generation = -1;
  std::string member_id;
  std::string leader;
  std::string protocol_name;          // the group's selected assignor (ClassicGroup.selectProtocol)
  std::vector<JoinedMember> members;  // only in the leader's response
  // KIP-814: a static leader rejoining a Stable group gets the members but
  // must not assign (the group keeps its assignment).
  bool skip_assignment = false;

  static JoinGroupResponse failed(Error e) {
    JoinGroupResponse r;
    r.error = e;
    return r;
  }
};

struct SyncGroupRequest {
  std::string member_id;
  std::optional<std::string> instance_id;
  int generation = -1;
  std::vector<std::pair<std::string, MemberAssignment>> assignments;  // leader only
};

struct SyncGroupResponse {
  Error error = Error::None;
  MemberAssignment assignment;

  static SyncGroupResponse failed(Error e) {
    SyncGroupResponse r;
    r.error = e;
    return r;
  }
};

struct HeartbeatRequest {
  std::string member_id;
  std::optional<std::string> instance_id;
  int generation = -1;
};

struct HeartbeatResponse {
  Error error = Error::None;
};

struct LeaveGroupRequest {
  std::string member_id;
};

template <class Response>
using Reply = std::function<void(Response)>;

// What a classic member talks to: the classic group coordinator or, after an
// online migration (KIP-848), a consumer group's coordinator speaking the
// classic protocol to the classic members it still has.
class ClassicEndpoint {
 public:
  virtual ~ClassicEndpoint() = default;
  virtual void handle_join(JoinGroupRequest req, Reply<JoinGroupResponse> reply) = 0;
  virtual void handle_sync(SyncGroupRequest req, Reply<SyncGroupResponse> reply) = 0;
  virtual void handle_heartbeat(HeartbeatRequest req, Reply<HeartbeatResponse> reply) = 0;
  virtual void handle_leave(LeaveGroupRequest req) = 0;
};

}  // namespace rsim::protocols::classic
