// The incremental protocol (seed 1, "Incremental Resolution of Imbalance"):
// at most N moves a round.
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>

using namespace rsim;
using testing::handovers;
using testing::run;

TEST_SUITE("protocols") {
TEST_CASE("heavy and light connectors: incremental resolution decouples the light connector from the heavy one") {
  const auto s = scenario::load_file(std::string(RSIM_SOURCE_DIR) + "/scenarios/seed/heavy-light-connectors.yaml");
  auto light = [&](const char* protocol, const char* assignor) {
    scenario::RunOptions o;
    o.protocol = protocol;
    o.assignor = assignor;
    const auto r = scenario::run(s, o);
    const auto m = metrics::summarize(s, r);
    CHECK_FALSE(m.violation);
    std::map<std::string, Duration> out;
    for (const char* task : {"light", "light/0", "light/1", "light/2", "light/3"}) out[task] = m.downtime_by_resource.at(task);
    return out;
  };
  const auto eager = light("eager", "range");
  for (const auto& [task, down] : eager) CHECK(down == Duration{15'004'000});
  const auto coop = light("cooperative", "cooperative-sticky");
  CHECK(coop.at("light/1") == Duration{15'004'000});
  CHECK(coop.at("light/3") == Duration{15'004'000});
  CHECK(coop.at("light") == Duration{0});
  CHECK(coop.at("light/0") == Duration{0});
  CHECK(coop.at("light/2") == Duration{0});
  const auto incr = light("incremental", "cooperative-sticky");
  CHECK(incr.at("light/1") == Duration{3'006'000});
  CHECK(incr.at("light/3") == Duration{3'006'000});
  CHECK(incr.at("light/0") == Duration{0});
  for (const auto& [task, down] : light("connect", "connect")) CHECK(down == Duration{0});
  // The bundled run (incremental): three moves, one per round, nothing
  // stops the world, the heavy task alone waits 15 s.
  const auto x = testing::run_loaded(s, 1);
  CHECK(x.m.moves == 3);
  CHECK(x.m.stop_the_world == Duration{0});
  CHECK(x.m.downtime_by_resource.at("heavy/3") == Duration{15'004'000});
  CHECK(x.m.final_assignment.at("W3") == std::vector<std::string>{"heavy/3", "light/1", "light/3"});
}

TEST_CASE("incremental: a scale-out moves N partitions in ceil(N / max-moves) rounds") {
  const auto x = testing::run_bundled("scenarios/seed/incremental-scale-out.yaml");
  CHECK(handovers(x.r, {"revoking"}) == "12.006s A revoking [T-2,T-3]\n22.010s A revoking [T-4,T-5]\n");
  CHECK(x.m.moves == 4);
  CHECK(x.m.stop_the_world == Duration{0});
  CHECK(x.m.final_assignment.at("A") == std::vector<std::string>{"T-0", "T-1"});
  CHECK(x.m.final_assignment.at("m001").size() == 2);
  CHECK(x.m.final_assignment.at("m002").size() == 2);
  // With a larger budget all four move in one round.
  scenario::Scenario s = x.s;
  s.config["incremental.max.moves.per.round"].value = std::int64_t{4};
  const auto r = scenario::run(s);
  CHECK(handovers(r, {"revoking"}) == "12.006s A revoking [T-2,T-3,T-4,T-5]\n");
}


TEST_CASE("incremental: a started move is not undone by the next round's target; the group settles") {
  // The assignor, asked again with the moving partition owned by nobody,
  // places it back with its old owner; before the fix the same move was
  // started every round for 800 s (317 rebalances, 172 revocations).
  const auto x = testing::run_bundled("tests/swarm/incremental-move-undone.yaml", 67825);
  CHECK_FALSE(x.m.violation);
  CHECK(x.m.rebalances == 35);
  CHECK(x.m.revocations == 31);
  // The last revocation is at 389.7 s, of a run of 1,098 s.
  const auto revoked = handovers(x.r, {"revoked"});
  CHECK(revoked.substr(revoked.rfind('\n', revoked.size() - 2) + 1) == "389.734602s m002 revoked [T1-6]\n");
}
}
