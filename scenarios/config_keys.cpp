#include "scenarios/config_keys.hpp"

#include <cassert>
#include <chrono>

namespace rsim::scenario {

using namespace std::chrono_literals;

const std::vector<ConfigKey>& config_keys() {
  static const std::vector<ConfigKey> kKeys{
      {"session.timeout.ms", ConfigKind::Millis, "classic member session timeout (consumer 45000, Connect 10000)"},
      {"heartbeat.interval.ms", ConfigKind::Millis, "classic heartbeat interval (3000)"},
      {"max.poll.interval.ms", ConfigKind::Millis, "consumer poll deadline, also its rebalance timeout (300000)"},
      {"rebalance.timeout.ms", ConfigKind::Millis, "Connect worker rebalance timeout (60000)"},
      {"request.timeout.ms", ConfigKind::Millis, "client request timeout (30000)"},
      {"metadata.max.age.ms", ConfigKind::Millis, "client metadata refresh interval (300000)"},
      {"retry.backoff.ms", ConfigKind::Millis, "client retry backoff (100)"},
      {"retry.backoff.max.ms", ConfigKind::Millis, "client retry backoff cap (1000)"},
      {"group.initial.rebalance.delay.ms", ConfigKind::Millis, "broker: delay of a new group's first rebalance (3000)"},
      {"group.min.session.timeout.ms", ConfigKind::Millis, "broker: lowest session timeout accepted (6000)"},
      {"group.max.session.timeout.ms", ConfigKind::Millis, "broker: highest session timeout accepted (1800000)"},
      {"group.max.size", ConfigKind::Integer, "broker: classic group size limit (unlimited)"},
      {"scheduled.rebalance.max.delay.ms", ConfigKind::Millis, "deferred/incremental/connect: how long lost work is held (300000)"},
      {"incremental.max.moves.per.round", ConfigKind::Integer, "incremental: resources moved per round (1)"},
      {"incremental.round.interval.ms", ConfigKind::Millis, "incremental: time between rounds (10000)"},
      {"group.consumer.session.timeout.ms", ConfigKind::Millis, "KIP-848 session timeout (45000)"},
      {"group.consumer.heartbeat.interval.ms", ConfigKind::Millis, "KIP-848 heartbeat interval (5000)"},
      {"group.consumer.migration.policy", ConfigKind::Text, "KIP-848 online migration policy (bidirectional)"},
      {"group.streams.session.timeout.ms", ConfigKind::Millis, "KIP-1071 session timeout (45000)"},
      {"group.streams.heartbeat.interval.ms", ConfigKind::Millis, "KIP-1071 heartbeat interval (5000)"},
      {"group.streams.initial.rebalance.delay.ms", ConfigKind::Millis, "KIP-1071 initial rebalance delay (3000)"},
      {"num.standby.replicas", ConfigKind::Integer, "streams standby replicas per stateful task (0)"},
      {"max.warmup.replicas", ConfigKind::Integer, "streams warm-up replicas in flight (2)"},
      {"acceptable.recovery.lag", ConfigKind::Integer, "streams: a client within this many records is caught up (10000)"},
      {"probing.rebalance.interval.ms", ConfigKind::Millis, "streams probing rebalance interval (600000)"},
  };
  return kKeys;
}

const ConfigKey* find_config_key(std::string_view name) {
  for (const auto& k : config_keys())
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string_view> config_key_names() {
  std::vector<std::string_view> names;
  for (const auto& k : config_keys()) names.push_back(k.name);
  return names;
}

namespace {
Duration default_millis(const Scenario& s, std::string_view key) {
  const bool connect = !s.connectors.empty();
  if (key == "session.timeout.ms") return connect ? Duration{10s} : Duration{45s};
  if (key == "heartbeat.interval.ms") return 3s;
  if (key == "max.poll.interval.ms") return 300s;
  if (key == "rebalance.timeout.ms") return 60s;
  if (key == "request.timeout.ms") return 30s;
  if (key == "metadata.max.age.ms") return 300s;
  if (key == "retry.backoff.ms") return 100ms;
  if (key == "retry.backoff.max.ms") return 1s;
  if (key == "group.initial.rebalance.delay.ms") return 3s;
  if (key == "group.min.session.timeout.ms") return 6s;
  if (key == "group.max.session.timeout.ms") return 1800s;
  if (key == "scheduled.rebalance.max.delay.ms") return 300s;
  if (key == "incremental.round.interval.ms") return 10s;
  if (key == "group.consumer.session.timeout.ms") return 45s;
  if (key == "group.consumer.heartbeat.interval.ms") return 5s;
  if (key == "group.streams.session.timeout.ms") return 45s;
  if (key == "group.streams.heartbeat.interval.ms") return 5s;
  if (key == "group.streams.initial.rebalance.delay.ms") return 3s;
  if (key == "probing.rebalance.interval.ms") return 600s;
  assert(false && "no default for this key");
  return Duration{0};
}

std::int64_t default_integer(std::string_view key) {
  if (key == "group.max.size") return INT32_MAX;
  if (key == "incremental.max.moves.per.round") return 1;
  if (key == "num.standby.replicas") return 0;
  if (key == "max.warmup.replicas") return 2;
  if (key == "acceptable.recovery.lag") return 10000;
  assert(false && "no default for this key");
  return 0;
}
}  // namespace

Duration config_millis(const Scenario& s, std::string_view key) {
  assert(find_config_key(key) != nullptr && find_config_key(key)->kind == ConfigKind::Millis);
  auto it = s.config.find(std::string(key));
  if (it != s.config.end()) return std::get<Duration>(it->second.value);
  return default_millis(s, key);
}

std::int64_t config_integer(const Scenario& s, std::string_view key) {
  assert(find_config_key(key) != nullptr && find_config_key(key)->kind == ConfigKind::Integer);
  auto it = s.config.find(std::string(key));
  if (it != s.config.end()) return std::get<std::int64_t>(it->second.value);
  return default_integer(key);
}

std::string config_text(const Scenario& s, std::string_view key) {
  assert(find_config_key(key) != nullptr && find_config_key(key)->kind == ConfigKind::Text);
  auto it = s.config.find(std::string(key));
  if (it != s.config.end()) return std::get<std::string>(it->second.value);
  assert(key == "group.consumer.migration.policy" && "no default for this key");
  return "bidirectional";
}

}  // namespace rsim::scenario
