#include "protocols/classic/wire_size.hpp"

#include <algorithm>

namespace rsim::protocols::wire {

std::size_t varint(std::size_t n) {
  std::size_t bytes = 1;
  while (n >= 0x80) {
    n >>= 7;
    ++bytes;
  }
  return bytes;
}

}  // namespace rsim::protocols::wire

namespace rsim::protocols::classic {

using namespace wire;

namespace {

constexpr std::size_t kProtocolName = 18;  // "cooperative-sticky", the longest built-in

// A non-flexible array of (topic, [partition]): int32 count, then per topic
// an int16-length name and an int32-count array of int32.
std::size_t topic_partitions(const std::vector<TopicPartition>& tps) {
  std::vector<Topic> topics;
  topics.reserve(tps.size());
  for (const auto& tp : tps) topics.push_back(tp.topic);
  std::sort(topics.begin(), topics.end(), [](Topic a, Topic b) { return a.id() < b.id(); });
  topics.erase(std::unique(topics.begin(), topics.end()), topics.end());
  std::size_t n = 4 + 4 * tps.size();
  for (Topic t : topics) n += 2 + t.name().size() + 4;
  return n;
}

// Kafka Streams' SubscriptionInfo (version 11, as 3.x sends it): version,
// latest supported version, process id (UUID), user endpoint (empty), task
// offset sums grouped by sub-topology (int32 id, then int32 partition and
// int64 sum per task), uniqueField, error code, client tags (none).
std::size_t subscription_info(const StreamsSubscription& s) {
  std::size_t n = 4 + 4 + 16 + 2 + 4;
  Topic last;
  bool first = true;
  for (const auto& [task, lag] : s.task_lags) {
    if (first || task.topic != last) n += 4 + 4;
    first = false;
    last = task.topic;
    n += 4 + 8;
  }
  return n + 1 + 4 + 4;
}

// Kafka Streams' AssignmentInfo: versions, active tasks (one TaskId per
// assigned partition), standby tasks with their partitions, the (empty)
// host maps, error code and the next rebalance time.
std::size_t assignment_info(const MemberAssignment& a) {
  std::size_t n = 4 + 4 + 4 + 8 * a.partitions.size() + 4;
  for (const auto& t : a.standby) n += 8 + 4 + 2 + t.topic.name().size() + 4;
  return n + 4 + 4 + 4 + 8;
}

}  // namespace

std::size_t wire_size(const Subscription& s) {
  std::size_t n = 2;  // version
  n += 4;             // topics
  for (const auto& t : s.topics) n += 2 + t.size();
  // user data (nullable bytes): the sticky assignor's last assignment and
  // generation; null otherwise.
  n += 4;
  if (!s.last_assignment.empty()) n += topic_partitions(s.last_assignment) + 4;
  if (s.streams) n += subscription_info(*s.streams);
  n += topic_partitions(s.owned);  // ownedPartitions (v1+)
  n += 4;                          // generationId (v2+)
  n += 2;                          // rackId (v3+), null
  return n;
}

std::size_t wire_size(const MemberAssignment& a) {
  std::size_t n = 2 + topic_partitions(a.partitions);
  n += 4;  // user data length
  if (a.streams) return n + assignment_info(a);
  if (a.scheduled_rebalance) n += 2 + 4;  // version + delay, as Connect encodes it
  return n;
}

std::size_t wire_size(const JoinGroupRequest& r) {
  std::size_t n = kRequestHeader + compact(kGroupId) + 4 + 4;  // group, session and rebalance timeouts
  n += compact(r.member_id.size()) + compact_nullable(r.instance_id);
  n += compact(8);  // protocol type "consumer"
  const std::size_t metadata = wire_size(r.subscription);
  // One protocol per configured assignor, each with the same metadata (the
  // name counted at the longest built-in name's length, as for one).
  const std::size_t protocols = std::max<std::size_t>(r.protocols.size(), 1);
  n += varint(protocols + 1) + protocols * (compact(kProtocolName) + compact(metadata) + 1);  // protocols, tags
  n += compact(0) + 1;                                              // reason, tags
  return n;
}

std::size_t wire_size(const JoinGroupResponse& r) {
  std::size_t n = kResponseHeader + 4 + 2 + 4;  // throttle, error, generation
  n += compact(8) + compact(kProtocolName) + compact(r.leader.size()) + 1;  // type, name, leader, skipAssignment
  n += compact(r.member_id.size());
  n += varint(r.members.size() + 1);
  for (const auto& m : r.members)
    n += compact(m.member_id.size()) + compact_nullable(m.instance_id) + compact(wire_size(m.subscription)) + 1;
  return n + 1;
}

std::size_t wire_size(const SyncGroupRequest& r) {
  std::size_t n = kRequestHeader + compact(kGroupId) + 4 + compact(r.member_id.size()) + compact_nullable(r.instance_id);
  n += compact(8) + compact(kProtocolName);
  n += varint(r.assignments.size() + 1);
  for (const auto& [member, a] : r.assignments) n += compact(member.size()) + compact(wire_size(a)) + 1;
  return n + 1;
}

std::size_t wire_size(const SyncGroupResponse& r) {
  return kResponseHeader + 4 + 2 + compact(8) + compact(kProtocolName) + compact(wire_size(r.assignment)) + 1;
}

std::size_t wire_size(const HeartbeatRequest& r) {
  return kRequestHeader + compact(kGroupId) + 4 + compact(r.member_id.size()) + compact_nullable(r.instance_id) + 1;
}
std::size_t wire_size(const HeartbeatResponse&) { return kResponseHeader + 4 + 2 + 1; }
std::size_t wire_size(const LeaveGroupRequest& r) {
  return kRequestHeader + compact(kGroupId) + varint(2) + compact(r.member_id.size()) + 1 + compact(0) + 1 + 1;
}

}  // namespace rsim::protocols::classic
