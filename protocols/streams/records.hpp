// A Streams group's records as Kafka writes them (group-coordinator
// StreamsGroup*Key/Value, record types 17 and 19 to 23; the schemas of
// Kafka 4.2): what each record of the epoch core's log
// (Record<StreamsTasks>) is in __consumer_offsets. A group epoch record is
// StreamsGroupMetadata, preceded at the group's creation by
// StreamsGroupTopology. The KIP's StreamsGroupPartitionMetadata record was
// replaced in Kafka by the MetadataHash of StreamsGroupMetadata (KIP-1101).
#pragma once

#include "protocols/epoch/coordinator_record.hpp"
#include "protocols/streams/group.hpp"
#include "protocols/streams/topology.hpp"

#include <string>
#include <vector>

namespace rsim::protocols::streams {

struct RecordContext {
  std::string group_id;
  const Topology* topology = nullptr;
  int num_standby_replicas = 0;  // AssignmentConfigs of StreamsGroupMetadata
  int creation_epoch = 1;        // the group epoch record preceded by StreamsGroupTopology
};

std::vector<epoch::CoordinatorRecord> coordinator_records(const Record& record, const RecordContext& ctx, bool json);

}  // namespace rsim::protocols::streams
