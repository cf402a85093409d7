// Encoded sizes of ConsumerGroupHeartbeat (KIP-848, API key 68, version 1,
// flexible) request and response, for the `protocol-bytes` metric. The
// client sends a field only when it changed since the last request it sent
// (ConsumerHeartbeatRequestManager's sentFields): the subscription when it
// joins or changes, the owned partitions when it reports them; the
// coordinator sends the assignment only when it changed. Topics go by topic
// id (a 16-byte UUID), so names cost nothing in an assignment.
#pragma once

#include "protocols/consumer/messages.hpp"

#include <cstddef>

namespace rsim::protocols::consumer {

std::size_t request_size(const HeartbeatRequest& r, bool with_topics);
std::size_t response_size(const HeartbeatResponse& r, bool with_assignment);

}  // namespace rsim::protocols::consumer
