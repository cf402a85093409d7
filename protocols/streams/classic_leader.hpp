// The leader of a Kafka Streams application's classic group: Kafka Streams'
// StreamsPartitionAssignor (Apache Kafka 3.8.0, streams/.../processor/
// internals/StreamsPartitionAssignor.java) as an embedded protocol of the
// classic member (protocols/classic/embedded.hpp), eager (Streams before
// 2.4) or cooperative (2.4 and later).
//
// The leader groups the members by process (a client), reads each client's
// lags from its threads' SubscriptionInfo, runs the HighAvailabilityTask-
// Assignor over the clients (ha_assignor.hpp), then spreads each client's
// tasks over its threads (assign_tasks_to_threads). Under cooperative, an
// active task still owned by another thread is withheld until that thread
// has revoked it, and its new owner is asked for an immediate follow-up
// rebalance. When the assignor placed warm-ups, the first thread of the
// leader's client is asked for a probing rebalance
// probing.rebalance.interval.ms later.
//
// Not modelled: the leader's ListOffsets for the changelogs' end offsets
// (the lags are computed at once), repartition topic creation, version
// probing, the host maps of interactive queries, named topologies.
#pragma once

#include "protocols/classic/embedded.hpp"
#include "protocols/streams/ha_assignor.hpp"
#include "protocols/streams/topology.hpp"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace rsim::protocols::streams {

// StreamsPartitionAssignor.assignTasksToThreads: spreads one client's tasks
// over its threads (`consumers`, sorted), each thread first keeping the
// stateful tasks it had (least lag first) up to its balanced share.
// `thread_load` carries the counts across the calls for one client
// (stateful actives, then standbys, then stateless actives).
// Simplified: the leftover tasks are dealt in task order (Kafka iterates a
// PriorityQueue built from a HashSet, in its array order).
using PreviousTasks = std::function<std::vector<TaskId>(const std::string& consumer)>;
std::map<std::string, std::vector<TaskId>> assign_tasks_to_threads(const std::vector<TaskId>& tasks, bool stateful,
                                                                   const std::set<std::string>& consumers,
                                                                   const PreviousTasks& prev_tasks_by_lag,
                                                                   std::map<std::string, int>& thread_load);

std::unique_ptr<classic::EmbeddedProtocol> make_classic_streams_protocol(const Topology& topology,
                                                                         const ha::AssignmentConfigs& configs,
                                                                         bool cooperative, std::int64_t changelog_records);

}  // namespace rsim::protocols::streams
