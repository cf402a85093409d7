// Random fault schedules for the swarm (TigerBeetle's VOPR habit: one seed
// decides everything, including which kinds of fault are on at all). A
// scenario is a group of a few members with random timeouts, costs and
// network, a fault phase drawn from the enabled kinds (every event kind of
// the contract and every network fault), then a quiet phase long enough for
// the liveness bound: the network stops dropping messages when the faults
// end (`network.drop-until`).
#pragma once

#include "scenarios/scenario.hpp"

#include <cstdint>
#include <string>

namespace rsim::swarm {

// Valid by construction; the caller writes it out and loads it again, so the
// loader has the last word and the file reproduces the run exactly.
// `scale` multiplies the group (members, partitions, connector tasks) and
// the number of faults drawn; scale 1 is the default swarm, seed for seed
// (at another scale the draws after the members differ).
inline constexpr int kMaxSwarmScale = 50;
scenario::Scenario random_scenario(std::uint64_t seed, const std::string& protocol, int scale = 1);

}  // namespace rsim::swarm
