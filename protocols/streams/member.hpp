// A member of a Streams group (a stream thread of a KafkaStreams instance,
// speaking KIP-1071): the epoch-group member (protocols/epoch/member.hpp)
// over tasks in roles, with StreamsGroupHeartbeat as its request. It
// revokes active tasks first (committing them: the revoke cost), takes new
// ones, and an active stateful task processes only after its state is
// restored (local_state.hpp): `restoring` ... `ready` in the timeline.
#pragma once

#include "protocols/epoch/member.hpp"
#include "protocols/streams/local_state.hpp"
#include "protocols/streams/messages.hpp"
#include "protocols/streams/topology.hpp"
#include "sim/network.hpp"

namespace rsim::protocols::streams {

using Directory = epoch::Directory<StreamsEndpoint>;

struct MemberContext {
  Kernel& kernel;
  Network& network;
  Trace& trace;
  Directory& directory;
  LocalState& state;
  const Topology& topology;  // what a joining member sends (sized in protocol-bytes)
};

// What a Streams member tells about itself besides the consumer settings.
struct StreamsIdentity {
  std::string process_id;  // its KafkaStreams instance (processId)
  std::optional<std::string> rack_id;
};

// The client traits: tasks in roles; the trace's `resources` are the active
// tasks (what processes records), standbys and warm-ups are listed apart.
struct ClientTasks {
  using Unit = RoleTask;
  static std::vector<TraceField> fields(const std::vector<RoleTask>& units);
};

class StreamsMember final : public epoch::EpochMember<ClientTasks> {
 public:
  StreamsMember(MemberContext ctx, classic::MemberConfig config, StreamsIdentity identity);

  // What it sends to join (epoch 0): how a group that starts stable learns
  // about it.
  HeartbeatRequest join_request() const { return request(0); }
  // Starts in a stable group owning `units`, its copies caught up.
  void start_seeded(const std::string& member_id, int epoch, const Units& units);

 private:
  void send_request(std::optional<Units> owned, std::uint64_t seq) override;
  void send_leave(int epoch) override;
  const char* request_name() const override { return "StreamsGroupHeartbeat"; }
  CoordinatorLookup coordinator_lookup() const override { return epoch::lookup_through(ctx_.directory, config()); }
  Duration revoke_cost(const Units& revoke) const override;
  Duration assign_cost(const Units& add) override;
  void released(const Units& units) override;
  std::optional<Duration> remaining_init() const override;
  HeartbeatRequest request(int epoch) const;
  void note_status(const std::vector<std::string>& status);

  MemberContext ctx_;
  StreamsIdentity identity_;
  std::map<TaskId, Time> caught_up_at_;  // its active tasks' restorations
  std::vector<std::string> status_;      // the group's last statuses
};

}  // namespace rsim::protocols::streams

namespace rsim::protocols::epoch {
extern template class EpochMember<streams::ClientTasks>;
}
