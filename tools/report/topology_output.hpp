// `rebalance-sim topology FILE`: a Streams topology as the coordinator
// configures it, as deterministic text (sub-topologies in declaration order).
#pragma once

#include "protocols/streams/topology.hpp"

#include <ostream>

namespace rsim::report {

void write_topology(std::ostream& out, const protocols::streams::Topology& topology,
                    const protocols::streams::ConfiguredTopology& configured,
                    const protocols::streams::TopicMetadata& metadata);

}  // namespace rsim::report
