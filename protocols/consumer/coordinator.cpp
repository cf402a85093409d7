#include "protocols/consumer/coordinator.hpp"

#include "protocols/consumer/records.hpp"

#include "protocols/assignors/java_order.hpp"
#include "protocols/assignors/server.hpp"

#include <algorithm>

namespace rsim::protocols::consumer {

ConsumerCoordinator::ConsumerCoordinator(Kernel& kernel, Trace& trace, const Metadata& cluster,
                                         const Assignor& assignor, CoordinatorConfig config)
    : EpochGroup(kernel, trace, config.session_timeout), cluster_(cluster), assignor_(assignor), config_(config) {}

// The subscribed topics' counts, from the subscription lists members hold
// (each read once; the coordinator interns subscriptions, so members
// subscribing alike share one list).
Metadata ConsumerCoordinator::group_metadata() const {
  Metadata out;
  for (const auto& [key, held] : subscribed_lists_)
    for (const auto& t : *held.first)
      if (auto it = cluster_.find(t); it != cluster_.end()) out[t] = it->second;
  return out;
}

void ConsumerCoordinator::count_subscription(const TopicNames& topics, int members) {
  if (topics.shared() == nullptr || topics.empty()) return;  // subscribes to nothing
  auto& [held, count] = subscribed_lists_[topics.shared().get()];
  if (held == nullptr) held = topics.shared();
  count += members;
  if (count < 0) throw std::logic_error("consumer coordinator: a subscription counted below zero");
  if (count == 0) subscribed_lists_.erase(topics.shared().get());
}

void ConsumerCoordinator::on_members_reloaded() {
  subscribed_lists_.clear();
  for (const auto& [id, m] : state_.members) count_subscription(m.topics, 1);
}

// Equal subscriptions share one list. The table keeps each list it gave out
// (as its key, and shared); lists nobody holds any more (a member, or a
// request's list in intern_requested's table) are dropped when it grows past
// twice the number of members.
TopicNames ConsumerCoordinator::intern(const std::vector<std::string>& topics) {
  if (auto it = subscriptions_.find(topics); it != subscriptions_.end()) return it->second;
  if (subscriptions_.size() > 2 * state_.members.size() + 16)
    std::erase_if(subscriptions_, [](const auto& e) { return e.second.shared().use_count() == 1; });
  return subscriptions_.emplace(topics, TopicNames(topics)).first->second;
}

// A heartbeat's subscription, interned: looked up by the request's list
// first, the member's own object at every heartbeat until it resubscribes,
// so a heartbeat costs a pointer lookup instead of comparing every name
// (issue 16). A key is held, so its address is not reused while it is one;
// keys only the table holds are dropped as the intern table's are. A member
// process that is down or gone still holds its list, so the table is bounded
// by the member processes of the run, not by the group's members.
TopicNames ConsumerCoordinator::intern_requested(const TopicNames& requested) {
  const auto& key = requested.shared();
  if (key == nullptr) return intern(requested.list());
  if (auto it = requested_.find(key); it != requested_.end()) return it->second;
  if (requested_.size() > 2 * state_.members.size() + 16)
    std::erase_if(requested_, [](const auto& e) { return e.first.use_count() == 1; });
  return requested_.emplace(key, intern(requested.list())).first->second;
}

// Every heartbeat checks the subscribed topics' partition counts; the set of
// subscribed topics only changes with a new group epoch, which records it.
bool ConsumerCoordinator::metadata_changed() const {
  return metadata_differs([this] { return metadata_walk_changed(); });
}

// The check itself. Both maps are in name order: a subscribed topic is
// usually the cluster's next one, found with one comparison.
bool ConsumerCoordinator::metadata_walk_changed() const {
  auto c = cluster_.begin();
  for (const auto& [topic, count] : state_.subscribed_metadata) {
    if (c == cluster_.end() || c->first != topic) c = cluster_.lower_bound(topic);
    if (c == cluster_.end() || c->first != topic || c->second != count) return true;
    ++c;
  }
  return false;
}

Duration ConsumerCoordinator::session_timeout_of(const MemberView& m) const {
  return m.classic && m.session_timeout > Duration{0} ? m.session_timeout : config_.session_timeout;
}

ConsumerCoordinator::MemberView ConsumerCoordinator::member_from(const HeartbeatRequest& req) {
  MemberView m;
  m.client_id = req.client_id;
  m.instance_id = req.instance_id;
  m.rebalance_timeout = req.rebalance_timeout;
  return m;
}

void ConsumerCoordinator::resubscribe(MemberView& m, TopicNames topics) {
  if (m.topics.shared() == topics.shared()) return;
  const bool same = m.topics == topics;  // a list from the records (a replayed group): the same subscription
  count_subscription(m.topics, -1);
  m.topics = std::move(topics);
  count_subscription(m.topics, 1);
  if (same) return;
  write_member(m);
  bump_group_epoch("subscription changed");
}

void ConsumerCoordinator::notice_classic_only() {
  const bool classic_only =
      !state_.members.empty() &&
      std::all_of(state_.members.begin(), state_.members.end(), [](const auto& e) { return e.second.classic; });
  if (classic_only && classic_only_) classic_only_();
}

void ConsumerCoordinator::handle_heartbeat(HeartbeatRequest req, Reply<HeartbeatResponse> reply) {
  HeartbeatResponse resp;
  resp.heartbeat_interval = config_.heartbeat_interval;
  resp.member_id = req.member_id;
  if (leaving(req.member_epoch)) {
    resp.error = leave_heartbeat(req.member_id, req.member_epoch);
    if (resp.error == Error::None) resp.member_epoch = req.member_epoch;
    return reply(std::move(resp));
  }
  const auto [m, error] = member_for(req);
  if (error != Error::None) {
    resp.error = error;
    return reply(std::move(resp));
  }
  if (metadata_changed()) bump_group_epoch("topic metadata changed");  // a new epoch: no member added or removed
  const MemberView& member = advance(*m, req.owned);
  resp.member_id = member.member_id;
  resp.member_slot = slot_of(member.member_id);
  resp.member_epoch = member.epoch;
  resp.assignment = answer_of(member);
  reply(std::move(resp));
}

// The member a heartbeat is from: a new one (epoch 0), a static member back
// with its instance id, or a known one at a valid epoch (whose subscription
// may have changed).
ConsumerCoordinator::Found ConsumerCoordinator::member_for(const HeartbeatRequest& req) {
  if (req.member_epoch == kJoinEpoch) return join(req);
  MemberView* m = find_member(req.member_id, req.member_slot);
  if (m == nullptr) return {nullptr, Error::UnknownMemberId};
  if (!epoch_valid(*m, req.member_epoch, req.owned)) return {nullptr, Error::FencedMemberEpoch};
  resubscribe(*m, intern_requested(req.topics));
  return {m, Error::None};
}

// A static member back with its instance id: both speak the consumer
// protocol, so the old one must have left (-2).
ConsumerCoordinator::Found ConsumerCoordinator::join(const HeartbeatRequest& req) {
  MemberView view = member_from(req);
  view.topics = intern_requested(req.topics);
  MemberView* m = join_member(req.member_id, req.client_id, std::move(view));
  return {m, m != nullptr ? Error::None : Error::UnreleasedInstanceId};
}

// The server assignor, on the group spec Kafka builds: members iterated as a
// HashMap keyed by member id, each owning its current target. A built-in
// assignor gets a GroupSpec (members subscribing alike share one list);
// a plug-in, the snapshot it is sent.
namespace {

// A built-in assignor's list is in TopicPartition order without repeats:
// taken as it is instead of sorted again (a sort per member per target was
// a visible part of a large group's run, issue 16); anything else is sorted.
Partitions::Assignment as_assignment(const std::vector<TopicPartition>& list) {
  const bool increasing = std::adjacent_find(list.begin(), list.end(), [](const TopicPartition& a, const TopicPartition& b) {
                            return !(a < b);
                          }) == list.end();
  if (increasing) return Partitions::Assignment(boost::container::ordered_unique_range, list.begin(), list.end());
  return Partitions::Assignment(list.begin(), list.end());
}

}  // namespace

// Members in the coordinator's iteration order, each with its current
// target and that target's kept list. Members, targets and lists are all
// keyed by member id: one walk of the three maps instead of lookups per
// member.
std::vector<ConsumerCoordinator::Listed> ConsumerCoordinator::in_iteration_order() const {
  std::vector<Listed> by_id;
  std::vector<std::int32_t> hashes;
  by_id.reserve(state_.members.size());
  hashes.reserve(state_.members.size());
  auto target = state_.target.begin();
  auto list = target_lists().begin();
  for (const auto& [id, m] : state_.members) {
    int order = 1;  // of the target's id against the member's: one comparison a step
    while (target != state_.target.end() && (order = target->first.compare(id)) < 0) ++target;
    const bool has_target = target != state_.target.end() && order == 0;
    int list_order = 1;
    while (list != target_lists().end() && (list_order = list->first.compare(id)) < 0) ++list;
    const bool has_list = list != target_lists().end() && list_order == 0;
    by_id.push_back({&m, has_target ? &target->second : nullptr, has_target && has_list ? &list->second : nullptr});
    hashes.push_back(java::string_hash(id));
  }
  std::vector<Listed> out;
  out.reserve(by_id.size());
  for (auto i : java::iteration_order(hashes, java::capacity_for(by_id.size()))) out.push_back(by_id[i]);
  return out;
}

// The group as an assignor sees it: each member with its subscribed topics
// that exist and its current target.
GroupSnapshot ConsumerCoordinator::snapshot() const {
  GroupSnapshot g;
  g.generation = state_.group_epoch;  // the epoch the target is computed for
  const auto members = in_iteration_order();
  g.members.reserve(members.size());
  for (const auto& [m, current_target, list] : members) {
    MemberSubscription s;
    s.member_id = m->member_id;
    s.instance_id = m->instance_id;
    std::vector<std::string> topics;
    for (const auto& t : m->topics)
      if (cluster_.count(t) != 0) topics.push_back(t);
    s.topics = std::move(topics);
    if (current_target != nullptr) s.owned = as_list(*current_target);
    g.members.push_back(std::move(s));
  }
  for (const auto& s : g.members)
    for (const auto& t : s.topics) g.topics[t] = cluster_.at(t);
  return g;
}

namespace {

// The topics of a subscription that exist: the member's own shared list when
// they all do (no copy), else a filtered copy.
std::shared_ptr<const TopicNames::List> existing(const TopicNames& topics, const Metadata& cluster) {
  const auto missing = [&cluster](const std::string& t) { return cluster.count(t) == 0; };
  if (topics.shared() != nullptr && std::none_of(topics.begin(), topics.end(), missing)) return topics.shared();
  TopicNames::List out;
  std::copy_if(topics.begin(), topics.end(), std::back_inserter(out), [&](const std::string& t) { return !missing(t); });
  return std::make_shared<const TopicNames::List>(std::move(out));
}

}  // namespace

// What group_spec(snapshot()) would give, built from the interned
// subscriptions: a subscription's existing topics and their counts are read
// once per run of members holding the same list, not once per member; its
// handles and the metadata are the last target's while they stay.
GroupSpec ConsumerCoordinator::spec() {
  GroupSpec spec;
  const auto members = in_iteration_order();
  spec.members.reserve(members.size());
  std::map<std::string, int> partitions_by_topic;
  decltype(resolved_.handles) used;  // the handles this spec holds: the rest are dropped
  const TopicNames* last = nullptr;
  ResolvedTopics::Handles handles;
  for (const auto& [m, current_target, list] : members) {
    if (last == nullptr || !(*last == m->topics)) {
      auto names = existing(m->topics, cluster_);
      for (const auto& t : *names) partitions_by_topic.emplace(t, cluster_.at(t));
      const auto* key = names.get();
      if (const auto at = used.find(key); at != used.end()) {
        handles = at->second.second;
      } else {
        const auto kept = resolved_.handles.find(key);
        handles = kept != resolved_.handles.end() ? kept->second.second : topic_handles(*names);
        used.emplace(key, std::make_pair(std::move(names), handles));
      }
    }
    last = &m->topics;
    GroupSpec::Member s{m->member_id, m->instance_id, handles, nullptr};
    if (current_target != nullptr && !current_target->empty())
      s.assignment = (list != nullptr ? *list : keep_target_list(m->member_id, *current_target)).shared();
    spec.members.push_back(std::move(s));
  }
  if (resolved_.metadata == nullptr || partitions_by_topic != resolved_.partitions_by_topic) {
    resolved_.metadata = std::make_shared<const TopicMetadata>(partitions_by_topic);
    resolved_.partitions_by_topic = std::move(partitions_by_topic);
  }
  resolved_.handles = std::move(used);
  spec.topics = resolved_.metadata;
  spec.homogeneous = subscribed_alike(spec);
  return spec;
}

std::optional<ConsumerCoordinator::Targets> ConsumerCoordinator::assign() {
  Targets targets;
  try {
    if (const auto* server = dynamic_cast<const ServerAssignor*>(&assignor_)) {
      const auto spec = this->spec();
      const auto a = server->assign(spec);
      for (std::size_t i = 0; i < spec.members.size(); ++i) {
        // The list it was given, handed back: its target stays (most
        // members' at a new epoch; not listed: no copy of the id, no
        // comparison).
        const bool kept = a[i].is(spec.members[i].assignment);
        if (!kept) targets.emplace_back(spec.members[i].member_id, as_assignment(*a[i]));
      }
      return targets;
    }
    const GroupSnapshot g = snapshot();
    const auto a = assignor_.assign(g);
    for (const auto& s : g.members) {
      Partitions::Assignment target;
      if (auto it = a.find(s.member_id); it != a.end()) target.insert(it->second.begin(), it->second.end());
      targets.emplace_back(s.member_id, std::move(target));
    }
  } catch (const AssignorError& e) {
    emit("assignment-failed", {{"reason", std::string(e.what())}});
    return std::nullopt;
  }
  return targets;
}

void ConsumerCoordinator::adopt_classic_group(int generation, const std::vector<MemberView>& members) {
  emit("converted", {{"from", std::string("classic")}, {"epoch", generation}});
  continue_stable(generation);
  seed_stable(members, false);
}

std::vector<epoch::CoordinatorRecord> ConsumerCoordinator::coordinator_records(const Record& r, bool json) const {
  return consumer::coordinator_records(r, RecordContext{config_.group_id, std::string(assignor_.name())}, json);
}

}  // namespace rsim::protocols::consumer
