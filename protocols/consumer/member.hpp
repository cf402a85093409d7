// A consumer speaking the KIP-848 protocol (Kafka's AsyncKafkaConsumer and
// its membership manager): the epoch-group member (protocols/epoch/member.hpp)
// over topic-partitions, with ConsumerGroupHeartbeat as its request.
#pragma once

#include "protocols/consumer/coordinator.hpp"
#include "protocols/epoch/member.hpp"

#include <utility>
#include "sim/network.hpp"

namespace rsim::protocols::consumer {

using Directory = epoch::Directory<ConsumerEndpoint>;

struct MemberContext {
  Kernel& kernel;
  Network& network;
  Trace& trace;
  Directory& directory;
};

// The client traits: a consumer is assigned topic-partitions.
struct ClientPartitions {
  using Unit = TopicPartition;
  static std::vector<TraceField> fields(const std::vector<TopicPartition>& tps) {
    return {{"resources", to_names(tps)}};
  }
};

class ConsumerMember final : public epoch::EpochMember<ClientPartitions> {
 public:
  ConsumerMember(MemberContext ctx, classic::MemberConfig config);

 private:
  void send_request(std::optional<Units> owned, std::uint64_t seq) override;
  void send_leave(int epoch) override;
  const char* request_name() const override { return "ConsumerGroupHeartbeat"; }
  CoordinatorLookup coordinator_lookup() const override { return epoch::lookup_through(ctx_.directory, config()); }
  Duration revoke_cost(const Units& revoke) const override { return config().revoke_time(revoke); }
  Duration assign_cost(const Units& add) override { return config().assign_time(add); }


  void subscribe(std::vector<std::string> topics) override;
  // The subscription as one shared list, built once per subscription: a
  // heartbeat carries it without copying 1,000 names (issue 16).
  const TopicNames& subscription();

  MemberContext ctx_;
  TopicNames subscription_;  // null: not built since the last subscribe
  TopicNames sent_topics_;   // the subscription last sent (protocol-bytes)
};

}  // namespace rsim::protocols::consumer

namespace rsim::protocols::epoch {
extern template class EpochMember<consumer::ClientPartitions>;
}
