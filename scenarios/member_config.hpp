// From the scenario to what the protocols take: a member's client settings
// (the YAML config keys, costs, subscription), the group's broker settings,
// a classic strategy's settings, and the members of a group that starts
// stable. The one place that maps config keys to protocol fields.
#pragma once

#include "protocols/classic/coordinator.hpp"
#include "protocols/classic/embedded.hpp"
#include "protocols/classic/member.hpp"
#include "protocols/consumer/coordinator.hpp"
#include "protocols/group_host.hpp"
#include "scenarios/resources.hpp"
#include "scenarios/scenario.hpp"

#include <string>
#include <vector>

namespace rsim::scenario {

// What a member runs: its subscription; in a Connect scenario, a worker
// without one runs any connector and task.
std::vector<std::string> resources_of(const Scenario& s, const std::vector<std::string>& subscribe);

protocols::classic::MemberConfig member_config(const Scenario& s, const MemberSpec& spec);
protocols::HostConfig host_config(const Scenario& s);
protocols::classic::StrategySettings strategy_settings(const Scenario& s);

// A member present at 0 s in a group that starts stable with the scenario's
// initial assignment: classic at generation 1, KIP-848 at epoch 1. `index`:
// the scenario's, built once for all the members.
protocols::classic::SeedMember classic_seed(const Scenario& s, const ResourceIndex& index, const MemberSpec& spec,
                                            const protocols::classic::EmbeddedProtocol& strategy,
                                            const protocols::Assignor& assignor);
protocols::consumer::MemberView consumer_seed(const Scenario& s, const ResourceIndex& index, const MemberSpec& spec);

}  // namespace rsim::scenario
