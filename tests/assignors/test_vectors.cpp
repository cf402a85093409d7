// The assignor vectors from Kafka's own test suites (tests/vectors/), run
// through the same runner as `rebalance-sim vectors`.
#include "protocols/assignors/range.hpp"
#include "protocols/assignors/roundrobin.hpp"
#include "tools/vectors/runner.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>

using namespace rsim;

TEST_SUITE("assignors") {
TEST_CASE("every vector file runs: no case fails, and every case of an implemented assignor passes") {
  std::map<std::string, int> passed_by_assignor;
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(RSIM_SOURCE_DIR) + "/tests/vectors")) {
    if (e.path().extension() != ".yaml") continue;
    ++files;
    const auto result = vectors::run_file(e.path().string());
    for (const auto& c : result.cases) {
      CAPTURE(e.path().filename().string());
      CAPTURE(c.name);
      CAPTURE(c.detail);
      CHECK(c.status != vectors::Status::Fail);
      if (c.assignor == "range") CHECK(c.status == vectors::Status::Pass);
      if (c.assignor == "uniform") CHECK(c.status == vectors::Status::Pass);
      if (c.assignor == "roundrobin" || c.assignor == "connect" || c.assignor == "high-availability")
        CHECK(c.status == vectors::Status::Pass);
      // The KIP-1071 task assignor: every case passes, none read only by
      // the generic invariants.
      if (c.assignor == "streams sticky") {
        CHECK(c.status == vectors::Status::Pass);
        CHECK(c.detail.find("could not read") == std::string::npos);
      }
      // Sticky and cooperative-sticky: every case passes but those whose
      // expectation is prose.
      if ((c.assignor == "sticky" || c.assignor == "cooperative-sticky") &&
          e.path().filename().string().find("StickyAssignorTest") != std::string::npos && c.status != vectors::Status::Pass)
        CHECK(c.detail.rfind("cannot check property yet", 0) == 0);
      if (c.status == vectors::Status::Pass) ++passed_by_assignor[c.assignor];
      if (c.status == vectors::Status::Skip) CHECK_FALSE(c.detail.empty());
    }
  }
  CHECK(files == 10);
  CHECK(passed_by_assignor["range"] == 24);  // client 15, broker side 9
  CHECK(passed_by_assignor["uniform"] == 15);  // homogeneous 7, heterogeneous 8
  CHECK(passed_by_assignor["roundrobin"] == 9);
  CHECK(passed_by_assignor["sticky"] == 18);
  CHECK(passed_by_assignor["cooperative-sticky"] == 21);
  CHECK(passed_by_assignor["connect"] == 17);
  CHECK(passed_by_assignor["streams sticky"] == 10);
  CHECK(passed_by_assignor["high-availability"] == 38);  // Streams classic: HighAvailabilityTaskAssignorTest, TaskMovementTest
}

TEST_CASE("vectors: a step the runner cannot read skips that case with its reason; the rest of the file runs") {
  const auto result = vectors::run_file(std::string(RSIM_SOURCE_DIR) + "/tests/vectors_unreadable/connect-unknown-step.yaml");
  REQUIRE(result.cases.size() == 3);
  CHECK(result.cases[0].status == vectors::Status::Pass);
  CHECK(result.cases[1].status == vectors::Status::Skip);
  CHECK(result.cases[1].name == "unreadable-step");
  CHECK(result.cases[1].detail.find("connect-unknown-step.yaml:157:7: unknown step 'teleport worker2 to the moon' in a Connect round") !=
        std::string::npos);
  CHECK(result.cases[2].status == vectors::Status::Pass);
}

TEST_CASE("vectors --assignor-exec: a plug-in's moves are checked from its answer, unless a cooperative answer hides them") {
  vectors::Plugins plugins(protocols::ExecSettings{{"python3", std::string(RSIM_SOURCE_DIR) + "/tools/examples/range_assignor.py"}});
  const auto result = vectors::run_file(std::string(RSIM_SOURCE_DIR) + "/tests/vectors/AbstractStickyAssignorTest.yaml", &plugins);
  std::vector<const vectors::CaseResult*> one_topic;
  for (const auto& c : result.cases)
    if (c.name == "one-consumer-one-topic") one_topic.push_back(&c);
  REQUIRE(one_topic.size() == 2);  // the file applies to sticky (eager) and cooperative-sticky
  CHECK(one_topic[0]->assignor == "exec");
  CHECK(one_topic[0]->status == vectors::Status::Pass);
  CHECK(one_topic[1]->status == vectors::Status::Skip);
  CHECK(one_topic[1]->detail.find("partitions_transferring_ownership") != std::string::npos);
}

TEST_CASE("range: the first P % C members in MemberInfo order take one extra partition, per topic") {
  protocols::GroupSnapshot g;
  g.topics = {{"a", 7}, {"b", 2}};
  g.members = {{"m2", std::nullopt, std::nullopt, {"a", "b"}, {}, -1},
               {"m1", std::nullopt, std::nullopt, {"a"}, {}, -1},
               {"m3", std::string("z-static"), std::nullopt, {"a", "b"}, {}, -1}};
  const auto a = protocols::RangeAssignor().assign(g);
  // Order: static m3 first, then m1, m2. Topic a: 7 = 3 + 2 + 2; topic b: 2
  // between m3 and m2 only.
  using TP = protocols::TopicPartition;
  CHECK(a.at("m3") == std::vector<TP>{{"a", 0}, {"a", 1}, {"a", 2}, {"b", 0}});
  CHECK(a.at("m1") == std::vector<TP>{{"a", 3}, {"a", 4}});
  CHECK(a.at("m2") == std::vector<TP>{{"a", 5}, {"a", 6}, {"b", 1}});
}

TEST_CASE("roundrobin deals partitions of all topics in name order, skipping non-subscribers") {
  protocols::GroupSnapshot g;
  g.topics = {{"x", 3}, {"y", 2}};
  g.members = {{"c1", std::nullopt, std::nullopt, {"x", "y"}, {}, -1}, {"c2", std::nullopt, std::nullopt, {"y"}, {}, -1}};
  const auto a = protocols::RoundRobinAssignor().assign(g);
  using TP = protocols::TopicPartition;
  // x-0, x-1, x-2 all to c1 (c2 is skipped); then y-0 to c2 (next in turn),
  // y-1 to c1.
  CHECK(a.at("c1") == std::vector<TP>{{"x", 0}, {"x", 1}, {"x", 2}, {"y", 1}});
  CHECK(a.at("c2") == std::vector<TP>{{"y", 0}});
}

// Two members of one generation claim t0-0: neither keeps it (Kafka's
// partitionsWithMultiplePreviousOwners), so nothing is kept at all and the
// deal gives t0-0 to a (HashMap order) and t0-1 to b. Cooperative-sticky
// withholds t0-0 from a this round: a partition with two previous owners
// counts as transferring ownership, even though nobody keeps anything.
TEST_CASE("cooperative-sticky withholds a doubly claimed partition even when nothing else is kept") {
  protocols::GroupSnapshot g;
  g.topics = {{"t0", 2}};
  using TP = protocols::TopicPartition;
  g.members = {{"a", std::nullopt, std::nullopt, {"t0"}, {TP{"t0", 0}}, 1},
               {"b", std::nullopt, std::nullopt, {"t0"}, {TP{"t0", 0}}, 1},
               {"c", std::nullopt, std::nullopt, {"t0"}, {}, -1},
               {"d", std::nullopt, std::nullopt, {"t0"}, {}, -1}};
  const auto sticky = protocols::make_classic_assignor("sticky")->assign(g);
  CHECK(sticky.at("a") == std::vector<TP>{{"t0", 0}});
  CHECK(sticky.at("b") == std::vector<TP>{{"t0", 1}});
  const auto coop = protocols::make_classic_assignor("cooperative-sticky")->assign(g);
  CHECK(coop.at("a").empty());
  CHECK(coop.at("b") == std::vector<TP>{{"t0", 1}});
  CHECK(coop.at("c").empty());
  CHECK(coop.at("d").empty());
}
}
