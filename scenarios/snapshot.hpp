// Group snapshots: one assignor call's input, as JSON or YAML
// (scenario-format.md, "Group snapshots"). Validated like scenario files.
#pragma once

#include "protocols/assignors/assignor.hpp"
#include "protocols/streams/assignor.hpp"

#include <optional>
#include <string>

namespace rsim::scenario {

struct Snapshot {
  std::optional<std::string> assignor;
  protocols::GroupSnapshot group;
};

Snapshot load_snapshot_file(const std::string& path);
Snapshot load_snapshot_text(const std::string& text, const std::string& file);

// A Streams group (KIP-1071) for the task assignor:
//   {"assignor": "sticky", "num_standby_replicas": 1,
//    "subtopologies": {"0": {"tasks": 3, "stateful": true}},
//    "members": [{"id": "m1", "process": "p1", "instance_id": "i1", "rack": "r1",
//                 "active": ["0_1"], "standby": [], "warmup": [], "task_offsets": {"0_1": 42},
//                 "client_tags": {"zone": "a"}}]}
// Tasks are written SUBTOPOLOGY_PARTITION and must be tasks of the topology;
// num_standby_replicas is 0..group.streams.max.standby.replicas (2).
struct StreamsSnapshot {
  std::optional<std::string> assignor;
  protocols::streams::TopologyDescriber topology;
  protocols::streams::StreamsGroupSpec group;
  std::vector<std::string> member_order;  // as listed, for printing
};

StreamsSnapshot load_streams_snapshot_file(const std::string& path);
StreamsSnapshot load_streams_snapshot_text(const std::string& text, const std::string& file);

}  // namespace rsim::scenario
