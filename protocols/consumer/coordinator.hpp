// The KIP-848 group coordinator for `consumer` groups: the epoch-group core
// (protocols/epoch/) over topic-partitions, EpochGroup<Partitions>, plus
// what is the consumer protocol's own: subscriptions and the subscribed
// topics' metadata, the server-side assignor, ConsumerGroupHeartbeat, and
// classic members of a consumer group (online migration, classic_bridge.cpp).
// Facts: ../shared/reference/ section 6.
#pragma once

#include "protocols/assignors/assignor.hpp"
#include "protocols/assignors/server.hpp"
#include "protocols/classic/messages.hpp"
#include "protocols/consumer/messages.hpp"
#include "protocols/consumer/partitions.hpp"
#include "sim/kernel.hpp"
#include "sim/trace.hpp"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace rsim::protocols::consumer {

struct CoordinatorConfig {
  Duration session_timeout = std::chrono::seconds(45);     // group.consumer.session.timeout.ms
  Duration heartbeat_interval = std::chrono::seconds(5);   // group.consumer.heartbeat.interval.ms
  std::string group_id = "group";
};

class ConsumerCoordinator final : public classic::ClassicEndpoint, public epoch::EpochGroup<Partitions> {
 public:
  ConsumerCoordinator(Kernel& kernel, Trace& trace, const Metadata& cluster, const Assignor& assignor,
                      CoordinatorConfig config);

  void handle_heartbeat(HeartbeatRequest req, Reply<HeartbeatResponse> reply);

  // Classic members of a consumer group (online migration): a JoinGroup is
  // answered at once with the member's epoch as its generation (nobody waits
  // for anybody), SyncGroup returns what the member may own now, and a
  // heartbeat answers REBALANCE_IN_PROGRESS while the member has something
  // to revoke or to get, so it rejoins and moves one step.
  void handle_join(classic::JoinGroupRequest req, classic::Reply<classic::JoinGroupResponse> reply) override;
  void handle_sync(classic::SyncGroupRequest req, classic::Reply<classic::SyncGroupResponse> reply) override;
  void handle_heartbeat(classic::HeartbeatRequest req, classic::Reply<classic::HeartbeatResponse> reply) override;
  void handle_leave(classic::LeaveGroupRequest req) override;

  // The conversion of a classic group (its members and their assignments at
  // `generation`) when a member speaking this protocol joins it.
  void adopt_classic_group(int generation, const std::vector<MemberView>& members);

  // Called when a member leaves or is fenced and every member left speaks
  // the classic protocol (the group may turn classic again).
  void on_classic_only(std::function<void()> hook) { classic_only_ = std::move(hook); }

  std::vector<epoch::CoordinatorRecord> coordinator_records(const Record& r, bool json) const override;

 private:
  Metadata group_metadata() const override;
  std::optional<Targets> assign() override;
  // The members in the coordinator's iteration order, each with its current
  // target (null: none yet).
  // A member, its current target (null: none) and that target's kept list
  // (null: not kept).
  struct Listed {
    const MemberView* member;
    const Partitions::Assignment* target;
    const epoch::SharedList<TopicPartition>* target_list;
  };
  std::vector<Listed> in_iteration_order() const;
  GroupSnapshot snapshot() const;  // for an assignor that takes a snapshot (a plug-in)
  GroupSpec spec();                // for a built-in server assignor
  // A subscription as a shared list: one per distinct list of names.
  TopicNames intern(const std::vector<std::string>& topics);
  TopicNames intern_requested(const TopicNames& requested);
  Duration session_timeout_of(const MemberView& m) const override;
  void on_member_removed() override { notice_classic_only(); }
  void on_member_stored(const MemberView& m) override { count_subscription(m.topics, 1); }
  void on_member_erasing(const MemberView& m) override { count_subscription(m.topics, -1); }
  void on_members_reloaded() override;
  void count_subscription(const TopicNames& topics, int members);

  Found member_for(const HeartbeatRequest& req);
  Found join(const HeartbeatRequest& req);
  // What a heartbeat tells about its member (the id is the group's to give;
  // the subscription is interned by the caller).
  static MemberView member_from(const HeartbeatRequest& req);
  void resubscribe(MemberView& m, TopicNames topics);  // `topics` interned
  void notice_classic_only();
  bool metadata_changed() const;

  // The classic bridge (classic_bridge.cpp).
  std::optional<classic::JoinGroupResponse> refuse_join(const classic::JoinGroupRequest& req, bool known, bool pending,
                                                        bool instance_taken);
  std::string take_over_static(MemberView& old, const classic::JoinGroupRequest& req);
  std::string join_classic(const classic::JoinGroupRequest& req);

  bool metadata_walk_changed() const;

  const Metadata& cluster_;
  const Assignor& assignor_;
  CoordinatorConfig config_;
  std::function<void()> classic_only_;
  std::set<std::string> pending_classic_;  // ids given with MEMBER_ID_REQUIRED, not joined yet
  std::map<std::vector<std::string>, TopicNames> subscriptions_;  // intern's lists, pruned when unused
  // A request's list -> interned; never iterated in an order that shows.
  std::unordered_map<std::shared_ptr<const TopicNames::List>, TopicNames> requested_;
  // The topics spec() resolved for the last target, kept while they stay:
  // the metadata (rebuilt when a subscribed topic or its partition count
  // changes) and each subscription's handles, by its list of existing
  // topics (held, so its address stays its own). Kafka's coordinator
  // resolves topic ids once, not at every epoch (issue 16).
  struct ResolvedTopics {
    using Handles = std::shared_ptr<const std::vector<Topic>>;
    std::map<std::string, int> partitions_by_topic;
    std::shared_ptr<const TopicMetadata> metadata;
    std::map<const TopicNames::List*, std::pair<std::shared_ptr<const TopicNames::List>, Handles>> handles;
  };
  ResolvedTopics resolved_;
  // The members holding each subscription list (the list held, so its
  // address stays its own), as Kafka's ConsumerGroup counts subscribers
  // per topic name (subscribedTopicNames): a new group epoch reads the
  // metadata of the lists held instead of walking every member (4% of the
  // 10,000-member stretch, issue 16). Kept by the member hooks above and by
  // the two places a stored member resubscribes (resubscribe,
  // take_over_static); iterated by address, into a map by name only.
  std::map<const TopicNames::List*, std::pair<std::shared_ptr<const TopicNames::List>, int>> subscribed_lists_;
};

}  // namespace rsim::protocols::consumer
