// A consumer group's records as Kafka 4.1 writes them (group-coordinator
// ConsumerGroup*Key/Value, record types 3 and 5 to 8): what each record of
// the epoch core's log (Record<Partitions>) is in __consumer_offsets.
#pragma once

#include "protocols/consumer/partitions.hpp"
#include "protocols/epoch/coordinator_record.hpp"

#include <string>
#include <vector>

namespace rsim::protocols::consumer {

struct RecordContext {
  std::string group_id;
  std::string server_assignor;  // ServerAssignor of the member records
};

std::vector<epoch::CoordinatorRecord> coordinator_records(const Record& record, const RecordContext& ctx, bool json);

}  // namespace rsim::protocols::consumer
