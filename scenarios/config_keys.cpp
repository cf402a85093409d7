#include "scenarios/config_keys.hpp"

#include <fmt/format.h>

#include <cassert>
#include <chrono>

namespace rsim::scenario {

using namespace std::chrono_literals;

const std::vector<ConfigKey>& config_keys() {
  using I = std::int64_t;
  // Kafka's defaults (../shared/reference/, section 0): the one place they are written.
  static const std::vector<ConfigKey> kKeys{
      {"session.timeout.ms", ConfigKind::Millis, "classic member session timeout (consumer 45000, Connect 10000)", Duration{45s}, Duration{10s}, "classic protocols; classic members of a consumer group"},
      {"heartbeat.interval.ms", ConfigKind::Millis, "classic heartbeat interval (3000)", Duration{3s}, std::nullopt, "classic protocols; classic members of a consumer group"},
      {"max.poll.interval.ms", ConfigKind::Millis, "consumer poll deadline, also its rebalance timeout (300000)", Duration{300s}, std::nullopt, "every protocol (the member's rebalance timeout too)"},
      {"rebalance.timeout.ms", ConfigKind::Millis, "Connect worker rebalance timeout (60000)", Duration{60s}, std::nullopt, "connect"},
      {"request.timeout.ms", ConfigKind::Millis, "client request timeout (30000)", Duration{30s}, std::nullopt, "every protocol"},
      {"metadata.max.age.ms", ConfigKind::Millis, "client metadata refresh interval (300000)", Duration{300s}, std::nullopt, "classic protocols, consumer"},
      {"retry.backoff.ms", ConfigKind::Millis, "client retry backoff (100)", Duration{100ms}, std::nullopt, "every protocol"},
      {"retry.backoff.max.ms", ConfigKind::Millis, "client retry backoff cap (1000)", Duration{1s}, std::nullopt, "every protocol"},
      {"group.initial.rebalance.delay.ms", ConfigKind::Millis, "broker: delay of a new group's first rebalance (3000)", Duration{3s}, std::nullopt, "classic protocols"},
      {"group.min.session.timeout.ms", ConfigKind::Millis, "broker: lowest session timeout accepted (6000)", Duration{6s}, std::nullopt, "classic protocols"},
      {"group.max.session.timeout.ms", ConfigKind::Millis, "broker: highest session timeout accepted (1800000)", Duration{1800s}, std::nullopt, "classic protocols"},
      {"group.max.size", ConfigKind::Integer, "broker: classic group size limit (unlimited)", I{INT32_MAX}, std::nullopt, "classic protocols"},
      {"scheduled.rebalance.max.delay.ms", ConfigKind::Millis, "deferred/incremental/connect: how long lost work is held (300000)", Duration{300s}, std::nullopt, "deferred, incremental, connect"},
      {"incremental.max.moves.per.round", ConfigKind::Integer, "incremental: resources moved per round (1)", I{1}, std::nullopt, "incremental"},
      {"incremental.round.interval.ms", ConfigKind::Millis, "incremental: time between rounds (10000)", Duration{10s}, std::nullopt, "incremental"},
      {"group.consumer.session.timeout.ms", ConfigKind::Millis, "KIP-848 session timeout (45000)", Duration{45s}, std::nullopt, "consumer"},
      {"group.consumer.heartbeat.interval.ms", ConfigKind::Millis, "KIP-848 heartbeat interval (5000)", Duration{5s}, std::nullopt, "consumer"},
      {"group.consumer.migration.policy", ConfigKind::Text, "KIP-848 online migration policy (bidirectional)", std::string("bidirectional"), std::nullopt, "consumer (online migration)"},
      {"group.id", ConfigKind::Text, "the group's id, the key of its records (default: the scenario's name)", std::string(""), std::nullopt, "consumer, streams (the records)"},
      {"message.max.bytes", ConfigKind::Integer, "broker: largest record batch; a bigger target assignment batch is flagged (1048588)", I{1048588}, std::nullopt, "consumer, streams (the records)"},
      {"group.streams.session.timeout.ms", ConfigKind::Millis, "KIP-1071 session timeout (45000)", Duration{45s}, std::nullopt, "streams"},
      {"group.streams.heartbeat.interval.ms", ConfigKind::Millis, "KIP-1071 heartbeat interval (5000)", Duration{5s}, std::nullopt, "streams"},
      {"group.streams.initial.rebalance.delay.ms", ConfigKind::Millis, "KIP-1071 initial rebalance delay (3000)", Duration{3s}, std::nullopt, "streams"},
      {"num.standby.replicas", ConfigKind::Integer, "streams standby replicas per stateful task (0)", I{0}, std::nullopt, "streams; eager, cooperative (a Streams application)"},
      {"max.warmup.replicas", ConfigKind::Integer, "streams warm-up replicas in flight (2)", I{2}, std::nullopt, "eager, cooperative (a Streams application)"},
      {"acceptable.recovery.lag", ConfigKind::Integer, "streams: a client within this many records is caught up (10000)", I{10000}, std::nullopt, "eager, cooperative (a Streams application)"},
      {"probing.rebalance.interval.ms", ConfigKind::Millis, "streams probing rebalance interval (600000)", Duration{600s}, std::nullopt, "eager, cooperative (a Streams application)"},
      {"state.cleanup.delay.ms", ConfigKind::Millis, "streams: local state of a task nobody on the machine has had for this long is deleted (600000)", Duration{600s}, std::nullopt, "streams; eager, cooperative (a Streams application)"},
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

std::string default_text(const ConfigValue& v) {
  if (const auto* d = std::get_if<Duration>(&v)) return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(*d).count());
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i == INT32_MAX ? std::string("unlimited") : std::to_string(*i);
  if (const auto* x = std::get_if<double>(&v)) return fmt::format("{}", *x);
  const auto& t = std::get<std::string>(v);
  return t.empty() ? std::string("-") : t;
}

const char* unit_of(ConfigKind kind) { return kind == ConfigKind::Millis ? "ms" : ""; }

}  // namespace

std::string config_reference(bool markdown) {
  std::string out;
  if (markdown)
    out += "| key | default | unit | used by | meaning |\n|---|---|---|---|---|\n";
  else
    out += fmt::format("{:<42} {:>24} {:<4} {:<56} {}\n", "key", "default", "unit", "used by", "meaning");
  for (const auto& k : config_keys()) {
    std::string def = default_text(k.kafka_default);
    if (k.connect_default) def += fmt::format(" (Connect: {})", default_text(*k.connect_default));
    if (markdown)
      out += fmt::format("| `{}` | {} | {} | {} | {} |\n", k.name, def, unit_of(k.kind), k.used_by, k.doc);
    else
      out += fmt::format("{:<42} {:>24} {:<4} {:<56} {}\n", k.name, def, unit_of(k.kind), k.used_by, k.doc);
  }
  return out;
}

namespace {
// The value in effect for `key`: the scenario's, else the default for its
// kind of group.
const ConfigValue& effective(const Scenario& s, std::string_view key) {
  auto it = s.config.find(std::string(key));
  if (it != s.config.end()) return it->second.value;
  const ConfigKey* k = find_config_key(key);
  assert(k != nullptr && "not a config key");
  if (!s.connectors.empty() && k->connect_default) return *k->connect_default;
  return k->kafka_default;
}
}  // namespace

Duration config_millis(const Scenario& s, std::string_view key) { return std::get<Duration>(effective(s, key)); }

std::int64_t config_integer(const Scenario& s, std::string_view key) { return std::get<std::int64_t>(effective(s, key)); }

std::string config_text(const Scenario& s, std::string_view key) { return std::get<std::string>(effective(s, key)); }

}  // namespace rsim::scenario
