// The Streams topology model (protocols/streams/topology.hpp): partition
// counts as Kafka's group coordinator derives them (kip1071 branch,
// group-coordinator/.../streams/topics/), the sub-topology graph, tasks.
#include "protocols/streams/topology.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace rsim::protocols::streams;

namespace {

SubtopologySpec sub(std::string id, std::vector<std::string> sources, std::vector<RepartitionTopic> sinks = {},
                    std::vector<std::string> stores = {}, std::vector<std::vector<std::string>> groups = {}) {
  return SubtopologySpec{std::move(id), std::move(sources), std::move(sinks), std::move(stores), std::move(groups)};
}

const ConfiguredSubtopology& find(const ConfiguredTopology& c, const std::string& id) {
  for (const auto& st : c.subtopologies)
    if (st.id == id) return st;
  FAIL("no subtopology " << id);
  throw;
}

// The message and place of the TopologyError building `subs` throws.
struct Refusal {
  std::string message;
  std::size_t subtopology = 0;
  Field field = Field::Id;
  std::size_t item = 0;
};
Refusal refusal(std::vector<SubtopologySpec> subs) {
  try {
    Topology::build(std::move(subs));
  } catch (const TopologyError& e) {
    return {e.what(), e.subtopology, e.field, e.item};
  }
  return {};
}

}  // namespace

TEST_SUITE("protocols") {
TEST_CASE("streams topology: a repartition topic takes the most partitions of its writer's sources, along a chain") {
  // Written out of order: the counts follow the dependency order, not the file's.
  const auto t = Topology::build({sub("2", {"r2"}, {}, {"final"}), sub("1", {"r1", "small"}, {{"r2", {}}}),
                                  sub("0", {"orders", "small"}, {{"r1", {}}}, {"totals"})});
  CHECK(t.dependency_order() == std::vector<std::size_t>{2, 1, 0});
  const auto c = configure(t, {{"orders", 8}, {"small", 3}});
  REQUIRE(c.ready());
  CHECK(c.repartition_partitions == std::map<std::string, int>{{"r1", 8}, {"r2", 8}});
  CHECK(find(c, "0").tasks == 8);
  CHECK(find(c, "1").tasks == 8);
  CHECK(find(c, "2").tasks == 8);
  CHECK(find(c, "2").changelogs.size() == 1);
  CHECK(find(c, "2").changelogs[0].name == "final-changelog");
  CHECK(find(c, "2").changelogs[0].partitions == 8);
}

TEST_CASE("streams topology: an enforced repartition count is kept and flows downstream") {
  const auto t = Topology::build({sub("0", {"orders"}, {{"r1", 4}}), sub("1", {"r1"}, {{"r2", {}}}), sub("2", {"r2", "small"})});
  const auto c = configure(t, {{"orders", 8}, {"small", 2}});
  REQUIRE(c.ready());
  CHECK(c.repartition_partitions.at("r1") == 4);
  CHECK(c.repartition_partitions.at("r2") == 4);
  CHECK(find(c, "2").tasks == 4);
}

TEST_CASE("streams topology: a diamond takes the widest branch, and two writers of one topic the most of both") {
  // 0 reads orders (6) and writes a, b; 1 reads a, adds wide (12), writes c; 2 reads b, writes c; 3 reads c.
  const auto t = Topology::build({sub("3", {"c"}, {}, {"joined"}), sub("1", {"a", "wide"}, {{"c", {}}}),
                                  sub("2", {"b"}, {{"c", {}}}), sub("0", {"orders"}, {{"a", {}}, {"b", {}}})});
  CHECK(t.writers_of("c") == std::vector<std::size_t>{1, 2});
  const auto c = configure(t, {{"orders", 6}, {"wide", 12}});
  REQUIRE(c.ready());
  CHECK(c.repartition_partitions == std::map<std::string, int>{{"a", 6}, {"b", 6}, {"c", 12}});
  CHECK(find(c, "3").tasks == 12);
  CHECK(find(c, "3").stateful);
  CHECK_FALSE(find(c, "2").stateful);
}

TEST_CASE("streams topology: a repartition cycle is an error at the source that closes it") {
  const auto r = refusal({sub("0", {"orders", "back"}, {{"fwd", {}}}), sub("1", {"fwd"}, {{"back", {}}})});
  CHECK(r.message == "repartition topics form a cycle: '0' -[fwd]-> '1' -[back]-> '0'");
  CHECK(r.subtopology == 0);
  CHECK(r.field == Field::Source);
  CHECK(r.item == 1);
  // Reading what it writes itself is a cycle of one.
  CHECK(refusal({sub("0", {"orders", "self"}, {{"self", {}}})}).message == "repartition topics form a cycle: '0' -[self]-> '0'");
}

TEST_CASE("streams topology: structural errors name the sub-topology and the entry") {
  const auto twice = refusal({sub("0", {"a"}), sub("0", {"b"})});
  CHECK(twice.message == "subtopology '0' is declared twice");
  CHECK(twice.subtopology == 1);
  CHECK(refusal({sub("0", {})}).message == "subtopology '0' reads no topic");
  const auto group = refusal({sub("0", {"a", "b"}, {}, {}, {{"a", "c"}})});
  CHECK(group.message == "co-partition group names 'c', which subtopology '0' does not read");
  CHECK(group.field == Field::Copartition);
  const auto counts = refusal({sub("0", {"a"}, {{"r", 4}}), sub("1", {"b"}, {{"r", 6}}), sub("2", {"r"})});
  CHECK(counts.message == "repartition topic 'r' has 6 partitions here but 4 in subtopology '0'");
  CHECK(counts.subtopology == 1);
}

TEST_CASE("streams topology: co-partitioned source topics must agree; repartition topics are made to match") {
  SUBCASE("external topics with different counts: STREAMS_INCONSISTENT_INTERNAL_TOPICS") {
    const auto t = Topology::build({sub("0", {"a"}, {{"r", {}}}), sub("1", {"left", "right", "r"}, {}, {}, {{"left", "right"}})});
    const auto c = configure(t, {{"a", 2}, {"left", 4}, {"right", 6}});
    CHECK(c.status == TopologyStatus::InconsistentInternalTopics);
    CHECK(c.status_detail == "Topics not co-partitioned: [{left=4, right=6}]");
    CHECK(c.failed_subtopology == 1);
    CHECK(c.task_ids().empty());
    // After add-partitions the same topology configures.
    CHECK(configure(t, {{"a", 2}, {"left", 6}, {"right", 6}}).ready());
  }
  SUBCASE("a derived repartition topic takes its external partner's count, and so do the tasks") {
    const auto t = Topology::build({sub("0", {"orders"}, {{"by-customer", {}}}),
                                    sub("1", {"by-customer", "customers"}, {}, {"joined"}, {{"by-customer", "customers"}})});
    const auto c = configure(t, {{"orders", 12}, {"customers", 4}});
    REQUIRE(c.ready());
    CHECK(c.repartition_partitions.at("by-customer") == 4);
    CHECK(find(c, "1").tasks == 4);
    CHECK(find(c, "1").changelogs[0].partitions == 4);
  }
  SUBCASE("an enforced repartition count that differs from its partner's") {
    const auto t = Topology::build({sub("0", {"orders"}, {{"by-customer", 8}}),
                                    sub("1", {"by-customer", "customers"}, {}, {}, {{"by-customer", "customers"}})});
    const auto c = configure(t, {{"orders", 12}, {"customers", 4}});
    CHECK(c.status == TopologyStatus::InconsistentInternalTopics);
    CHECK(c.status_detail == "Number of partitions [8] of repartition topic [by-customer] doesn't match number of partitions [4] of the source topic.");
  }
  SUBCASE("repartition topics only: the most of them, or the enforced one") {
    const auto t = Topology::build({sub("0", {"small"}, {{"x", {}}}), sub("1", {"big"}, {{"y", {}}}), sub("2", {"x", "y"}, {}, {}, {{"x", "y"}})});
    auto c = configure(t, {{"small", 2}, {"big", 5}});
    REQUIRE(c.ready());
    CHECK(c.repartition_partitions == std::map<std::string, int>{{"x", 5}, {"y", 5}});
    const auto e = Topology::build({sub("0", {"small"}, {{"x", 3}}), sub("1", {"big"}, {{"y", {}}}), sub("2", {"x", "y"}, {}, {}, {{"x", "y"}})});
    c = configure(e, {{"small", 2}, {"big", 5}});
    REQUIRE(c.ready());
    CHECK(c.repartition_partitions == std::map<std::string, int>{{"x", 3}, {"y", 3}});
    const auto both = Topology::build({sub("0", {"small"}, {{"x", 3}}), sub("1", {"big"}, {{"y", 4}}), sub("2", {"x", "y"}, {}, {}, {{"x", "y"}})});
    CHECK(configure(both, {{"small", 2}, {"big", 5}}).status_detail == "Following topics do not have the same number of partitions: [{x=3, y=4}]");
  }
  SUBCASE("when no sub-topology reads a repartition topic Kafka skips the check") {
    const auto t = Topology::build({sub("0", {"left", "right"}, {{"unread", {}}}, {}, {{"left", "right"}})});
    const auto c = configure(t, {{"left", 4}, {"right", 6}});
    REQUIRE(c.ready());
    CHECK(find(c, "0").tasks == 6);
  }
}

TEST_CASE("streams topology: missing source topics are a status of the metadata, and flip when the topic is created") {
  const auto t = Topology::build({sub("0", {"orders", "payments"}, {{"r", {}}}), sub("1", {"r", "customers"})});
  CHECK(t.external_source_topics() == std::vector<std::string>{"customers", "orders", "payments"});
  TopicMetadata metadata{{"orders", 4}};
  auto c = configure(t, metadata);
  CHECK(c.status == TopologyStatus::MissingSourceTopics);
  CHECK(std::string(status_name(c.status)) == "MISSING_SOURCE_TOPICS");
  CHECK(c.missing_source_topics == std::vector<std::string>{"customers", "payments"});
  CHECK(c.status_detail == "Missing source topics: customers, payments");
  CHECK(c.task_ids().empty());
  metadata["payments"] = 6;
  CHECK(configure(t, metadata).missing_source_topics == std::vector<std::string>{"customers"});
  metadata["customers"] = 2;  // create-topic
  c = configure(t, metadata);
  REQUIRE(c.ready());
  CHECK(c.repartition_partitions.at("r") == 6);
  CHECK(find(c, "1").tasks == 6);
}

TEST_CASE("streams topology: task ids print as Kafka Streams' TaskId, SUBTOPOLOGY_PARTITION") {
  CHECK(task_id("0", 3) == "0_3");
  const auto t = Topology::build({sub("0", {"orders"}, {{"r", {}}}, {"totals", "counts"}), sub("1", {"r", "tiny"})});
  const auto c = configure(t, {{"orders", 3}, {"tiny", 1}});
  REQUIRE(c.ready());
  CHECK(c.task_ids() == std::vector<std::string>{"0_0", "0_1", "0_2", "1_0", "1_1", "1_2"});
  CHECK(find(c, "0").stateful);
  CHECK(find(c, "0").changelogs.size() == 2);
  CHECK_FALSE(find(c, "1").stateful);
  CHECK(find(c, "1").changelogs.empty());
}
}
