#include "protocols/consumer/member.hpp"

#include "protocols/consumer/wire_size.hpp"
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
  req.member_slot = member_slot();
  req.member_epoch = member_epoch();
  req.client_id = config().client_id;
  req.instance_id = config().instance_id;
  req.topics = subscription();
  req.owned = std::move(owned);
  req.rebalance_timeout = config().max_poll_interval;
  const bool joining = req.member_epoch == kJoinEpoch;
  const bool with_topics = joining || !(req.topics == sent_topics_);
  if (with_topics) sent_topics_ = req.topics;
  const bool carries = with_topics || req.owned.has_value();
  const auto request_bytes = static_cast<std::int64_t>(request_size(req, with_topics));
  Directory* dir = &ctx_.directory;
  Reply<HeartbeatResponse> reply = [this, dir, seq, joining, carries, request_bytes](HeartbeatResponse r) {
    ctx_.network.send(dir->node, node(), "ConsumerGroupHeartbeatResponse",
                      [this, seq, joining, carries, request_bytes, r = std::move(r)]() mutable {
      on_message([this, seq, joining, carries, request_bytes, r = std::move(r)]() mutable {
        const bool with_assignment = new_assignment(r, joining);
        if (carries || with_assignment) count_bytes(request_bytes + static_cast<std::int64_t>(response_size(r, with_assignment)));
        on_answer(seq, std::move(r));
        report_unclaimed_bytes();
      });
    });
  };
  ctx_.network.send(node(), dir->node, "ConsumerGroupHeartbeat", [dir, req = std::move(req), reply = std::move(reply)]() mutable {
    if (dir->coordinator != nullptr) dir->coordinator->handle_heartbeat(std::move(req), std::move(reply));
  });
}

void ConsumerMember::subscribe(std::vector<std::string> topics) {
  subscription_ = TopicNames();
  EpochMember::subscribe(std::move(topics));
}

const TopicNames& ConsumerMember::subscription() {
  if (subscription_.shared() == nullptr) subscription_ = TopicNames(config().topics);
  return subscription_;
}

void ConsumerMember::send_leave(int epoch) {
  HeartbeatRequest req;
  req.member_id = member_id();
  req.member_slot = member_slot();
  req.member_epoch = epoch;
  req.client_id = config().client_id;
  req.instance_id = config().instance_id;
  Directory* dir = &ctx_.directory;
  ctx_.network.send(node(), dir->node, "ConsumerGroupHeartbeat", [dir, req] {
    if (dir->coordinator != nullptr) dir->coordinator->handle_heartbeat(req, [](HeartbeatResponse) {});
  });
}

}  // namespace rsim::protocols::consumer
