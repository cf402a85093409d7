// What this simulator can represent and afford. The loader refuses a file
// beyond these before any run starts, so that a run never overflows its
// clock and its memory is bounded. They are the simulator's limits, not
// Kafka's, and their messages say so. docs/scenario-format.md, "Limits",
// lists them for users.
#pragma once

#include "scenarios/scenario.hpp"

#include <chrono>
#include <cstddef>
#include <string_view>

namespace rsim::scenario {

// The longest duration a file may give, and the latest instant its events
// may reach (a rolling bounce's last restart, a pause's end). Simulated time
// is int64 microseconds, about 292,000 years: an instant within 10 years plus
// any few timers of at most 10 years each is far from overflow.
inline constexpr Duration kMaxDuration = std::chrono::hours(24 * 365 * 10);
inline constexpr std::string_view kMaxDurationText = "10 years (87600h)";

// The most member processes one run may make: the members, joins and
// scale-outs together (each gets an id, a process and a network node).
inline constexpr int kMaxMembers = 100'000;
// Partitions of one topic; tasks of one connector.
inline constexpr int kMaxPartitions = 1'000'000;
// Events in one file. With YAML aliases an event can cost a few bytes of
// file, so the file's size alone does not bound them.
inline constexpr std::size_t kMaxEvents = 1'000'000;

// Resources: partitions of every topic at their largest, and each connector
// and its tasks. Every one costs memory whoever holds it (its name, its
// downtime and lag folds, its owner): about 0.7 KB through a run, the same
// under every protocol (1,000,000 partitions and one member peak at
// 0.7 GB), so 2,000,000 stay near 1.4 GB. The stretch of issue 16 has
// 500,000; a topic alone may have kMaxPartitions.
inline constexpr double kMaxResources = 2e6;

// Member-resource pairs: members over the run (members + joins + scale-outs)
// x resources. Memory no longer grows with this product (members share
// subscription lists; each partition has one owner; what a member copies per
// topic is bounded by kMaxMemberTopics), but time does: each
// group epoch or rebalance reads every member and every partition, and a
// group makes at least one per member joining. Twice the stretch of issue
// 16 (10,000 members x 500,000 partitions) is the limit.
inline constexpr double kMaxMemberResources = 1e10;

// Member-topic pairs: members over the run x topics (declared or created,
// and each connector). A classic member keeps its own copy of the cluster's
// topic metadata, every topic's count (its known and its assigned metadata),
// so this product is memory: 2e7 map entries are about 1.6 GB. Twice the
// stretch of issue 16 (10,000 members x 1,000 topics).
inline constexpr double kMaxMemberTopics = 2e7;

// Names a file may list in all (subscriptions, a count-form subscription
// once per member, member lists), counted before they are copied. Written
// out, a name costs a few bytes of file, so only a file of tens of megabytes
// comes near; a YAML alias, though, repeats a whole list at every use. The
// scale target's subscriptions (1,000 members x 100 topics) are 1e5.
inline constexpr double kMaxListedNames = 1e7;

// Events a run may execute, estimated before it starts: each member's
// heartbeats (horizon / heartbeat interval) and metadata refreshes (horizon /
// metadata.max.age.ms), plus every member rejoining at each disruption. A
// run that keeps its trace (a timeline, --out, --trace, compare, swarm) holds
// about one event of ~200 bytes per executed heartbeat, so the cap keeps it
// near 10 GB at worst. A 1,000-member group over an hour with a 3 s
// heartbeat (1.2e6 heartbeats) passes easily; 100,000 members over 30 days
// (8.6e10) do not.
inline constexpr double kMaxRunEvents = 5e7;
// A run that keeps no trace (`run --timeline none`, sweeps, benchmarks)
// folds its summary as it goes, its memory flat over the horizon
// (docs/performance.md, sixth): the cap bounds its time instead. The
// stretch of issue 16, a rolling bounce of 10,000 members, is about 4.4e8.
inline constexpr double kMaxSummaryRunEvents = 1e9;

// A Streams application over the classic protocol: Streams' high-availability
// assignor ranks every client (process) for every stateful task at each
// rebalance, as Kafka's does (its statefulTasksToRankedCandidates, and each
// ClientState's lag for every task). Here the lags the clients reported,
// one lag per client for the rest, and a 4-byte rank per client for each
// task whose holder lags (every task, at worst): at most 400 MB of ranks at
// 1e8 pairs. (A string per pair, before issue 16's rewrite: 300 x 30,000
// peaked at 2.4 GB, 1,000 x 100,000 passed 23 GB; it now peaks at 140 MB.)
inline constexpr double kMaxClassicStreamsPairs = 1e8;

// Refuses a scenario whose run under `protocol` (which sets the heartbeat
// interval) exceeds kMaxMembers, kMaxResources, kMaxMemberResources,
// kMaxMemberTopics or, for
// a run that keeps its trace, kMaxRunEvents (else kMaxSummaryRunEvents).
// Counts only, so it runs before the loader expands member ids; `all`
// targets count as every member. Throws InputError.
void check_budget(const Scenario& s, std::string_view protocol, bool keeps_trace);
// The events check_budget estimates the run under `protocol` would execute.
double estimated_run_events(const Scenario& s, std::string_view protocol);

// Refuses a Streams application's run under a classic `protocol` beyond
// kMaxClassicStreamsPairs. Checked when a run starts, not when the file
// loads: the same file may run under `streams` (`run --protocol`, `compare`).
// Throws InputError.
void check_classic_streams(const Scenario& s, std::string_view protocol);

// Refuses instants the events reach beyond kMaxDuration (at + down,
// at + for, a rolling event's at + interval x (members - 1) + down), and
// handling costs that, paid once per resource in turn, would exceed it.
// Needs `all` targets resolved. Throws InputError.
void check_time_range(const Scenario& s);

}  // namespace rsim::scenario
