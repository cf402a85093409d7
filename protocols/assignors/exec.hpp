// A user's assignor as an external process (`assignor: {exec: [...]}`,
// `--assignor-exec CMD`): one long-lived process per run, one JSON request
// per line on its stdin, one JSON answer per line on its stdout. The schema
// is in the README ("Bring your own assignor").
//
// To the simulator it is one more Assignor: the protocols call it where they
// call a built-in one. Everything the answer claims is checked before it is
// used, and a bad answer stops the run (PluginError): an assignment the
// protocol cannot take would otherwise show up as a misleading metric.
#pragma once

#include "protocols/assignors/assignor.hpp"
#include "protocols/assignors/plugin_process.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace rsim::protocols {

// Which side of which protocol asks, as the request's "side" says.
enum class AssignorSide {
  ClientLeader,   // classic consumer group: the leader's ConsumerPartitionAssignor
  ConsumerGroup,  // KIP-848: the coordinator's server-side assignor
  ConnectLeader,  // Kafka Connect: the leader worker's assignor
  StreamsGroup,   // KIP-1071: the coordinator's task assignor
};
std::string_view side_name(AssignorSide side);

struct ExecSettings {
  std::vector<std::string> command;          // argv; argv[0] looked up on PATH
  std::chrono::milliseconds timeout{10000};  // wall clock, per request
};

// The run cannot go on: the plugin could not be started, did not answer, or
// answered something the protocol cannot use.
struct PluginError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The plug-in answered {"error": ..}: it refuses the input (Kafka's
// PartitionAssignorException). A run stops; a vector expecting an error passes.
struct PluginRefusal : PluginError {
  using PluginError::PluginError;
};

// The "assignment" object of an answer line, whichever side asked: throws
// PluginError when the line is not a JSON object with one (`shape` says what
// it should look like), PluginRefusal when the plug-in answered {"error": ..}.
nlohmann::ordered_json answer_assignment(const std::string& line, const std::string& shape);

// Runs `ask` (one exchange and the check of its answer); a plug-in error it
// throws comes out prefixed with `context()`: which plug-in, which request.
template <class Ask, class Context>
auto with_plugin_context(Ask&& ask, Context&& context) -> decltype(ask()) {
  try {
    return ask();
  } catch (const PluginProcessError& e) {
    throw PluginError(context() + ": " + e.what());
  } catch (const PluginRefusal& e) {
    throw PluginRefusal(context() + ": " + e.what());
  } catch (const PluginError& e) {
    throw PluginError(context() + ": " + e.what());
  }
}

// One plug-in process for a run, started at its first request (so
// validating or listing never spawns) and shared by every assignor object
// that speaks to it: a run has one process whatever sides ask.
class PluginSession {
 public:
  explicit PluginSession(ExecSettings settings);
  ~PluginSession();
  PluginSession(const PluginSession&) = delete;
  PluginSession& operator=(const PluginSession&) = delete;
  // Sends `request`, returns the answer line; throws PluginProcessError.
  std::string exchange(const std::string& request);
  int requests() const { return requests_; }
  std::string command() const;

 private:
  ExecSettings settings_;
  std::unique_ptr<PluginProcess> process_;
  int requests_ = 0;
};

// `cooperative`: the protocol revokes before it reassigns (cooperative,
// deferred, connect). Then a partition may be left out only while its owner
// gives it up, and none may go straight from one owner to another
// (ConsumerCoordinator.validateCooperativeAssignment). Otherwise every
// partition of the subscribed topics is assigned exactly once.
class ExecAssignor final : public Assignor {
 public:
  ExecAssignor(ExecSettings settings, AssignorSide side, std::string protocol, bool cooperative);
  ExecAssignor(std::shared_ptr<PluginSession> session, AssignorSide side, std::string protocol, bool cooperative);
  ~ExecAssignor() override;
  std::string_view name() const override { return "exec"; }
  GroupAssignment assign(const GroupSnapshot& group) const override;

 private:
  std::string context(const GroupSnapshot& group) const;

  std::shared_ptr<PluginSession> session_;  // the process behind the pure function
  AssignorSide side_;
  std::string protocol_;
  bool cooperative_;
};

// The request line for `group` (exposed for tests and the vectors runner).
std::string plugin_request(const GroupSnapshot& group, AssignorSide side, std::string_view protocol);
// Parses and checks an answer line; throws PluginError(what is wrong).
GroupAssignment plugin_answer(const std::string& line, const GroupSnapshot& group, bool cooperative);

// Splits `--assignor-exec` text at spaces (no shell, no quoting).
std::vector<std::string> split_command(const std::string& text);

}  // namespace rsim::protocols
