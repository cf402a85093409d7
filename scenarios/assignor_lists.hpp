// Assignor lists (partition.assignment.strategy) and the classic upgrade
// path Kafka documents (KIP-429, "Upgrading to cooperative"): members and
// upgrade events may list several client-side assignors; a client speaks
// COOPERATIVE only when every assignor it lists supports it, and the group
// runs the assignor its members vote for (ClassicGroup.selectProtocol).
#pragma once

#include "scenarios/scenario.hpp"

#include <string>
#include <vector>

namespace rsim::scenario {

// What a member without `assignors:` lists: the scenario's assignor, or its
// protocol's default.
std::vector<std::string> default_assignors(const Scenario& s);
// The list an upgrade restarts its members with: the event's own, or for
// `to: cooperative` Kafka's final step, [cooperative-sticky].
std::vector<std::string> upgrade_assignors(const std::vector<std::string>& given, const std::string& to);
// A classic upgrade: `to:` eager or cooperative (not the consumer protocol).
bool classic_upgrade(const std::string& to);

// Refuses, with the position of the list or event, what Kafka refuses or
// does not document: lists outside the eager / cooperative protocols, an
// upgrade that is not eager -> cooperative (downgrades, to the seed's
// designs), a `to:` its list cannot reach, and a list that shares no
// assignor with a member still in the group (INCONSISTENT_GROUP_PROTOCOL).
// Needs `all` targets resolved.
void check_assignor_lists(const Scenario& s);

}  // namespace rsim::scenario
