#include "protocols/consumer/member.hpp"

#include "protocols/epoch/member_impl.hpp"

namespace rsim::protocols::epoch {
template class EpochMember<consumer::ClientPartitions>;
}

namespace rsim::protocols::consumer {

ConsumerMember::ConsumerMember(MemberContext ctx, classic::MemberConfig config)
    : EpochMember(ctx.kernel, ctx.network, ctx.trace, std::move(config)), ctx_(ctx) {}

// ConsumerGroupHeartbeat: the subscription, the owned partitions when
// `owned` is set, and max.poll.interval.ms as the rebalance timeout.
void ConsumerMember::send_request(std::optional<Units> owned, std::uint64_t seq) {
  HeartbeatRequest req;
  req.member_id = member_id();
  req.member_epoch = member_epoch();
  req.client_id = config().client_id;
  req.instance_id = config().instance_id;
  req.topics = config().topics;
  req.owned = std::move(owned);
  req.rebalance_timeout = config().max_poll_interval;
  Directory* dir = &ctx_.directory;
  Reply<HeartbeatResponse> reply = [this, dir, seq](HeartbeatResponse r) {
    ctx_.network.send(dir->node, node(), "ConsumerGroupHeartbeatResponse", [this, seq, r = std::move(r)]() mutable {
      on_message([this, seq, r = std::move(r)]() mutable { on_answer(seq, std::move(r)); });
    });
  };
  ctx_.network.send(node(), dir->node, "ConsumerGroupHeartbeat", [dir, req = std::move(req), reply = std::move(reply)]() mutable {
    if (dir->coordinator != nullptr) dir->coordinator->handle_heartbeat(std::move(req), std::move(reply));
  });
}

void ConsumerMember::send_leave(int epoch) {
  HeartbeatRequest req;
  req.member_id = member_id();
  req.member_epoch = epoch;
  req.client_id = config().client_id;
  req.instance_id = config().instance_id;
  Directory* dir = &ctx_.directory;
  ctx_.network.send(node(), dir->node, "ConsumerGroupHeartbeat", [dir, req] {
    if (dir->coordinator != nullptr) dir->coordinator->handle_heartbeat(req, [](HeartbeatResponse) {});
  });
}

}  // namespace rsim::protocols::consumer
