// The assignor vectors from Kafka's own test suites (tests/vectors/), run
// through the same runner as `rebalance-sim vectors`.
#include "protocols/assignors/cooperative_sticky.hpp"
#include "protocols/assignors/java_order.hpp"
#include "protocols/assignors/range.hpp"
#include "protocols/assignors/roundrobin.hpp"
#include "protocols/assignors/server.hpp"
#include "scenarios/errors.hpp"
#include "sim/random.hpp"
#include "tools/vectors/connect_grammar.hpp"
#include "tools/vectors/properties.hpp"
#include "tools/vectors/runner.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

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
        CHECK(c.detail.rfind("cannot check property", 0) == 0);
      if (c.status == vectors::Status::Pass) ++passed_by_assignor[c.assignor];
      if (c.status == vectors::Status::Skip) CHECK_FALSE(c.detail.empty());
    }
  }
  CHECK(files == 10);
  CHECK(passed_by_assignor["range"] == 24);  // client 15, broker side 9
  CHECK(passed_by_assignor["uniform"] == 15);  // homogeneous 7, heterogeneous 8
  CHECK(passed_by_assignor["roundrobin"] == 9);
  CHECK(passed_by_assignor["sticky"] == 38);              // 20 of them rack cases
  CHECK(passed_by_assignor["cooperative-sticky"] == 49);  // 29 of them rack cases
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

namespace {
std::map<std::string, const vectors::CaseResult*> by_name(const vectors::FileResult& r, const std::string& assignor) {
  std::map<std::string, const vectors::CaseResult*> out;
  for (const auto& c : r.cases)
    if (c.assignor == assignor) out[c.name] = &c;
  return out;
}
}  // namespace

TEST_CASE("vectors-extra: Connect steps and claims reworded read as the bundled ones; one unreadable step skips one case") {
  const auto bundled = vectors::run_file(std::string(RSIM_SOURCE_DIR) + "/tests/vectors/IncrementalCooperativeAssignorTest.yaml");
  const auto extra = vectors::run_file(std::string(RSIM_SOURCE_DIR) + "/tests/vectors-extra/IncrementalCooperativeAssignorTest.yaml");
  const auto b = by_name(bundled, "connect");
  const auto x = by_name(extra, "connect");
  REQUIRE(x.size() == extra.cases.size());
  // Same facts, other words: the bundled phrasing and the reworded one agree.
  CHECK(b.at("worker-bounces")->status == vectors::Status::Pass);
  CHECK(x.at("worker-bounces-reworded")->status == vectors::Status::Pass);
  CHECK(b.at("lost-assignment-worker-bounces")->status == vectors::Status::Pass);
  CHECK(x.at("lost-worker-bounces-reworded")->status == vectors::Status::Pass);
  // Kafka's methods the bundled file lacks, in new words.
  for (const char* name : {"worker-joins", "successive-revocations-max-delay-1", "connectors-deleted", "scheduled-delay-disabled",
                           "tasks-duplicated", "successive-rebalance-delay-above-zero", "lost-worker-leaves-permanently",
                           "lost-more-than-one-candidate"}) {
    CAPTURE(name);
    CAPTURE(x.at(name)->detail);
    CHECK(x.at(name)->status == vectors::Status::Pass);
  }
  const auto* unreadable = x.at("unreadable-step");
  CHECK(unreadable->status == vectors::Status::Skip);
  CHECK(unreadable->detail.find("unknown step 'worker2 hibernates in a cave' in a Connect round: unknown words hibernates cave") !=
        std::string::npos);
  // A checker that can fail: the planted delay is wrong.
  CHECK(x.at("planted-wrong-delay")->status == vectors::Status::Fail);
  CHECK(x.at("planted-wrong-delay")->detail.find("round 2: delay want 0 got 300000") != std::string::npos);
  CHECK(extra.count(vectors::Status::Pass) == static_cast<int>(extra.cases.size()) - 2);
}

TEST_CASE("vectors-extra: properties in other words are checked; an unknown one skips; a wrong one fails") {
  const auto r = vectors::run_file(std::string(RSIM_SOURCE_DIR) + "/tests/vectors-extra/AbstractStickyAssignorTest.yaml");
  for (const char* assignor : {"sticky", "cooperative-sticky"}) {
    CAPTURE(assignor);
    const auto c = by_name(r, assignor);
    for (const char* name : {"one-partition-two-consumers-keyed", "current-members-sticky", "uniform-idempotent", "rounds-assigned-set-only"}) {
      CAPTURE(name);
      CAPTURE(c.at(name)->detail);
      CHECK(c.at(name)->status == vectors::Status::Pass);
    }
    CHECK(c.at("unknown-property")->status == vectors::Status::Skip);
    CHECK(c.at("unknown-property")->detail.find("property 'every consumer feels appreciated'") != std::string::npos);
    CHECK(c.at("planted-wrong-assigned-set")->status == vectors::Status::Fail);
    CHECK(c.at("planted-wrong-assigned-set")->detail.find("assigned set: want topic-0,topic-1 got topic-0,topic-1,topic-2") != std::string::npos);
  }
}

TEST_CASE("connect grammar: one fact in several phrasings reads the same") {
  using namespace vectors::connect_grammar;
  auto verbs = [](const std::string& text) {
    std::vector<std::pair<Verb, std::vector<std::string>>> out;
    for (const auto& a : read_actions(text)) out.emplace_back(a.verb, a.names);
    return out;
  };
  const std::vector<std::pair<Verb, std::vector<std::string>>> join = {{Verb::Join, {"worker2"}}, {Verb::Rebalance, {}}};
  CHECK(verbs("add worker2; rebalance") == join);
  CHECK(verbs("worker2 joins, then rebalance") == join);
  CHECK(verbs("a new worker worker2 joined and the group rebalances") == join);
  CHECK(verbs("worker3 left") == verbs("remove worker3"));
  CHECK(verbs("remove worker2, worker3") == verbs("worker2 gone; worker3 crashes"));
  const auto half = read_actions("time advances by half the delay");
  REQUIRE(half.size() == 1);
  CHECK(half[0].verb == Verb::Sleep);
  CHECK(half[0].amount.of_delay);
  CHECK(half[0].amount.divisor == 2);
  CHECK(read_actions("sleep(delay/2)")[0].amount.divisor == 2);
  CHECK(read_actions("after 150 s")[0].amount.ms == 150000);
  const auto lagged = read_actions("rebalance with lastCompletedGeneration = generation-2");
  CHECK(lagged[0].generation_lag == 2);
  CHECK(read_actions("rebalance fails")[0].failed);
  CHECK(read_actions("failed rebalance (assignment computed but not applied)")[0].failed);
  const auto running = read_actions("add worker2 running connector1 + connector1-0..3");
  CHECK(running[0].items == std::vector<std::string>{"connector1", "connector1-0..3"});
  const auto listed = read_actions("worker2 joins with connector1 and connector1-0..3, then the group rebalances");
  REQUIRE(listed.size() == 2);
  CHECK(listed[0].items == running[0].items);
  CHECK(listed[1].verb == Verb::Rebalance);
  CHECK_THROWS_AS(read_actions("teleport worker2 to the moon"), Unreadable);
  CHECK_THROWS_AS(read_actions("sleep"), Unreadable);
  const auto claims = read_claims("no candidates, scheduledRebalance = now+300000; delay > 0, lost items go to general re-assignment");
  REQUIRE(claims.size() == 4);
  CHECK(claims[0].kind == ClaimKind::Candidates);
  CHECK(claims[0].names.empty());
  CHECK(claims[1].kind == ClaimKind::Scheduled);
  CHECK(claims[1].from_now);
  CHECK(claims[1].number == 300000);
  CHECK(claims[2].kind == ClaimKind::DelayAbove);
  CHECK(claims[3].kind == ClaimKind::LostToReassign);
  CHECK_THROWS_AS(read_claims("the workers are happy"), Unreadable);
}

TEST_CASE("property checkers fail when the property does not hold") {
  using TP = protocols::TopicPartition;
  protocols::GroupSnapshot g;
  g.topics = {{"t", 4}};
  g.members = {{"a", std::nullopt, std::nullopt, {"t"}, {TP{"t", 0}, TP{"t", 1}}, 1},
               {"b", std::nullopt, std::nullopt, {"t"}, {TP{"t", 2}, TP{"t", 3}}, 1}};
  std::string diff;
  // A swap moves partitions nobody needed moved.
  CHECK_FALSE(vectors::sticky(g, {{"a", {TP{"t", 0}, TP{"t", 2}}}, {"b", {TP{"t", 1}, TP{"t", 3}}}}, diff));
  CHECK(diff.find("not sticky: a lost t-1") != std::string::npos);
  CHECK(vectors::sticky(g, {{"a", {TP{"t", 0}, TP{"t", 1}}}, {"b", {TP{"t", 2}, TP{"t", 3}}}}, diff));
  CHECK_FALSE(vectors::valid_and_complete(g, {{"a", {TP{"t", 0}}}, {"b", {TP{"t", 0}}}}, diff));
}

TEST_CASE("vectors: a malformed file is an error with FILE:LINE:COLUMN, not a skipped case") {
  const std::string path = (std::filesystem::temp_directory_path() / "rsim-vectors-malformed.yaml").string();
  std::ofstream(path) << "cases: [\n  - name: x\n";
  CHECK_THROWS_AS(vectors::run_file(path), scenario::InputError);
  try {
    vectors::run_file(path);
  } catch (const scenario::InputError& e) {
    CHECK(std::string(e.what()).find(path + ":") != std::string::npos);
  }
  std::ofstream(path) << "source: x\n";
  CHECK_THROWS_AS(vectors::run_file(path), scenario::InputError);
  std::filesystem::remove(path);
}

// A value the assignors would size tables by is refused where it is written:
// that case is not run, and says why (the rest of the file still runs).
TEST_CASE("vectors: a negative partition count or an unbounded sample range skips its case with FILE:LINE:COLUMN") {
  const std::string path = (std::filesystem::temp_directory_path() / "rsim-vectors-counts.yaml").string();
  std::ofstream(path) << "assignor: uniform (server-side, KIP-848)\ncases:\n- name: x\n  input:\n    topics:\n      t: -1\n"
                         "    members:\n    - id: A\n      topics: [t]\n      current: {t: [0]}\n  expect:\n    error: x\n";
  const auto negative = vectors::run_file(path);
  REQUIRE(negative.cases.size() == 1);
  CHECK(negative.cases[0].status == vectors::Status::Skip);
  CHECK(negative.cases[0].detail.find(path + ":6:10: a topic's partition count must be") != std::string::npos);
  std::ofstream(path) << "assignor: uniform (server-side, KIP-848)\ncases:\n- name: x\n  input:\n    topics:\n"
                         "      t1..t2000000000: 3 partitions each\n    members:\n    - id: m1..m2\n  expect:\n    error: x\n";
  const auto unbounded = vectors::run_file(path);
  REQUIRE(unbounded.cases.size() == 1);
  CHECK(unbounded.cases[0].status == vectors::Status::Skip);
  CHECK(unbounded.cases[0].detail.find(path + ":6:7: a range of topics must go upwards and name at most 100000") !=
        std::string::npos);
  std::filesystem::remove(path);
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

// Members are sorted by their ids' bytes after the prefix all share, packed
// in an integer, and by whole ids only where those are equal: the order
// must be std::string's wherever the packed bytes cannot tell (a shorter id
// against one with a zero byte, ids longer than the packed bytes, bytes
// past 0x7f), and equal ids must leave the order to the caller.
TEST_CASE("member ids sort as std::string compares them; equal ids give no order") {
  const std::vector<std::string> ids{"member10", "member9", "member100", std::string("member1\0", 8), "member1",
                                     "member1234567890b", "member1234567890a", "member\xff", "member\x7f", "mem",
                                     "member", "member12345678", "member12345677z"};
  std::vector<std::string_view> keys(ids.begin(), ids.end());
  const auto order = protocols::distinct_string_order(keys);
  REQUIRE(order.has_value());
  std::vector<std::string> got;
  for (auto i : *order) got.push_back(ids[i]);
  auto expected = ids;
  std::sort(expected.begin(), expected.end());
  CHECK(got == expected);
  CHECK(protocols::distinct_string_order({}) == std::vector<std::size_t>{});
  CHECK(protocols::distinct_string_order({"a", "b", "a"}) == std::nullopt);
  CHECK(protocols::distinct_string_order({"x12345678a", "x12345678a"}) == std::nullopt);

  // Statics first by instance id, then dynamics by member id; a repeated
  // instance id falls back to the comparison sort (the answer is still sorted).
  struct M {
    std::string member_id;
    std::optional<std::string> instance_id;
  };
  const std::vector<M> members{{"member10", std::nullopt}, {"member2", std::string("i-b")}, {"member9", std::nullopt},
                               {"member1", std::string("i-a")}, {"member100", std::nullopt}};
  std::vector<std::string> sorted;
  for (const auto* m : protocols::sorted_by_instance_then_member(members)) sorted.push_back(m->member_id);
  CHECK(sorted == std::vector<std::string>{"member1", "member2", "member10", "member100", "member9"});
  const std::vector<M> repeated{{"b", std::string("i")}, {"a", std::string("i")}, {"c", std::nullopt}};
  CHECK(protocols::sorted_by_instance_then_member(repeated).back()->member_id == "c");
}

// Random key sets built to tie: a long shared prefix, numbered ids, an outlier with none
// ("newMember" beside "member1234"), trailing zero bytes, bytes past 0x7f,
// keys tying past the 64 bytes packed; a fifth of the sets with a key
// given twice. Every order must be std::string's; a set with a repeated key
// has none.
TEST_CASE("member id order matches std::sort on random keys that tie") {
  rsim::Rng rng(20261207);
  const std::string alphabet{'\0', '\x01', 'a', '9', '\x7f', static_cast<char>(0x80), static_cast<char>(0xff)};
  int with_repeats = 0;
  for (int round = 0; round < 400; ++round) {
    const std::string prefix(static_cast<std::size_t>(rng.below(80)), 'p');
    const auto count = static_cast<std::size_t>(1 + rng.below(rng.chance(0.25) ? 3000 : 300));  // radix-sorted past 256
    const auto letters = 2 + rng.below(alphabet.size() - 1);  // few letters: ties 8 bytes deep
    const bool numbered = rng.chance(0.3);
    const std::uint64_t numbers = std::array<std::uint64_t, 4>{300, 3000, 30000, 300000}[rng.below(4)];  // 3 to 6 digits
    std::vector<std::string> ids;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < count; ++i) {
      std::string id = rng.chance(0.05) ? std::string() : prefix;
      if (numbered) id += std::to_string(rng.below(numbers));  // as "member1234": a few bytes vary (radix-sorted)
      for (auto n = rng.below(numbered ? 2 : 20); n > 0; --n) id += alphabet[static_cast<std::size_t>(rng.below(letters))];
      if (rng.chance(0.1)) id.append(static_cast<std::size_t>(rng.below(70)), '\0');
      if (seen.insert(id).second) ids.push_back(std::move(id));
    }
    if (rng.chance(0.2)) ids.push_back(ids[static_cast<std::size_t>(rng.below(ids.size()))]);
    std::vector<std::string_view> keys(ids.begin(), ids.end());
    auto expected = ids;
    std::sort(expected.begin(), expected.end());
    const bool repeats = std::adjacent_find(expected.begin(), expected.end()) != expected.end();
    const auto order = protocols::distinct_string_order(keys);
    if (repeats) {
      ++with_repeats;
      CHECK_FALSE(order.has_value());
      continue;
    }
    REQUIRE(order.has_value());
    std::vector<std::string> got;
    for (auto i : *order) got.push_back(ids[i]);
    CHECK(got == expected);
  }
  CHECK(with_repeats > 40);  // both kinds of set, many of each
  CHECK(with_repeats < 120);
  MESSAGE("sets with a repeated key: " << with_repeats);
}

// A java.util.HashMap iterates bucket by bucket (the spread hash masked by
// the table size), in insertion order within a bucket.
TEST_CASE("Java HashMap order: by bucket at the capacity, insertion order within one; capacity a power of two") {
  using protocols::java::iteration_order;
  const std::vector<std::int32_t> hashes{18, 1, 33, 16};
  CHECK(iteration_order(hashes, 16) == std::vector<std::size_t>{3, 1, 2, 0});  // buckets 2, 1, 1, 0
  CHECK(iteration_order(hashes, 32) == std::vector<std::size_t>{1, 2, 3, 0});  // buckets 18, 1, 1, 16
  CHECK(iteration_order({4, 1}, 20) == std::vector<std::size_t>{1, 0});        // rounded up to 32: buckets 4, 1
  CHECK(iteration_order(hashes, 0) == std::vector<std::size_t>{0, 1, 2, 3});   // one bucket
  CHECK(iteration_order(hashes, 1) == std::vector<std::size_t>{0, 1, 2, 3});
  CHECK(iteration_order({65536, 0}, 16) == std::vector<std::size_t>{1, 0});  // spread: h ^ (h >>> 16)
  CHECK(protocols::java::capacity_for(12) == 16);
  CHECK(protocols::java::capacity_for(13) == 32);
}

// The topic id order a vector file gives: the subscribed topics in its
// order (a name it repeats, repeated; one not subscribed, skipped), then the
// subscribed ones it leaves out, in theirs (looked up in sets: a file may
// name hundreds of thousands).
TEST_CASE("topic id order: the given order's subscribed topics, then the rest") {
  using protocols::topic_id_order;
  CHECK(topic_id_order({"b", "x", "a", "b"}, {"c", "a", "b", "d", "c"}) ==
        std::vector<std::string>{"b", "a", "b", "c", "d"});
  CHECK(topic_id_order({"x"}, {"b", "a"}) == std::vector<std::string>{"b", "a"});
  CHECK(topic_id_order({"a"}, {}).empty());
}

// The metadata a spec carries, resolved once: topics by rank in name order
// (a topic it does not hold, even one interned after it, has none), and
// every rank in the order a Java HashSet of the topics' ids iterates.
TEST_CASE("topic metadata: ranks in name order, the topic id order") {
  const protocols::TopicMetadata m({{"orders", 3}, {"audit", -1}, {"clicks", 2}});
  REQUIRE(m.size() == 3);
  CHECK(m.topics()[0].first.name() == "audit");
  CHECK(m.rank(protocols::Topic("clicks")) == 1);
  CHECK(m.rank(protocols::Topic("orders")) == 2);
  CHECK(m.rank(protocols::Topic("interned-after-the-metadata")) == -1);
  CHECK(m.rank_of_name("clicks") == 1);
  CHECK(m.rank_of_name("click") == -1);
  std::vector<std::int32_t> hashes;
  for (const char* t : {"audit", "clicks", "orders"}) hashes.push_back(protocols::java::string_hash(t));
  std::vector<int> expected;
  for (auto k : protocols::java::iteration_order(hashes, protocols::java::capacity_for(3))) expected.push_back(static_cast<int>(k));
  CHECK(m.ranks_in_id_order() == expected);
  CHECK(m.id_hash(2) == protocols::java::string_hash("orders"));
  // A spec built by hand without metadata or subscription lists holds no
  // topics: every member gets nothing.
  protocols::GroupSpec bare;
  bare.members.push_back({"m0", std::nullopt, nullptr, nullptr});
  const protocols::UniformAssignor uniform;
  const protocols::ServerRangeAssignor range;
  const std::vector<const protocols::ServerAssignor*> assignors{&uniform, &range};
  for (const auto* assignor : assignors) {
    const auto target = assignor->assign(bare);
    REQUIRE(target.size() == 1);
    CHECK(target[0]->empty());
  }
}

// A fresh deal over many one-partition topics gives each member a short
// list of many topics, dealt in topic id order: answered in TopicPartition
// order (sorted in place when short, merged by runs when long).
TEST_CASE("uniform: lists dealt over many topics come in TopicPartition order") {
  for (int topics : {5, 40, 120}) {
    protocols::GroupSnapshot g;
    std::vector<std::string> names;
    for (int t = 0; t < topics; ++t) names.push_back("t" + std::to_string((t * 37) % topics));
    for (const auto& n : names) g.topics[n] = 1;
    for (const char* id : {"m0", "m1"}) g.members.push_back({id, std::nullopt, std::nullopt, names, {}, -1});
    const auto a = protocols::UniformAssignor().assign(g);
    std::size_t total = 0;
    for (const auto& [id, list] : a) {
      CHECK(std::is_sorted(list.begin(), list.end()));
      CHECK(std::adjacent_find(list.begin(), list.end()) == list.end());
      total += list.size();
    }
    CHECK(total == static_cast<std::size_t>(topics));
  }
}

// The broker-side range builds each topic's subscribers per distinct
// subscription: a topic only one subscription lists shares its members' list,
// one that several list merges them in sorted order, and members past the
// topic's partition count get none of it.
TEST_CASE("server range: subscribers per subscription, merged in sorted order where subscriptions share a topic") {
  protocols::GroupSnapshot g;
  g.topics = {{"x", 5}, {"y", 3}, {"z", 2}, {"w", 1}};
  // Subscriptions in member order: [x, y], [x], [x, y] again (not the member
  // before it: a third entry), [z, w] twice (one entry).
  g.members = {{"a", std::nullopt, std::nullopt, {"x", "y"}, {}, -1},
               {"b", std::nullopt, std::nullopt, {"x"}, {}, -1},
               {"c", std::string("static-c"), std::nullopt, {"x", "y"}, {}, -1},
               {"d", std::nullopt, std::nullopt, {"z", "w"}, {}, -1},
               {"e", std::nullopt, std::nullopt, {"z", "w"}, {}, -1}};
  const auto a = protocols::ServerRangeAssignor().assign(g);
  using TP = protocols::TopicPartition;
  // Sorted order: static c first, then a, b, d, e. x: c, a, b = 2 + 2 + 1;
  // y: c, a = 2 + 1; z: d, e = 1 + 1; w (one partition): d only.
  CHECK(a.at("c") == std::vector<TP>{{"x", 0}, {"x", 1}, {"y", 0}, {"y", 1}});
  CHECK(a.at("a") == std::vector<TP>{{"x", 2}, {"x", 3}, {"y", 2}});
  CHECK(a.at("b") == std::vector<TP>{{"x", 4}});
  CHECK(a.at("d") == std::vector<TP>{{"w", 0}, {"z", 0}});
  CHECK(a.at("e") == std::vector<TP>{{"z", 1}});
}

// The broker-side range answers a run of partitions per member and topic
// (Kafka's RangeSet): sized without building the list, built once at the
// first read, the list the snapshot path gives; a member past every
// topic's partitions gets the empty list. A plain list is what it was given.
TEST_CASE("server range: a member's target is a run per topic, built into its list when first read") {
  using TP = protocols::TopicPartition;
  protocols::GroupSnapshot g;
  g.topics = {{"x", 5}, {"y", 2}};
  for (const char* id : {"m0", "m1", "m2"}) g.members.push_back({id, std::nullopt, std::nullopt, {"x", "y"}, {}, -1});
  const auto spec = protocols::group_spec(g);
  const auto target = protocols::ServerRangeAssignor().assign(spec);
  REQUIRE(target.size() == 3);
  CHECK(target[0].size() == 3);  // x-0, x-1, y-0: not built yet
  CHECK(target[2].size() == 1);  // x-4
  const auto& built = target[0].shared();
  CHECK(*built == std::vector<TP>{{"x", 0}, {"x", 1}, {"y", 0}});
  CHECK(&target[0].shared() == &built);  // built once
  CHECK(target[0].is(built));
  CHECK(*target[1] == std::vector<TP>{{"x", 2}, {"x", 3}, {"y", 1}});
  CHECK(*target[2] == std::vector<TP>{{"x", 4}});
  CHECK(target[1]->size() == target[1].size());
  const auto by_snapshot = protocols::ServerRangeAssignor().assign(g);
  for (std::size_t i = 0; i < 3; ++i) CHECK(by_snapshot.at(spec.members[i].member_id) == *target[i]);
  // More members than partitions of every topic: the last gets nothing.
  g.members.push_back({"m3", std::nullopt, std::nullopt, {"x", "y"}, {}, -1});
  g.members.push_back({"m4", std::nullopt, std::nullopt, {"x", "y"}, {}, -1});
  g.members.push_back({"m5", std::nullopt, std::nullopt, {"x", "y"}, {}, -1});
  const auto six = protocols::ServerRangeAssignor().assign(protocols::group_spec(g));
  CHECK(six[5].size() == 0);
  CHECK(six[5]->empty());
  const auto list = std::make_shared<const std::vector<TP>>(std::vector<TP>{{"x", 1}});
  const protocols::MemberAssignment given(list);
  CHECK(given.is(list));
  CHECK(given.size() == 1);
  CHECK_FALSE(given.is(std::make_shared<const std::vector<TP>>(*list)));  // equal, not the same list
  CHECK_FALSE(given.is(nullptr));
}

// Kafka's builders hand back a member's own assignment object when it does
// not change: a member that keeps exactly its quota, in order, gets its list
// back (the same object); a member that gains or whose list was out of order
// gets a new one. The answer is the snapshot path's either way.
TEST_CASE("uniform on a group spec: an unchanged member's list is shared, a changed one is new") {
  using TP = protocols::TopicPartition;
  protocols::GroupSnapshot g;
  g.topics = {{"a", 7}, {"b", 3}};
  for (const char* id : {"m0", "m1", "m2", "m3"}) g.members.push_back({id, std::nullopt, std::nullopt, {"a", "b"}, {}, -1});
  const protocols::UniformAssignor uniform;
  const auto fresh = protocols::group_spec(g);
  const auto first = uniform.assign(fresh);
  REQUIRE(first.size() == 4);
  CHECK(*first[0] == std::vector<TP>{{"a", 0}, {"a", 1}, {"a", 2}});  // quotas 3, 3, 2, 2 dealt in order
  CHECK(*first[3] == std::vector<TP>{{"b", 1}, {"b", 2}});
  auto later = fresh;
  for (std::size_t i = 0; i < 4; ++i) later.members[i].assignment = first[i].shared();
  later.members.pop_back();  // m3 leaves: quotas 4, 3, 3
  const auto second = uniform.assign(later);
  CHECK(second[1].is(first[1].shared()));  // kept its quota of 3: the same object
  CHECK_FALSE(second[0].is(first[0].shared()));  // gained one
  CHECK_FALSE(second[2].is(first[2].shared()));  // gained one
  CHECK(*second[0] == std::vector<TP>{{"a", 0}, {"a", 1}, {"a", 2}, {"b", 1}});
  CHECK(*second[2] == std::vector<TP>{{"a", 6}, {"b", 0}, {"b", 2}});
  // A list out of order is answered in order, in a new list.
  auto reversed = later;
  reversed.members[1].assignment = std::make_shared<const std::vector<TP>>(std::vector<TP>{{"a", 5}, {"a", 4}, {"a", 3}});
  const auto third = uniform.assign(reversed);
  CHECK_FALSE(third[1].is(reversed.members[1].assignment));
  CHECK(*third[1] == std::vector<TP>{{"a", 3}, {"a", 4}, {"a", 5}});
  // So is a list whose topics are out of order.
  reversed.members[1].assignment = std::make_shared<const std::vector<TP>>(std::vector<TP>{{"b", 1}, {"a", 3}, {"a", 4}});
  const auto fourth = uniform.assign(reversed);
  CHECK_FALSE(fourth[1].is(reversed.members[1].assignment));
  CHECK(*fourth[1] == std::vector<TP>{{"a", 3}, {"a", 4}, {"b", 1}});
  // A member that keeps all it had, in order, and is dealt more gets both
  // merged in topic order, not its list and then the new ones.
  protocols::GroupSnapshot merged;
  merged.topics = {{"a", 4}, {"b", 2}};
  merged.members = {{"m0", std::nullopt, std::nullopt, {"a", "b"}, {{"b", 1}}, -1},
                    {"m1", std::nullopt, std::nullopt, {"a", "b"}, {{"a", 1}}, -1},
                    {"m2", std::nullopt, std::nullopt, {"a", "b"}, {}, -1}};
  const auto m = uniform.assign(merged);  // quotas 2, 2, 2; a-0, a-2, a-3, b-0 dealt in order
  CHECK(m.at("m0") == std::vector<TP>{{"a", 0}, {"b", 1}});
  CHECK(m.at("m1") == std::vector<TP>{{"a", 1}, {"a", 2}});
  CHECK(m.at("m2") == std::vector<TP>{{"a", 3}, {"b", 0}});
  // A member whose list names a topic it no longer subscribes to drops
  // those partitions, keeps the rest and is dealt more, all in one list.
  protocols::GroupSnapshot dropped;
  dropped.topics = {{"a", 6}, {"b", 2}};
  dropped.members = {{"m0", std::nullopt, std::nullopt, {"a"}, {{"a", 3}, {"b", 0}, {"a", 1}}, -1},
                     {"m1", std::nullopt, std::nullopt, {"a"}, {}, -1}};
  const auto d = uniform.assign(dropped);  // quotas 3, 3; a-0, a-2, a-4, a-5 dealt in order
  CHECK(d.at("m0") == std::vector<TP>{{"a", 0}, {"a", 1}, {"a", 3}});
  CHECK(d.at("m1") == std::vector<TP>{{"a", 2}, {"a", 4}, {"a", 5}});
  // A given topic order naming a topic twice deals it twice, as before the
  // spec (Kafka's order is a set; a vector file's hint may repeat a name).
  protocols::GroupSnapshot twice;
  twice.topics = {{"a", 2}};
  twice.topic_order = {"a", "a"};
  twice.members.push_back({"m0", std::nullopt, std::nullopt, {"a"}, {}, -1});
  CHECK(uniform.assign(twice).at("m0") == std::vector<TP>{{"a", 0}, {"a", 0}, {"a", 1}, {"a", 1}});
  // The snapshot path answers the same.
  protocols::GroupSnapshot s = g;
  s.members.pop_back();
  for (std::size_t i = 0; i < 3; ++i) s.members[i].owned = *first[i];
  const auto by_snapshot = uniform.assign(s);
  for (std::size_t i = 0; i < 3; ++i) CHECK(by_snapshot.at(s.members[i].member_id) == *second[i]);
}

// A member over its quota whose list is in order keeps its first partitions
// in TopicPartition order and gives up the rest (Kafka's builder walks the
// member's topics and keeps until the quota is full), which go, in order, to
// the members under theirs.
TEST_CASE("uniform: a member over its quota keeps the first of its list") {
  using TP = protocols::TopicPartition;
  protocols::GroupSnapshot g;
  g.topics = {{"a", 4}, {"b", 2}};
  g.members = {{"m0", std::nullopt, std::nullopt, {"a", "b"}, {{"a", 0}, {"a", 1}, {"a", 2}, {"b", 0}}, -1},
               {"m1", std::nullopt, std::nullopt, {"a", "b"}, {{"a", 3}, {"b", 1}}, -1},
               {"m2", std::nullopt, std::nullopt, {"a", "b"}, {}, -1}};
  const auto a = protocols::UniformAssignor().assign(g);  // quotas 2, 2, 2
  CHECK(a.at("m0") == std::vector<TP>{{"a", 0}, {"a", 1}});
  CHECK(a.at("m1") == std::vector<TP>{{"a", 3}, {"b", 1}});
  CHECK(a.at("m2") == std::vector<TP>{{"a", 2}, {"b", 0}});
  // Out of order, the same walk by topic: a's partitions first (ascending).
  g.members[0].owned = {{"b", 0}, {"a", 2}, {"a", 0}, {"a", 1}};
  const auto b = protocols::UniformAssignor().assign(g);
  CHECK(b.at("m0") == std::vector<TP>{{"a", 0}, {"b", 0}});
  CHECK(b.at("m2") == std::vector<TP>{{"a", 1}, {"a", 2}});
}

// Heterogeneous uniform deals topics tied on partitions per subscriber and
// on subscribers in topic id order (Uuid.compareTo): the snapshot's
// `topic_uuid_order`, else the simulator's ids, the names' Java string
// hashes. Kafka's vectors never depend on that order, so this case does:
// a and b share two one-partition topics, c has its own (dealt first, one
// partition per subscriber); the first of the tied pair goes to a.
TEST_CASE("uniform, heterogeneous: topics tied on partitions per subscriber are dealt in topic id order") {
  using TP = protocols::TopicPartition;
  const auto first_for_a = [](std::vector<std::string> uuid_order, const std::string& x, const std::string& y) {
    protocols::GroupSnapshot g;
    g.topics = {{x, 1}, {y, 1}, {"own", 1}};
    g.topic_uuid_order = std::move(uuid_order);
    g.members = {{"a", std::nullopt, std::nullopt, {x, y}, {}, -1},
                 {"b", std::nullopt, std::nullopt, {y, x}, {}, -1},
                 {"c", std::nullopt, std::nullopt, {"own"}, {}, -1}};
    const auto out = protocols::UniformAssignor().assign(g);
    CHECK(out.at("c") == std::vector<TP>{{"own", 0}});
    REQUIRE(out.at("a").size() == 1);
    REQUIRE(out.at("b").size() == 1);
    CHECK(out.at("a")[0].topic != out.at("b")[0].topic);
    return out.at("a")[0].topic.name();
  };
  CHECK(first_for_a({"t1", "t2"}, "t1", "t2") == "t1");
  CHECK(first_for_a({"t2", "t1"}, "t1", "t2") == "t2");
  CHECK(first_for_a({"t1", "t2", "t1"}, "t1", "t2") == "t2");  // a name given twice: its last place
  CHECK(first_for_a({"gone", "t2"}, "t1", "t2") == "t2");      // one not given comes after; unknown names ignored
  // No order given: Java hashes, not names ("b" 98 < "a0" 3055).
  CHECK(first_for_a({}, "a0", "b") == "b");
  CHECK(first_for_a({}, "t1", "t2") == "t1");  // 3645 < 3646
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

// ------------------------------------------------- sticky assignors and racks
// Facts from Kafka's AbstractStickyAssignorTest (its rack-aware tests,
// KIP-881) and CooperativeStickyAssignorTest. Replica racks are placed as
// Kafka's AbstractPartitionAssignorTest.partitionInfos places them: replica j
// of partition i of a topic on broker (i + j + partitions of the topics
// before it) mod brokers.
namespace {

using TP = protocols::TopicPartition;

// "t1-0, t1-3" as partitions, in that order.
std::vector<TP> tps(const std::string& text) {
  std::vector<TP> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(", ", pos);
    if (end == std::string::npos) end = text.size();
    const std::string one = text.substr(pos, end - pos);
    const auto dash = one.rfind('-');
    out.push_back(TP{one.substr(0, dash), std::stoi(one.substr(dash + 1))});
    pos = end + 2;
  }
  return out;
}

const std::vector<std::string> kAll = {"t1", "t2", "t3"};
const std::vector<std::vector<std::string>> kUniform = {kAll, kAll, kAll};
const std::vector<std::vector<std::string>> kNonEqual = {kAll, kAll, {"t1", "t3"}};

struct RackGroup {
  std::vector<std::vector<std::string>> subscriptions = kUniform;
  int replication_factor = 3;
  std::vector<std::string> broker_racks = {"a", "b", "c"};
  std::vector<std::string> consumer_racks = {"a", "b", "c"};  // "": no rack
  std::vector<std::string> owned;                             // per consumer
  bool prefer = false;
};

protocols::GroupSnapshot snapshot(const RackGroup& r) {
  const std::vector<std::pair<std::string, int>> topics = {{"t1", 6}, {"t2", 7}, {"t3", 2}};
  protocols::GroupSnapshot g;
  std::size_t before = 0;
  for (const auto& [topic, partitions] : topics) {
    g.topics[topic] = partitions;
    auto& racks = g.partition_racks[topic];
    for (std::size_t p = 0; p < static_cast<std::size_t>(partitions); ++p) {
      std::vector<std::string> on;
      for (std::size_t j = 0; j < static_cast<std::size_t>(r.replication_factor); ++j) {
        const auto& rack = r.broker_racks[(p + j + before) % r.broker_racks.size()];
        if (std::find(on.begin(), on.end(), rack) == on.end()) on.push_back(rack);
      }
      racks.push_back(on);
    }
    before += static_cast<std::size_t>(partitions);
  }
  for (std::size_t i = 0; i < r.subscriptions.size(); ++i) {
    protocols::MemberSubscription m;
    m.member_id = "consumer" + std::to_string(i);
    m.topics = r.subscriptions[i];
    if (!r.consumer_racks[i].empty()) m.rack = r.consumer_racks[i];
    if (i < r.owned.size()) m.owned = tps(r.owned[i]);
    g.members.push_back(m);
  }
  g.prefer_rack_aware = r.prefer;
  return g;
}

// Kafka's verifyRackAssignment compares each member's partitions as a sorted
// string and counts partitions with no replica on their member's rack.
void check_rack_assignment(const protocols::GroupSnapshot& g, const protocols::GroupAssignment& got,
                           const std::vector<std::string>& want, int mismatches) {
  int n = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto& m = g.members[i];
    auto have = got.at(m.member_id);
    auto expected = want[i].empty() ? std::vector<TP>{} : tps(want[i]);
    std::sort(have.begin(), have.end());
    std::sort(expected.begin(), expected.end());
    CAPTURE(m.member_id);
    CHECK(protocols::to_strings(have) == protocols::to_strings(expected));
    if (!m.rack) continue;
    for (const auto& tp : have) {
      const auto& racks = g.partition_racks.at(tp.topic.name())[static_cast<std::size_t>(tp.partition)];
      if (std::find(racks.begin(), racks.end(), *m.rack) == racks.end()) ++n;
    }
  }
  CHECK(n == mismatches);
}

const std::vector<std::string> kUniformNoRacks = {"t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0",
                                                  "t1-2, t1-5, t2-2, t2-5, t3-1"};
const std::vector<std::string> kNonEqualNoRacks = {"t1-5, t2-0, t2-2, t2-4, t2-6", "t1-3, t2-1, t2-3, t2-5, t3-0",
                                                   "t1-0, t1-1, t1-2, t1-4, t3-1"};

// verifyUniformSubscription / verifyNonEqualSubscription: a fresh group, then
// the same group owning the expected assignment, both give it.
void check_fresh_and_owned(RackGroup r, const std::vector<std::string>& want, int mismatches) {
  for (const char* name : {"sticky", "cooperative-sticky"}) {
    CAPTURE(name);
    const auto assignor = protocols::make_classic_assignor(name);
    r.owned.clear();
    const auto fresh = snapshot(r);
    check_rack_assignment(fresh, assignor->assign(fresh), want, mismatches);
    r.owned = want;
    const auto owning = snapshot(r);
    check_rack_assignment(owning, assignor->assign(owning), want, mismatches);
  }
}

}  // namespace

TEST_CASE("sticky, uniform subscription: replicas on fewer racks than consumers' racks, each partition goes to its rack") {
  RackGroup r;
  r.replication_factor = 1;
  check_fresh_and_owned(r, kUniformNoRacks, 0);
  r.replication_factor = 2;
  check_fresh_and_owned(r, kUniformNoRacks, 0);
}

TEST_CASE("sticky, uniform subscription: rack-aware only where useful; preferred, it gives the rack-unaware result") {
  RackGroup r;
  check_fresh_and_owned(r, kUniformNoRacks, 0);  // all racks hold every partition: not useful
  r.prefer = true;
  check_fresh_and_owned(r, kUniformNoRacks, 0);
  r.replication_factor = 4;
  r.broker_racks = {"a", "b", "c", "d"};
  check_fresh_and_owned(r, kUniformNoRacks, 0);
  // A consumer on a rack without replicas still gets its share (balance
  // first): 5 partitions off their member's rack.
  r = RackGroup{};
  r.broker_racks = {"a", "b"};
  check_fresh_and_owned(r, kUniformNoRacks, 5);
}

TEST_CASE("sticky, non-equal subscription: the general algorithm places partitions on their racks where it can") {
  RackGroup r;
  r.subscriptions = kNonEqual;
  r.replication_factor = 1;
  check_fresh_and_owned(r, {"t1-3, t2-0, t2-2, t2-3, t2-6", "t1-4, t2-1, t2-4, t2-5, t3-0", "t1-0, t1-1, t1-2, t1-5, t3-1"}, 4);
  r.replication_factor = 2;
  check_fresh_and_owned(r, {"t1-3, t2-0, t2-2, t2-5, t2-6", "t1-0, t2-1, t2-3, t2-4, t3-0", "t1-1, t1-2, t1-4, t1-5, t3-1"}, 0);
  r.replication_factor = 3;
  r.broker_racks = {"a", "b"};
  check_fresh_and_owned(r, kNonEqualNoRacks, 5);
  r.broker_racks = {"a", "b", "c"};
  r.prefer = true;
  check_fresh_and_owned(r, kNonEqualNoRacks, 0);
}

TEST_CASE("sticky with racks that do not help: byte-identical to the same group without racks") {
  for (const auto& subscriptions : {kUniform, kNonEqual}) {
    for (const auto& consumer_racks : std::vector<std::vector<std::string>>{{"a", "b", "c"}, {"d", "e", "f"}, {"", "e", "f"}}) {
      RackGroup r;
      r.subscriptions = subscriptions;
      r.consumer_racks = consumer_racks;
      r.owned = {"t1-0, t1-1, t1-2, t1-3, t1-4", "t1-5, t2-0, t2-1, t2-2, t2-3", "t2-4, t2-5, t2-6, t3-0, t3-1"};
      auto with_racks = snapshot(r);
      auto without = with_racks;
      for (auto& m : without.members) m.rack.reset();
      without.partition_racks.clear();
      for (const char* name : {"sticky", "cooperative-sticky"}) {
        const auto assignor = protocols::make_classic_assignor(name);
        CHECK(assignor->assign(with_racks) == assignor->assign(without));
      }
    }
  }
}

TEST_CASE("cooperative-sticky, uniform subscription: owned partitions off their owner's rack are withheld, then move") {
  RackGroup r;
  r.replication_factor = 1;
  r.owned = {"t1-0, t1-1, t1-2, t1-3, t1-4", "t1-5, t2-0, t2-1, t2-2, t2-3", "t2-4, t2-5, t2-6, t3-0, t3-1"};
  const auto g = snapshot(r);
  const protocols::CooperativeStickyAssignor coop;
  check_rack_assignment(g, coop.assign(g), {"t1-0, t1-3", "t2-1", "t2-5, t3-1"}, 0);
  // Derived, not asserted by Kafka: where everything goes is what Kafka's
  // test expects of the fresh group, and each of the 10 partitions that
  // change owner transfers ownership.
  check_rack_assignment(g, coop.target(g), kUniformNoRacks, 0);
  CHECK(coop.transferring(g).size() == 10);
}

TEST_CASE("cooperative-sticky, non-equal subscription: misaligned owners keep their rack's partitions; the next round aligns") {
  RackGroup r;
  r.subscriptions = kNonEqual;
  r.replication_factor = 1;
  r.owned = {"t1-0, t1-1, t1-2, t1-3, t1-4", "t1-5, t2-0, t2-1, t2-2, t2-3", "t2-4, t2-5, t2-6, t3-0, t3-1"};
  const auto assignor = protocols::make_classic_assignor("cooperative-sticky");
  auto g = snapshot(r);
  check_rack_assignment(g, assignor->assign(g), {"t1-3", "t2-1", "t3-1"}, 0);
  r.owned = {"t1-3", "t2-1", "t3-1"};
  g = snapshot(r);
  check_rack_assignment(g, assignor->assign(g),
                        {"t1-3, t2-0, t2-2, t2-3, t2-6", "t1-4, t2-1, t2-4, t2-5, t3-0", "t1-0, t1-1, t1-2, t1-5, t3-1"}, 4);
}

// CooperativeStickyAssignorTest.testUniformSubscriptionTransferOwnershipListIsRight:
// one replica each, on racks a, b, a, b. c0 (rack a) keeps topic1-0 and c1
// (rack b) topic1-3; the other two swap owners, one per rack.
TEST_CASE("cooperative-sticky: two owned partitions off-rack swap owners and both transfer ownership") {
  protocols::GroupSnapshot g;
  g.topics = {{"topic1", 4}};
  g.partition_racks["topic1"] = {{"a"}, {"b"}, {"a"}, {"b"}};
  g.members = {{"c0", std::nullopt, std::string("a"), {"topic1"}, {TP{"topic1", 0}, TP{"topic1", 1}}, 1},
               {"c1", std::nullopt, std::string("b"), {"topic1"}, {TP{"topic1", 2}, TP{"topic1", 3}}, 1}};
  const protocols::CooperativeStickyAssignor coop;
  const std::map<TP, std::string> moving = {{TP{"topic1", 1}, "c1"}, {TP{"topic1", 2}, "c0"}};
  CHECK(coop.transferring(g) == moving);
  CHECK(coop.target(g).at("c0") == std::vector<TP>{{"topic1", 0}, {"topic1", 2}});
  CHECK(coop.target(g).at("c1") == std::vector<TP>{{"topic1", 3}, {"topic1", 1}});
  CHECK(coop.assign(g).at("c0") == std::vector<TP>{{"topic1", 0}});
  CHECK(coop.assign(g).at("c1") == std::vector<TP>{{"topic1", 3}});
}
}
