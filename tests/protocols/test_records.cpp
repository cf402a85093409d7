// The group's records as Kafka writes them: sizes computed by hand from
// Kafka's encodings (a key: int16 type, int16-length strings; a value:
// int16 version, compact strings and arrays, a tagged-field count per
// struct; in a batch: DefaultRecord's varint framing), the records a run
// writes (`run --records`), and the 1 MB target assignment batch flag.
#include "protocols/consumer/records.hpp"
#include "protocols/streams/records.hpp"
#include "tests/protocols/run_helpers.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

using namespace rsim;
using namespace rsim::protocols;

namespace {

streams::TaskId task(const char* sub, int p) { return streams::TaskId{sub, p}; }

std::vector<nlohmann::json> lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

const char* kGroup = R"(
name: records
duration: 2m
protocol: streams
topics: [{name: T, partitions: 4}]
topology: {subtopologies: [{id: "0", source: [T], state: [store]}]}
config: {group.id: app}
members: [{id: A}, {id: B}]
)";

}  // namespace

TEST_SUITE("protocols") {

TEST_CASE("records: sizes with Kafka's encodings, computed by hand") {
  const streams::RecordContext ctx{"g", nullptr, 0};
  // StreamsGroupTargetAssignmentMetadata: key 2 + (2 + 1) = 5; value 2 + 4 +
  // 1 (tagged fields) = 7; in a batch at offset 0: 1 attributes + 1
  // timestamp + 1 offset + (1 + 5) + (1 + 7) + 1 headers = 18, plus its
  // length: 19.
  auto epoch = streams::coordinator_records(epoch::TargetEpochRecord{3}, ctx, true);
  REQUIRE(epoch.size() == 1);
  CHECK(epoch[0].name == "StreamsGroupTargetAssignmentMetadata");
  CHECK(epoch[0].type == 20);
  CHECK(epoch[0].key_bytes == 5);
  CHECK(epoch[0].value_bytes == 7);
  CHECK(epoch::bytes_in_batch(epoch[0], 0) == 19);
  CHECK(epoch[0].value == nlohmann::ordered_json{{"AssignmentEpoch", 3}});

  // StreamsGroupTargetAssignmentMember of member "m", actives 0_0 and 0_1:
  // key 2 + 3 + 3 = 8; value 2 + ActiveTasks (1 count + SubtopologyId 2 +
  // Partitions 1 + 8 + 1 tagged = 13) + StandbyTasks 1 + WarmupTasks 1 + 1
  // tagged = 18; in a batch at offset 1: 1 + 1 + 1 + 9 + 19 + 1 = 32, 33.
  streams::TasksTuple target;
  target.active = {task("0", 0), task("0", 1)};
  auto member = streams::coordinator_records(epoch::TargetAssignmentRecord<streams::StreamsTasks>{"m", target}, ctx, true);
  REQUIRE(member.size() == 1);
  CHECK(member[0].key_bytes == 8);
  CHECK(member[0].value_bytes == 18);
  CHECK(epoch::bytes_in_batch(member[0], 1) == 33);
  CHECK(member[0].value["ActiveTasks"][0]["Partitions"] == nlohmann::ordered_json{0, 1});

  // A batch: the 61-byte header and its records.
  CHECK(epoch::batch_bytes({member[0], epoch[0]}) == 61 + 33 + 19);  // one-byte offset deltas either way

  // A member leaves: three tombstones (value length -1: one byte).
  auto gone = streams::coordinator_records(epoch::MemberTombstone{"m"}, ctx, true);
  REQUIRE(gone.size() == 3);
  CHECK(gone[0].name == "StreamsGroupCurrentMemberAssignment");
  CHECK(gone[1].name == "StreamsGroupTargetAssignmentMember");
  CHECK(gone[2].name == "StreamsGroupMemberMetadata");
  for (const auto& t : gone) {
    CHECK_FALSE(t.value_bytes);
    CHECK(t.key_bytes == 8);
    CHECK(epoch::bytes_in_batch(t, 0) == 15);  // 1 + 1 + 1 + 9 + 1 + 1, plus its length
  }

  // ConsumerGroupCurrentMemberAssignment of "m" at epoch 4 owning T-0:
  // value 2 + 4 + 4 + 1 + AssignedPartitions (1 + uuid 16 + 1 + 4 + 1 = 23)
  // + PartitionsPendingRevocation 1 + 1 = 36.
  epoch::CurrentAssignment<consumer::Partitions::Assignment> current;
  current.epoch = 4;
  current.previous_epoch = 3;
  current.assigned = {TopicPartition{"T", 0}};
  auto owned = consumer::coordinator_records(epoch::CurrentAssignmentRecord<consumer::Partitions>{"m", current},
                                             consumer::RecordContext{"g", "uniform"}, true);
  REQUIRE(owned.size() == 1);
  CHECK(owned[0].type == 8);
  CHECK(owned[0].value_bytes == 36);
  CHECK(owned[0].value["State"] == 1);
}

TEST_CASE("records: a Streams run writes Kafka's records, batched by coordinator operation") {
  std::ostringstream out;
  auto s = scenario::load_text(std::string(kGroup) + "events: [{at: 60s, leave: B}]\n", "records.yaml");
  scenario::RunOptions o;
  o.records = &out;
  const auto r = scenario::run(s, o);
  const auto rows = lines(out.str());
  REQUIRE(rows.size() > 6);
  // The group is created with its topology, in the first member's batch; its
  // first target waits for the initial rebalance delay (3 s) and is written
  // at its end, in one batch of its own: both members' targets and the epoch.
  std::map<std::int64_t, std::vector<std::string>> batches;
  for (const auto& row : rows) batches[row["batch"].get<std::int64_t>()].push_back(row["record"]);
  CHECK(batches[0] == std::vector<std::string>{"StreamsGroupMemberMetadata", "StreamsGroupTopology",
                                               "StreamsGroupMetadata", "StreamsGroupCurrentMemberAssignment"});
  CHECK(batches[1] == std::vector<std::string>{"StreamsGroupMemberMetadata", "StreamsGroupMetadata",
                                               "StreamsGroupCurrentMemberAssignment"});
  CHECK(batches[2] == std::vector<std::string>{"StreamsGroupTargetAssignmentMember", "StreamsGroupTargetAssignmentMember",
                                               "StreamsGroupTargetAssignmentMetadata"});
  for (const auto& row : rows)
    if (row["batch"] == 2) CHECK(row["time_us"] == 3'001'000);
  CHECK(rows[1]["value"]["Subtopologies"][0]["StateChangelogTopics"][0]["Name"] == "store-changelog");
  CHECK(rows[0]["key"]["GroupId"] == "app");
  // Offsets count every record; B's leave writes its three tombstones.
  std::size_t tombstones = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i]["offset"] == i);
    if (rows[i]["value"].is_null()) {
      ++tombstones;
      CHECK(rows[i]["key"]["MemberId"] == "B-1");
    }
  }
  CHECK(tombstones == 3);
  // The same run without the file: the same trace.
  CHECK(scenario::run(s).trace.events().size() == r.trace.events().size());
}

TEST_CASE("records: a consumer group writes ConsumerGroup records") {
  std::ostringstream out;
  auto s = scenario::load_text(R"(
name: c
duration: 1m
protocol: consumer
topics: [{name: T, partitions: 3}]
members: [{id: A, subscribe: [T]}]
)", "c.yaml");
  scenario::RunOptions o;
  o.records = &out;
  scenario::run(s, o);
  const auto rows = lines(out.str());
  REQUIRE(rows.size() >= 4);
  CHECK(rows[0]["record"] == "ConsumerGroupMemberMetadata");
  CHECK(rows[0]["value"]["SubscribedTopicNames"] == nlohmann::json{"T"});
  CHECK(rows[0]["value"]["ServerAssignor"] == "uniform");
  CHECK(rows[1]["record"] == "ConsumerGroupMetadata");
  CHECK(rows[2]["record"] == "ConsumerGroupTargetAssignmentMember");
  CHECK(rows[2]["value"]["TopicPartitions"][0]["Partitions"] == nlohmann::json{0, 1, 2});
}

TEST_CASE("records: a target assignment batch over message.max.bytes is flagged, with the metric") {
  const auto fits = testing::run(kGroup);
  REQUIRE(fits.m.target_batch_max);
  CHECK(*fits.m.target_batch_max > 61);
  CHECK(fits.m.target_batch_over_limit == 0);
  // The same group with a limit one byte below its largest batch.
  std::string text = kGroup;
  text.replace(text.find("group.id: app"), 13, fmt::format("group.id: app, message.max.bytes: {}", *fits.m.target_batch_max - 1));
  const auto over = testing::run(text);
  CHECK(over.m.target_batch_over_limit >= 1);
  bool flagged = false;
  for (const auto& ev : over.r.trace.events())
    if (ev.kind == "batch-too-large") {
      flagged = true;
      CHECK(*ev.integer("bytes") == *fits.m.target_batch_max);
      CHECK(*ev.integer("limit") == *fits.m.target_batch_max - 1);
    }
  CHECK(flagged);
}

// Too slow under the sanitizers' debug build (minutes); the plain build
// runs it in seconds.
#if !defined(__SANITIZE_ADDRESS__)
TEST_CASE("records: the bundled large Streams group's target assignment batches pass 1 MB") {
  const auto x = testing::run_bundled("scenarios/streams/large-group.yaml");
  REQUIRE(x.m.target_batch_max);
  // 90,000 tasks in three roles at 4 bytes, and the members' records.
  CHECK(*x.m.target_batch_max > 1048588);
  CHECK(*x.m.target_batch_max < 1100000);
  CHECK(x.m.target_batch_over_limit == 4);  // at the formation's third epoch and at each of the three scale-out joins
  CHECK_FALSE(x.m.violation);
}
#endif

}  // TEST_SUITE
