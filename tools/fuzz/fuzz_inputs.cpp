// libFuzzer target for the kinds of user files: scenario files, group
// snapshots and Streams group snapshots (the first input byte picks which:
// below 128, below 192, the rest). Bad input must end in an
// InputError (or, for an assignor, an AssignorError), never in a crash, a
// hang or another exception; a good scenario must write back into a file the
// loader takes. Built and run by tools/fuzz/run, not by Meson.
#include "protocols/assignors/assignor.hpp"
#include "protocols/assignors/server.hpp"
#include "protocols/streams/assignor.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/snapshot.hpp"
#include "scenarios/writer.hpp"

#include <cstdlib>

#include <cstddef>
#include <cstdint>
#include <string>

using namespace rsim;

namespace {

// Assignors run only on snapshots of a size a test machine can afford: the
// fuzzer would otherwise spend its time on a billion partitions.
// The write-back round trip is checked on scenarios of the size a test or
// the swarm writes: a group of 100,000 members with long subscriptions
// (which the loader takes) writes a file of tens of MB, which yaml-cpp reads
// back three times in tens of seconds under the sanitizers: a fuzzer timeout
// that says nothing about the simulator.
bool small_enough_to_write_back(const scenario::Scenario& s) {
  std::size_t names = 0;
  for (const auto& m : s.members) names += 1 + m.subscribe.size();
  return names <= 50'000;
}

bool affordable(const protocols::GroupSnapshot& g) {
  long long partitions = 0;
  for (const auto& [topic, n] : g.topics) partitions += n;
  std::size_t owned = 0;
  for (const auto& m : g.members) owned += m.owned.size() + m.topics.size();
  return partitions <= 20000 && g.members.size() <= 200 && owned <= 20000;
}

void assign_with_every_assignor(const protocols::GroupSnapshot& group) {
  // As `rebalance-sim assign` does: an AssignorError is the assignor refusing
  // the snapshot (Kafka's PartitionAssignorException), reported with exit 2.
  auto run = [&](const protocols::Assignor& a) {
    try {
      (void)a.assign(group);
    } catch (const protocols::AssignorError&) {
    }
  };
  for (const char* name : {"range", "roundrobin", "sticky", "cooperative-sticky", "connect"})
    run(*protocols::make_classic_assignor(name));
  for (const char* name : {"uniform", "range"}) run(*protocols::make_consumer_assignor(name));
}

bool affordable(const scenario::StreamsSnapshot& s) {
  long long tasks = 0;
  for (const auto& [id, sub] : s.topology.subtopologies) tasks += sub.tasks;
  return tasks <= 20000 && s.group.members.size() <= 200;
}

// A Streams snapshot the loader takes is one the task assignor assigns: it
// refuses nothing the loader lets through but a group with tasks and no
// member (TaskAssignorError, exit 2 in `assign`).
void assign_tasks(const scenario::StreamsSnapshot& s) {
  try {
    (void)protocols::streams::sticky_task_assign(s.group, s.topology);
  } catch (const protocols::streams::TaskAssignorError&) {
    if (!s.group.members.empty()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] < 128) {
      // A scenario the loader takes must also write back into one it takes
      // (the swarm's findings are written files), and stay so.
      const auto s = scenario::load_text(text, "fuzz.yaml");
      if (!small_enough_to_write_back(s)) return 0;
      const std::string written = scenario::to_yaml(scenario::load_text(scenario::to_yaml(s), "written.yaml"));
      if (scenario::to_yaml(scenario::load_text(written, "again.yaml")) != written) std::abort();
    } else if (data[0] < 192) {
      const auto snapshot = scenario::load_snapshot_text(text, "fuzz.json");
      if (affordable(snapshot.group)) assign_with_every_assignor(snapshot.group);
    } else {
      const auto snapshot = scenario::load_streams_snapshot_text(text, "fuzz.json");
      if (affordable(snapshot)) assign_tasks(snapshot);
    }
  } catch (const scenario::InputError&) {
  }
  return 0;
}
