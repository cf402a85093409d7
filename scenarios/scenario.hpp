// A scenario as plain data: what the loader produces from a YAML file and the
// simulator consumes. No behaviour lives here. Every field keeps the source
// position it came from, so later stages (the runner, `expect:` evaluation)
// can still point at the file when they reject something.
#pragma once

#include "sim/network.hpp"
#include "sim/time.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace rsim::scenario {

struct Mark {
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based
};

// A Kafka config value as written: durations for `.ms` keys, integers,
// strings, or floats.
using ConfigValue = std::variant<Duration, std::int64_t, double, std::string>;

struct ConfigEntry {
  ConfigValue value;
  Mark mark;
};

struct Topic {
  std::string name;
  int partitions = 0;
  Mark mark;
};

struct Subtopology {
  std::string id;
  std::vector<std::string> source;
  std::vector<std::string> repartition_sink;
  std::vector<std::string> state;
  // repartition-sink entries written {name, partitions}: an enforced count.
  std::map<std::string, int> sink_partitions;
  // copartition: groups of this sub-topology's sources that must have the
  // same partition count (Kafka's co-partition groups, e.g. a join's inputs).
  std::vector<std::vector<std::string>> copartition;
  Mark mark;
};

struct Connector {
  std::string name;
  int tasks = 0;
  // Per resource of this connector (the connector and each task), instead of
  // the scenario's costs: a connector whose tasks take long to stop.
  std::optional<Duration> revoke_cost;
  std::optional<Duration> assign_cost;
  Mark mark;
};

struct MemberSpec {
  std::string id;
  std::vector<std::string> subscribe;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack;
  Duration start{0};
  Mark mark;
  // partition.assignment.strategy: the client's assignors in preference
  // order. Empty: the scenario's assignor and protocol, as before.
  std::vector<std::string> assignors;
  Mark assignors_mark;
  // Streams: the KafkaStreams instance this member is a thread of (members
  // with one process share its state). Unset: a process of its own.
  std::optional<std::string> process;
};

struct Costs {
  Duration revoke{0};
  Duration assign{0};
  std::uint64_t state_bytes = 0;
  std::uint64_t restore_bytes_per_s = 0;  // 0: not set
  // How fast an unmaintained local copy of a task's state falls behind.
  std::uint64_t changelog_bytes_per_s = 0;
  // A changelog record's size: turns bytes behind into the records behind
  // that acceptable.recovery.lag counts (classic Streams). 1 KiB unless set.
  std::uint64_t record_bytes = 1024;
  Mark mark;
};

struct Load {
  double produce_rate = 0;  // messages/s per partition
  double process_rate = 0;
};

// ---- events -------------------------------------------------------------
// A member list that may be the word `all`.
struct Targets {
  bool all = false;
  std::vector<std::string> ids;
};

struct Join { MemberSpec member; };
struct Leave { std::string member; };
struct Crash { std::string member; };
struct Bounce { std::string member; Duration down{0}; };
struct Restart { std::string member; Duration down{0}; };
struct Pause { std::string member; Duration length{0}; };
struct Slow { std::string member; Duration batch{0}; Duration length{0}; };
struct RollingBounce { Targets members; Duration down{0}; Duration interval{0}; };
struct RollingRestart { Targets members; Duration down{0}; Duration interval{0}; };
struct ScaleOut { int count = 0; std::vector<std::string> subscribe; std::vector<std::string> ids; };
struct ScaleIn { std::vector<std::string> members; };
struct Isolate { std::string member; Duration length{0}; };
struct CoordinatorFailover { Duration down{0}; };
struct AddPartitions { std::string topic; int count = 0; };
// Streams: a topic the topology reads comes into existence (until then the
// group is in MISSING_SOURCE_TOPICS, without tasks).
struct CreateTopic { std::string topic; int partitions = 0; };
struct Subscribe { std::string member; std::vector<std::string> topics; };
// `assignors`: the list the members restart with (classic upgrades; empty:
// the upgrade's default, see scenarios/assignor_lists.hpp).
struct Upgrade { std::vector<std::string> members; std::string to; Duration down{0}; std::vector<std::string> assignors; Mark assignors_mark; };
struct RollingUpgrade { Targets members; std::string to; Duration down{0}; Duration interval{0}; std::vector<std::string> assignors; Mark assignors_mark; };

using EventAction = std::variant<Join, Leave, Crash, Bounce, Restart, Pause, Slow, RollingBounce, RollingRestart,
                                 ScaleOut, ScaleIn, Isolate, CoordinatorFailover, AddPartitions, CreateTopic, Subscribe, Upgrade,
                                 RollingUpgrade>;

struct Event {
  Duration at{0};
  EventAction action;
  std::string kind;  // the action key as written, e.g. "rolling-bounce"
  Mark mark;
};

// ---- expectations -------------------------------------------------------
enum class Comparison { Eq, Lt, Le, Gt, Ge };

struct Expectation {
  std::string metric;
  Mark mark;
  // One of: a number or duration with a comparison; `ok` for invariants;
  // an exact assignment for final-assignment.
  Comparison op = Comparison::Eq;
  std::optional<double> number;          // counts
  std::optional<Duration> duration;      // times
  std::optional<std::string> word;       // invariants: ok
  std::map<std::string, std::vector<std::string>> assignment;  // final-assignment
  std::string text;                      // as written, for messages
};

// `assignor: {exec: [python3, my_assignor.py], timeout: 10s}`: a plug-in
// assignor process (protocols/assignors/exec.hpp). The timeout is wall-clock
// time per request, read only to stop a plug-in that hangs.
struct AssignorExec {
  std::vector<std::string> command;
  Duration timeout = std::chrono::seconds(10);
  bool supports_cooperative = false;  // supported-protocols lists cooperative
};

// ---- the scenario -------------------------------------------------------
struct Scenario {
  std::string file;  // path it was loaded from, for messages
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  Duration duration{0};
  std::string protocol = "eager";
  std::optional<std::string> assignor;  // "exec" with assignor_exec
  std::optional<AssignorExec> assignor_exec;
  Mark protocol_mark, assignor_mark, duration_mark, members_mark;
  std::map<std::string, ConfigEntry> config;
  LatencyModel latency = LatencyModel::fixed(Duration{1000});
  double drop = 0.0;
  std::optional<Duration> drop_until;  // network.drop-until: no random loss from then on
  // network.bandwidth: a message of B bytes takes B / bandwidth longer to
  // arrive; 0 (the default) means no transfer time.
  std::uint64_t bandwidth_bytes_per_s = 0;
  Costs costs;
  std::optional<Load> load;
  std::vector<Topic> topics;
  std::vector<Subtopology> subtopologies;
  std::vector<Connector> connectors;
  std::vector<MemberSpec> members;
  std::string member_prefix;   // from `members: {count, prefix}`; empty otherwise
  int member_number_width = 3;
  std::optional<std::map<std::string, std::vector<std::string>>> initial_assignment;
  std::vector<Event> events;  // sorted by `at`, stable for equal times
  std::optional<Duration> metrics_from;
  std::vector<Expectation> expect;

  const Topic* find_topic(const std::string& name) const;
};

}  // namespace rsim::scenario
