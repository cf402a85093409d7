#include "scenarios/member_config.hpp"

#include "scenarios/resources.hpp"
#include "scenarios/config_keys.hpp"
#include "scenarios/values.hpp"

#include <fmt/format.h>

namespace rsim::scenario {

namespace cl = protocols::classic;

namespace {

// A Connect worker's rebalance timeout (rebalance.timeout.ms) is also its
// poll deadline; it has no max.poll.interval.ms.
const char* poll_deadline_key(const Scenario& s) {
  return s.connectors.empty() ? "max.poll.interval.ms" : "rebalance.timeout.ms";
}

// The initial assignment's resources of `member`, by the names the loader
// already checked.
std::vector<protocols::TopicPartition> initially_assigned(const Scenario& s, const ResourceIndex& index,
                                                          const std::string& member) {
  std::vector<protocols::TopicPartition> out;
  auto it = s.initial_assignment->find(member);
  if (it == s.initial_assignment->end()) return out;
  for (const auto& n : it->second) out.push_back(topic_partition(index, n));
  return out;
}

}  // namespace

std::vector<std::string> resources_of(const Scenario& s, const std::vector<std::string>& subscribe) {
  if (!subscribe.empty() || s.connectors.empty()) return subscribe;
  std::vector<std::string> all;
  for (const auto& c : s.connectors) all.push_back(protocols::Topic::connector(c.name).name());
  return all;
}

cl::MemberConfig member_config(const Scenario& s, const MemberSpec& spec) {
  cl::MemberConfig c;
  c.client_id = spec.id;
  c.instance_id = spec.instance_id;
  c.topics = resources_of(s, spec.subscribe);
  c.session_timeout = config_millis(s, "session.timeout.ms");
  c.heartbeat_interval = config_millis(s, "heartbeat.interval.ms");
  c.rebalance_timeout = config_millis(s, poll_deadline_key(s));
  c.max_poll_interval = config_millis(s, poll_deadline_key(s));
  c.metadata_max_age = config_millis(s, "metadata.max.age.ms");
  c.request_timeout = config_millis(s, "request.timeout.ms");
  c.retry_backoff = config_millis(s, "retry.backoff.ms");
  c.retry_backoff_max = config_millis(s, "retry.backoff.max.ms");
  c.revoke_cost = s.costs.revoke;
  c.assign_cost = s.costs.assign;
  c.parallel = !s.connectors.empty();  // Connect workers
  for (const auto& con : s.connectors) {
    const std::string topic = protocols::Topic::connector(con.name).name();
    if (con.revoke_cost) c.revoke_cost_of_topic[topic] = *con.revoke_cost;
    if (con.assign_cost) c.assign_cost_of_topic[topic] = *con.assign_cost;
  }
  return c;
}

protocols::HostConfig host_config(const Scenario& s) {
  protocols::HostConfig c;
  c.classic.initial_rebalance_delay = config_millis(s, "group.initial.rebalance.delay.ms");
  c.consumer.session_timeout = config_millis(s, "group.consumer.session.timeout.ms");
  c.consumer.heartbeat_interval = config_millis(s, "group.consumer.heartbeat.interval.ms");
  c.migration_policy = config_text(s, "group.consumer.migration.policy");
  c.streams.session_timeout = config_millis(s, "group.streams.session.timeout.ms");
  c.streams.heartbeat_interval = config_millis(s, "group.streams.heartbeat.interval.ms");
  c.streams.initial_rebalance_delay = config_millis(s, "group.streams.initial.rebalance.delay.ms");
  c.streams.num_standby_replicas = static_cast<int>(config_integer(s, "num.standby.replicas"));
  c.group_id = config_text(s, "group.id");
  if (c.group_id.empty()) c.group_id = s.name;
  c.max_batch_bytes = static_cast<std::size_t>(config_integer(s, "message.max.bytes"));
  return c;
}

cl::StrategySettings strategy_settings(const Scenario& s) {
  cl::StrategySettings settings;
  settings.max_delay = config_millis(s, "scheduled.rebalance.max.delay.ms");
  settings.max_moves = static_cast<int>(config_integer(s, "incremental.max.moves.per.round"));
  settings.round_interval = config_millis(s, "incremental.round.interval.ms");
  return settings;
}

cl::SeedMember classic_seed(const Scenario& s, const ResourceIndex& index, const MemberSpec& spec,
                            const cl::EmbeddedProtocol& strategy, const protocols::Assignor& assignor) {
  cl::SeedMember seed;
  seed.member_id = fmt::format("{}-0", spec.id);
  seed.assignment.partitions = initially_assigned(s, index, spec.id);
  seed.join.client_id = spec.id;
  seed.join.instance_id = spec.instance_id;
  seed.join.session_timeout = config_millis(s, "session.timeout.ms");
  seed.join.rebalance_timeout = config_millis(s, poll_deadline_key(s));
  seed.join.subscription = strategy.subscription(assignor, resources_of(s, spec.subscribe), seed.assignment.partitions,
                                                 seed.assignment.partitions, 1);
  return seed;
}

protocols::consumer::MemberView consumer_seed(const Scenario& s, const ResourceIndex& index, const MemberSpec& spec) {
  protocols::consumer::MemberView v;
  v.member_id = fmt::format("{}-0", spec.id);
  v.client_id = spec.id;
  v.instance_id = spec.instance_id;
  v.topics = resources_of(s, spec.subscribe);
  v.rebalance_timeout = config_millis(s, "max.poll.interval.ms");
  for (const auto& tp : initially_assigned(s, index, spec.id)) v.assigned.insert(tp);
  return v;
}

}  // namespace rsim::scenario
