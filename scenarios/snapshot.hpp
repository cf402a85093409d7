// Group snapshots: one assignor call's input, as JSON or YAML
// (scenario-format.md, "Group snapshots"). Validated like scenario files.
#pragma once

#include "protocols/assignors/assignor.hpp"

#include <optional>
#include <string>

namespace rsim::scenario {

struct Snapshot {
  std::optional<std::string> assignor;
  protocols::GroupSnapshot group;
};

Snapshot load_snapshot_file(const std::string& path);
Snapshot load_snapshot_text(const std::string& text, const std::string& file);

}  // namespace rsim::scenario
