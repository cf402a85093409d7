// A user's KIP-1071 task assignor as a plug-in process: the coordinator's
// side of a Streams group ("side": "streams-group"). The request is the
// Streams group snapshot `assign --protocol streams` reads; the answer is
// what it prints: {"assignment": {MEMBER: {"active": [..], "standby": [..]}}}.
// Checked before use (streams::protocol_violations): a bad answer stops the
// run with a PluginError naming the group epoch.
#pragma once

#include "protocols/assignors/exec.hpp"
#include "protocols/streams/assignor.hpp"

#include <memory>
#include <string>

namespace rsim::protocols::streams {

class ExecTaskAssignor final : public TaskAssignor {
 public:
  explicit ExecTaskAssignor(std::shared_ptr<PluginSession> session);
  std::string_view name() const override { return "exec"; }
  StreamsGroupAssignment assign(const StreamsGroupSpec& group, const TopologyDescriber& topology) const override;

 private:
  std::shared_ptr<PluginSession> session_;
};

// The request line (exposed for tests and `assign`).
std::string task_plugin_request(const StreamsGroupSpec& group, const TopologyDescriber& topology);
// Parses and checks an answer line; throws PluginError (or PluginRefusal
// for {"error": ..}) saying what is wrong.
StreamsGroupAssignment task_plugin_answer(const std::string& line, const StreamsGroupSpec& group,
                                          const TopologyDescriber& topology);

}  // namespace rsim::protocols::streams
