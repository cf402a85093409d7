// The Kafka config names a scenario may set under `config:`, their value
// kinds, and Kafka's defaults (../shared/reference/, section 0).
#pragma once

#include "scenarios/scenario.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace rsim::scenario {

enum class ConfigKind { Millis, Integer, Number, Text };

struct ConfigKey {
  std::string_view name;
  ConfigKind kind;
  std::string_view doc;
  ConfigValue kafka_default;                 // Kafka's default
  std::optional<ConfigValue> connect_default;  // a Connect worker's, where it differs
  std::string_view used_by = {};               // which protocols read it
};

const std::vector<ConfigKey>& config_keys();
const ConfigKey* find_config_key(std::string_view name);
std::vector<std::string_view> config_key_names();

// Every key with its default, unit, who uses it and what it means (`list
// --config`): aligned text, or a Markdown table (docs/config-reference.md).
std::string config_reference(bool markdown);

// The value in effect: the scenario's, else Kafka's default for this kind of
// group (Connect defaults when the scenario has connectors).
Duration config_millis(const Scenario& s, std::string_view key);
std::int64_t config_integer(const Scenario& s, std::string_view key);
std::string config_text(const Scenario& s, std::string_view key);

}  // namespace rsim::scenario
