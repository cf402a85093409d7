// libFuzzer target for the two kinds of user files: scenario files and group
// snapshots (the first input byte picks which). Bad input must end in an
// InputError (or, for an assignor, an AssignorError), never in a crash, a
// hang or another exception; a good scenario must write back into a file the
// loader takes. Built and run by tools/fuzz/run, not by Meson.
#include "protocols/assignors/assignor.hpp"
#include "protocols/assignors/server.hpp"
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] < 128) {
      // A scenario the loader takes must also write back into one it takes
      // (the swarm's findings are written files), and stay so.
      const auto s = scenario::load_text(text, "fuzz.yaml");
      const std::string written = scenario::to_yaml(scenario::load_text(scenario::to_yaml(s), "written.yaml"));
      if (scenario::to_yaml(scenario::load_text(written, "again.yaml")) != written) std::abort();
    } else {
      const auto snapshot = scenario::load_snapshot_text(text, "fuzz.json");
      if (affordable(snapshot.group)) assign_with_every_assignor(snapshot.group);
    }
  } catch (const scenario::InputError&) {
  }
  return 0;
}
