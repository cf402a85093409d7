#include "protocols/streams/member.hpp"

#include "protocols/epoch/member_impl.hpp"
#include "protocols/streams/wire_size.hpp"

namespace rsim::protocols::epoch {
template class EpochMember<streams::ClientTasks>;
}

namespace rsim::protocols::streams {

std::vector<TraceField> ClientTasks::fields(const std::vector<RoleTask>& units) {
  std::vector<std::string> active, standby, warmup;
  for (const auto& u : units)
    (u.role == Role::Active ? active : u.role == Role::Standby ? standby : warmup).push_back(to_string(u.task));
  std::vector<TraceField> out{{"resources", std::move(active)}};
  if (!standby.empty()) out.push_back({"standbys", std::move(standby)});
  if (!warmup.empty()) out.push_back({"warmups", std::move(warmup)});
  return out;
}

StreamsMember::StreamsMember(MemberContext ctx, classic::MemberConfig config, StreamsIdentity identity)
    : EpochMember(ctx.kernel, ctx.network, ctx.trace, std::move(config)), ctx_(ctx), identity_(std::move(identity)) {}

HeartbeatRequest StreamsMember::request(int epoch) const {
  HeartbeatRequest req;
  req.member_id = member_id();
  req.member_slot = member_slot();
  req.member_epoch = epoch;
  req.client_id = config().client_id;
  req.instance_id = config().instance_id;
  req.rack_id = identity_.rack_id;
  req.rebalance_timeout = config().max_poll_interval;
  req.process_id = identity_.process_id;
  return req;
}

// StreamsGroupHeartbeat: the topology when joining, what it owns when
// `owned` is set.
void StreamsMember::send_request(std::optional<Units> owned, std::uint64_t seq) {
  HeartbeatRequest req = request(member_epoch());
  if (member_epoch() == kJoinEpoch) req.topology_epoch = 0;
  if (owned) req.owned = tuple_of(*owned);
  const bool joining = member_epoch() == kJoinEpoch;
  const bool carries = joining || req.owned.has_value();
  const auto request_bytes = static_cast<std::int64_t>(request_size(req, joining ? &ctx_.topology : nullptr));
  Directory* dir = &ctx_.directory;
  Reply reply = [this, dir, seq, joining, carries, request_bytes](HeartbeatResponse r) {
    ctx_.network.send(dir->node, node(), "StreamsGroupHeartbeatResponse",
                      [this, seq, joining, carries, request_bytes, r = std::move(r)]() mutable {
      on_message([this, seq, joining, carries, request_bytes, r = std::move(r)]() mutable {
        note_status(r.status);
        const bool with_tasks = new_assignment(r.answer, joining);
        if (carries || with_tasks) count_bytes(request_bytes + static_cast<std::int64_t>(response_size(r, with_tasks)));
        on_answer(seq, std::move(r.answer));
        report_unclaimed_bytes();
      });
    });
  };
  ctx_.network.send(node(), dir->node, "StreamsGroupHeartbeat", [dir, req = std::move(req), reply = std::move(reply)]() mutable {
    if (dir->coordinator != nullptr) dir->coordinator->handle_heartbeat(std::move(req), std::move(reply));
  });
}

void StreamsMember::send_leave(int epoch) {
  Directory* dir = &ctx_.directory;
  ctx_.network.send(node(), dir->node, "StreamsGroupHeartbeat", [dir, req = request(epoch)] {
    if (dir->coordinator != nullptr) dir->coordinator->handle_heartbeat(req, [](HeartbeatResponse) {});
  });
}

// A status the group reports (MISSING_SOURCE_TOPICS) shows in the timeline
// when it appears or clears.
void StreamsMember::note_status(const std::vector<std::string>& status) {
  if (status == status_) return;
  status_ = status;
  emit("status", {{"status", status_}});
}

// Closing an active task commits it (the revoke cost); a standby is dropped.
Duration StreamsMember::revoke_cost(const Units& revoke) const {
  const auto active = std::count_if(revoke.begin(), revoke.end(), [](const RoleTask& u) { return u.role == Role::Active; });
  return config().revoke_cost * active;
}

// Every new task's copy is maintained from now; an active task's assign cost
// is paid after its restoration. The tasks being initialised are ready
// together: when the last active restoration ends (one after another, through
// the member's restore consumer), plus the assign cost of the new ones.
Duration StreamsMember::assign_cost(const Units& add) {
  const Time now = ctx_.kernel.now();
  Time restored = now;
  for (const auto& [t, at] : caught_up_at_) restored = std::max(restored, at);
  std::vector<std::string> restoring;
  std::uint64_t bytes = 0;
  std::int64_t new_active = 0;
  for (const auto& u : add) {
    if (u.role != Role::Active) {
      ctx_.state.maintain(identity_.process_id, u.task, now, now);
      continue;
    }
    ++new_active;
    const std::uint64_t lag = ctx_.state.lag(identity_.process_id, u.task, now);
    const Time start = restored;  // after the restorations already queued
    restored = ctx_.state.maintain(identity_.process_id, u.task, now, start);
    caught_up_at_[u.task] = restored;
    if (lag > 0) {
      restoring.push_back(to_string(u.task));
      bytes += lag;
    }
  }
  if (!restoring.empty())
    emit("restoring", {{"resources", restoring}, {"bytes", static_cast<std::int64_t>(bytes)},
                       {"until_us", std::chrono::duration_cast<std::chrono::microseconds>(restored - kTimeZero).count()}});
  return (restored - now) + config().assign_cost * new_active;
}

// The restorations left, one after another as queued; the assign cost of
// what is initialising was part of the first estimate and is not paid again.
std::optional<Duration> StreamsMember::remaining_init() const {
  const Time now = ctx_.kernel.now();
  Time restored = now;
  for (const auto& [t, at] : caught_up_at_) restored = std::max(restored, at);
  return restored - now;
}

void StreamsMember::start_seeded(const std::string& member_id, int epoch, const Units& units) {
  for (const auto& u : units) ctx_.state.seed(identity_.process_id, u.task);
  start_stable(member_id, epoch, units);
}

void StreamsMember::released(const Units& units) {
  const Time now = ctx_.kernel.now();
  for (const auto& u : units) {
    ctx_.state.release(identity_.process_id, u.task, now);
    if (u.role == Role::Active) caught_up_at_.erase(u.task);
  }
}

}  // namespace rsim::protocols::streams
