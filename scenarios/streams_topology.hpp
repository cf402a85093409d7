// A scenario's `topology:` as the Streams model of protocols/streams/: the
// sub-topologies it declares and the cluster's topics at 0s.
#pragma once

#include "protocols/streams/topology.hpp"
#include "scenarios/scenario.hpp"

#include <vector>

namespace rsim::scenario {

std::vector<protocols::streams::SubtopologySpec> subtopology_specs(const std::vector<Subtopology>& subtopologies);
// The topics that exist when the run starts (`topics:`).
protocols::streams::TopicMetadata initial_topic_metadata(const Scenario& s);
// The loader validated it: building it again cannot fail.
protocols::streams::Topology streams_topology(const Scenario& s);

}  // namespace rsim::scenario
