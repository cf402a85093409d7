// Encoded sizes of StreamsGroupHeartbeat (KIP-1071, API key 88, version 0,
// flexible) request and response, for the `protocol-bytes` metric. As for
// ConsumerGroupHeartbeat (protocols/consumer/wire_size.hpp), fields go only
// when they changed: the topology and the process id when joining, the
// owned tasks when reported, the assignment when new. Changelog topics are
// named STORE-changelog (Kafka prefixes the application id).
#pragma once

#include "protocols/streams/messages.hpp"
#include "protocols/streams/topology.hpp"

#include <cstddef>

namespace rsim::protocols::streams {

// `topology`: set when the request carries it (joining).
std::size_t request_size(const HeartbeatRequest& r, const Topology* topology);
std::size_t response_size(const HeartbeatResponse& r, bool with_tasks);

}  // namespace rsim::protocols::streams
