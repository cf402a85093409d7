// Encoded sizes of the classic group protocol's messages, so that what a
// protocol carries costs transfer time (with `network.bandwidth`) and shows
// in the `protocol-bytes` metric. The seed notes that carrying owned
// partitions in every JoinGroup "could be substantial in cases like
// MirrorMaker": a leader receives every member's subscription and sends every
// member's assignment.
//
// Sizes follow Kafka's encodings: ConsumerProtocolSubscription v3 and
// ConsumerProtocolAssignment v3 (non-flexible: int16-length strings, int32
// counts), inside JoinGroup v9 / SyncGroup v5 (flexible: varint lengths,
// tagged-field bytes), each with a request header (api key, version,
// correlation id, client id) or a response header (correlation id).
// Simplification: the group id and the client software fields are counted
// as short fixed strings; varints are counted exactly.
#pragma once

#include "protocols/classic/messages.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace rsim::protocols {

// Kafka's flexible-version encodings, shared by the group protocols' sizes.
namespace wire {
inline constexpr std::size_t kGroupId = 16;  // a typical group id's length
inline constexpr std::size_t kRequestHeader = 2 + 2 + 4 + 2 + 16 + 1;  // api key, version, correlation, client id, tags
inline constexpr std::size_t kResponseHeader = 4 + 1;  // correlation id, tags
// Unsigned varint length of n.
std::size_t varint(std::size_t n);
// Compact strings and byte arrays: varint(length + 1), then the bytes.
inline std::size_t compact(std::size_t length) { return varint(length + 1) + length; }
inline std::size_t compact_nullable(const std::optional<std::string>& s) { return s ? compact(s->size()) : 1; }
}  // namespace wire

}  // namespace rsim::protocols

namespace rsim::protocols::classic {

std::size_t wire_size(const Subscription& s);
std::size_t wire_size(const MemberAssignment& a);

std::size_t wire_size(const JoinGroupRequest& r);
std::size_t wire_size(const JoinGroupResponse& r);
std::size_t wire_size(const SyncGroupRequest& r);
std::size_t wire_size(const SyncGroupResponse& r);
std::size_t wire_size(const HeartbeatRequest& r);
std::size_t wire_size(const HeartbeatResponse& r);
std::size_t wire_size(const LeaveGroupRequest& r);

}  // namespace rsim::protocols::classic
