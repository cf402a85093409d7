// `--set KEY=VALUE`: a value written into the scenario file's text before the
// loader reads it, so the loader's validation (and its FILE:LINE:COLUMN
// messages) judges a set value exactly as if the user had typed it there.
//
// KEY is a dotted path into the YAML: `duration`, `members.count`,
// `config.session.timeout.ms` (a config name is one key, dots and all),
// `network.latency`, `topics.0.partitions` or `topics.orders.partitions` (a
// list item by index, or by its `id` / `name`). An existing single-line
// value is replaced where it stands; a missing key is added to its map (or
// the map to the file), where the loader then judges the key too.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace rsim::sweep {

// A bad option of sweep, compare --seeds or merge (a --set before or after
// the loader too): the message names the option. Exit code 2.
struct OptionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One `--set KEY=v1,v2,..`.
struct SetOption {
  std::string key;
  std::vector<std::string> values;
};

// Parses "KEY=v1,v2,.."; throws OptionError.
SetOption parse_set(const std::string& text);

// `text` (the file `file`) with KEY set to VALUE; throws OptionError when the
// path runs into something that is not a map, list item or one-line value.
std::string set_value(const std::string& text, const std::string& file, const std::string& key,
                      const std::string& value);

}  // namespace rsim::sweep
