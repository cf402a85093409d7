// Plays a scenario: builds the kernel, the network, the coordinator and the
// members, schedules the scenario's events, runs to the horizon and returns
// the trace. Everything a report needs is in the trace.
#pragma once

#include "scenarios/errors.hpp"
#include "scenarios/scenario.hpp"
#include "sim/network.hpp"
#include "sim/trace.hpp"

#include <cstdint>
#include <functional>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

namespace rsim::scenario {

// Which names a run measures as resources (a Streams group's tasks, not the
// partitions its topics announce too), asked when a `resources-added` event
// names them.
using ResourceFilter = std::function<bool(const std::string&)>;

// Metrics folded as the run goes: told the resources that exist when the
// run starts, when it will end (its horizon) and which names it measures,
// before its first event; then every event.
class RunObserver : public TraceObserver {
 public:
  virtual void start(const std::vector<std::string>& initial_resources, Time end, ResourceFilter is_resource) = 0;
};

struct RunOptions {
  std::optional<std::string> protocol;  // overrides the scenario's
  std::optional<std::string> assignor;
  // A plug-in's command (`--assignor-exec`), with assignor "exec"; else the
  // scenario's `assignor: {exec: ..}` is used when its assignor is.
  std::optional<AssignorExec> assignor_exec;
  std::optional<std::uint64_t> seed;
  // Told the simulated time reached, a hundred times over the run: how a
  // long run shows progress. The run is the same with or without it (the
  // kernel runs to each slice's end exactly as it runs to the horizon).
  std::function<void(Time now, Time horizon)> progress;
  // Where the group's records go, as JSON lines (consumer and streams
  // groups: the records Kafka writes to __consumer_offsets); none: nowhere.
  std::ostream* records = nullptr;
  // Keep routine events (classic heartbeats answered with no error) in the
  // trace: timelines and reports show them; a summary does not read them.
  bool routine_events = true;
  // Every event goes to `observer` as it is emitted (not owned; null:
  // none); with an observer and keep_trace false the result's trace is
  // empty.
  RunObserver* observer = nullptr;
  bool keep_trace = true;
};

struct RunResult {
  std::string protocol;
  std::string assignor;
  std::uint64_t seed = 0;
  Time end;
  Trace trace;
  std::vector<std::string> resources;  // every resource, in declaration order
  NetworkStats network;
  std::uint64_t events_executed = 0;
};

// Throws InputError when the scenario asks for something this build cannot
// simulate (a protocol, assignor or event kind not implemented yet).
RunResult run(const Scenario& scenario, const RunOptions& options = {});

// The protocol and assignor a run would use, after options and defaults.
std::string effective_protocol(const Scenario& s, const RunOptions& o);
// The assignor a variant runs when none is named: the scenario's own under
// its protocol, Streams' high-availability for a Streams application over a
// classic protocol, else the protocol's default.
std::string default_assignor(const Scenario& s, const std::string& protocol);
std::string effective_assignor(const Scenario& s, const RunOptions& o);
// The plug-in command, when the effective assignor is "exec".
const AssignorExec* effective_exec(const Scenario& s, const RunOptions& o);

}  // namespace rsim::scenario
