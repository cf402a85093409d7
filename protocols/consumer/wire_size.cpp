#include "protocols/consumer/wire_size.hpp"

#include "protocols/classic/wire_size.hpp"

namespace rsim::protocols::consumer {

namespace {

// A compact array of (topic id, compact array of int32 partitions, tags);
// `partitions` sorted, so a topic's are together.
std::size_t topic_partitions(const std::vector<TopicPartition>& partitions) {
  std::size_t topics = 0, n = 0, run = 0;
  for (std::size_t i = 0; i < partitions.size(); ++i) {
    ++run;
    if (i + 1 == partitions.size() || !(partitions[i + 1].topic == partitions[i].topic)) {
      ++topics;
      n += 16 + wire::varint(run + 1) + 4 * run + 1;
      run = 0;
    }
  }
  return wire::varint(topics + 1) + n;
}

}  // namespace

std::size_t request_size(const HeartbeatRequest& r, bool with_topics) {
  using namespace wire;
  std::size_t n = kRequestHeader + compact(kGroupId) + compact(r.member_id.size()) + 4;  // group, member, epoch
  n += compact_nullable(r.instance_id) + 1 + 4;  // instance id, rack (null), rebalance timeout
  if (with_topics) {
    n += varint(r.topics.size() + 1);
    for (const auto& t : r.topics) n += compact(t.size());
  } else {
    n += 1;  // null: unchanged
  }
  n += 1 + 1;  // regex, server assignor: null
  n += r.owned ? topic_partitions(*r.owned) : 1;
  return n + 1;  // tags
}

std::size_t response_size(const HeartbeatResponse& r, bool with_assignment) {
  using namespace wire;
  std::size_t n = kResponseHeader + 4 + 2 + 1;  // throttle, error, message (null)
  n += compact(r.member_id.size()) + 4 + 4;    // member id, epoch, heartbeat interval
  n += with_assignment ? 1 + topic_partitions(r.assignment) + 1 : 1;  // nullable struct
  return n + 1;
}

}  // namespace rsim::protocols::consumer
