// Assignor lists (partition.assignment.strategy) and the classic upgrade
// path Kafka documents (KIP-429, "Upgrading to cooperative"): members and
// upgrade events may list several client-side assignors; a client speaks
// COOPERATIVE only when every assignor it lists supports it, and the group
// runs the assignor its members vote for (ClassicGroup.selectProtocol).
#pragma once

#include "protocols/classic/embedded.hpp"
#include "protocols/classic/member.hpp"
#include "scenarios/scenario.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rsim::protocols {
class PluginSession;
}

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

// The run's client-side assignor lists: members' and upgrades' lists apply
// to the scenario's own variant only (another, by --protocol or
// --assignor, runs every member with its own assignor). Owns one assignor
// instance per name and one strategy per rebalance protocol.
class ClientAssignors {
 public:
  // `plugin`: the run's plug-in process, which lists naming exec speak to.
  ClientAssignors(const Scenario& s, const std::string& protocol, const std::string& assignor,
                  std::shared_ptr<protocols::PluginSession> plugin);
  bool apply() const { return apply_; }
  // partition.assignment.strategy `names`: the assignors and the rebalance
  // protocol they allow the client, into `c`.
  void configure(protocols::classic::MemberConfig& c, const std::vector<std::string>& names);
  // `member` restarts with the list `names` (an upgrade's), if lists apply.
  void on_restart(protocols::classic::ClassicMember& member, const std::vector<std::string>& names);
  // What a member's JoinGroup lists: its own, if it has one, else `fallback`.
  std::vector<std::string> listed(const MemberSpec& spec, const std::string& fallback) const;

 private:
  const protocols::Assignor* instance(const std::string& name, const std::string& protocol);

  bool apply_ = false;
  bool exec_cooperative_ = false;
  std::shared_ptr<protocols::PluginSession> plugin_;
  std::map<std::string, std::unique_ptr<protocols::Assignor>> assignors_;
  std::map<std::string, std::unique_ptr<protocols::classic::EmbeddedProtocol>> strategies_;
};

}  // namespace rsim::scenario
