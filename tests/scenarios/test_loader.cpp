#include "scenarios/limits.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/runner.hpp"
#include "scenarios/text.hpp"
#include "scenarios/values.hpp"
#include "tests/paths.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace rsim;
using namespace rsim::scenario;
using namespace std::chrono_literals;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The InputError message (without the file) that loading `text` gives, or
// "" when it loads.
std::string refusal(const std::string& text) {
  try {
    load_text(text, "inline");
  } catch (const InputError& e) {
    return fmt::format("{}:{}: {}", e.mark().line, e.mark().column, e.message());
  }
  return {};
}

std::string one_member(const std::string& extra) {
  return "name: n\nduration: 1m\ntopics: [{name: T, partitions: 2}]\nmembers: [{id: A, subscribe: [T]}]\n" + extra;
}

std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_SUITE("scenarios") {
TEST_CASE("value syntaxes: durations, sizes, rates") {
  std::string why;
  CHECK(parse_duration("250us", why) == Duration{250});
  CHECK(parse_duration("5ms", why) == Duration{5000});
  CHECK(parse_duration("3s", why) == Duration{3s});
  CHECK(parse_duration("2m", why) == Duration{2min});
  CHECK(parse_duration("1h", why) == Duration{1h});
  CHECK(parse_duration("1.5s", why) == Duration{1500ms});
  CHECK(parse_duration("0.5ms", why) == Duration{500});
  CHECK_FALSE(parse_duration("1.5us", why));
  CHECK_FALSE(parse_duration("5", why));
  CHECK_FALSE(parse_duration("-5s", why));
  CHECK_FALSE(parse_duration("5 s", why));
  CHECK_FALSE(parse_duration("1..5s", why));
  CHECK(parse_size("512KB", why) == 512u * 1024u);
  CHECK(parse_size("2GB", why) == 2ULL << 30);
  CHECK(parse_size("1000", why) == 1000u);
  CHECK(parse_size("1.5KB", why) == 1536u);
  CHECK_FALSE(parse_size("1.0001KB", why));
  CHECK(parse_rate("100MB/s", why) == 100ULL << 20);
  CHECK_FALSE(parse_rate("100MB", why));
}

TEST_CASE("every key of the contract is loaded into plain data") {
  const Scenario s = load_file(kSource + "/tests/scenarios/full.yaml");
  CHECK(s.name == "everything");
  CHECK(s.description == "Every key of the contract.");
  CHECK(s.seed == 42);
  CHECK(s.duration == Duration{15min});
  CHECK(s.protocol == "cooperative");
  CHECK(s.assignor == "cooperative-sticky");
  CHECK(std::get<Duration>(s.config.at("session.timeout.ms").value) == Duration{45s});
  CHECK(std::get<Duration>(s.config.at("max.poll.interval.ms").value) == Duration{5min});
  CHECK(std::get<std::int64_t>(s.config.at("incremental.max.moves.per.round").value) == 2);
  CHECK(s.latency.kind == LatencyModel::Kind::Uniform);
  CHECK(s.latency.a == Duration{500});
  CHECK(s.latency.b == Duration{3ms});
  CHECK(s.drop == doctest::Approx(0.01));
  CHECK(s.costs.revoke == Duration{20ms});
  CHECK(s.costs.assign == Duration{5ms});
  CHECK(s.costs.state_bytes == 1ULL << 30);
  CHECK(s.costs.restore_bytes_per_s == 100ULL << 20);
  REQUIRE(s.load);
  CHECK(s.load->produce_rate == 1000);
  CHECK(s.load->process_rate == 4000);
  REQUIRE(s.topics.size() == 2);
  CHECK(s.topics[1].name == "payments");
  CHECK(s.topics[1].partitions == 6);
  REQUIRE(s.subtopologies.size() == 2);
  CHECK(s.subtopologies[0].repartition_sink == std::vector<std::string>{"orders-by-customer"});
  CHECK(s.subtopologies[1].state == std::vector<std::string>{"customer-view"});
  REQUIRE(s.connectors.size() == 1);
  CHECK(s.connectors[0].tasks == 8);
  REQUIRE(s.members.size() == 3);
  CHECK(s.members[1].instance_id == "b-static");
  CHECK(s.members[2].start == Duration{5s});
  CHECK(s.members[2].rack == "r2");
  REQUIRE(s.initial_assignment);
  CHECK(s.initial_assignment->at("A") == std::vector<std::string>{"orders-0", "orders-1", "jdbc-source/3", "jdbc-source"});
  REQUIRE(s.events.size() == 17);
  // Sorted by time, stable for equal times.
  CHECK(s.events[3].kind == "bounce");
  CHECK(s.events[4].kind == "restart");
  CHECK(std::get<Restart>(s.events[4].action).down == Duration{1500ms});
  const auto& join = std::get<Join>(s.events[0].action);
  CHECK(join.member.id == "D");
  CHECK(join.member.instance_id == "d-static");
  CHECK(join.member.start == Duration{10s});
  const auto& slow = std::get<Slow>(s.events[6].action);
  CHECK(slow.batch == Duration{20s});
  CHECK(slow.length == Duration{2min});
  // `all` is resolved to the members running at that time, in id order.
  const auto& rolling = std::get<RollingBounce>(s.events[7].action);
  CHECK(rolling.members.all);
  CHECK(rolling.members.ids == std::vector<std::string>{"A", "C"});
  CHECK(std::get<RollingRestart>(s.events[8].action).members.ids == std::vector<std::string>{"A", "C"});
  // Scale-out ids continue the default prefix after the members so far.
  CHECK(std::get<ScaleOut>(s.events[9].action).ids == std::vector<std::string>{"m003", "m004", "m005"});
  CHECK(std::get<Isolate>(s.events[11].action).length == Duration{20s});
  CHECK(std::get<CoordinatorFailover>(s.events[12].action).down == Duration{2s});
  CHECK(std::get<AddPartitions>(s.events[13].action).count == 16);
  CHECK(std::get<Subscribe>(s.events[14].action).topics == std::vector<std::string>{"orders"});
  CHECK(std::get<Upgrade>(s.events[15].action).to == "consumer");
  CHECK(std::get<RollingUpgrade>(s.events[16].action).interval == Duration{30s});
  CHECK(s.metrics_from == Duration{0s});
  REQUIRE(s.expect.size() == 7);
  CHECK(s.expect[0].metric == "rebalances");
  CHECK(s.expect[0].number == 2);
  CHECK(s.expect[1].op == Comparison::Le);
  CHECK(s.expect[1].duration == Duration{0});
  CHECK(s.expect[2].op == Comparison::Lt);
  CHECK(s.expect[3].op == Comparison::Ge);
  CHECK(s.expect[6].assignment.at("C") == std::vector<std::string>{"orders-2"});
}

TEST_CASE("members written as {count, prefix} expand to numbered ids") {
  const Scenario s = load_text(
      "name: n\nduration: 1m\ntopics: [{name: T, partitions: 3}]\n"
      "members: {count: 12, prefix: c, subscribe: [T], instance-id-prefix: i}\n"
      "events: [{at: 5s, scale-out: 2, subscribe: [T]}]\n",
      "inline");
  REQUIRE(s.members.size() == 12);
  CHECK(s.members.front().id == "c000");
  CHECK(s.members.back().id == "c011");
  CHECK(s.members.back().instance_id == "i011");
  CHECK(std::get<ScaleOut>(s.events[0].action).ids == std::vector<std::string>{"c012", "c013"});
}

TEST_CASE("Kafka config keys ending in .ms take bare milliseconds or durations") {
  const Scenario s = load_text(
      "name: n\nduration: 1m\nconfig: {session.timeout.ms: 10000, heartbeat.interval.ms: 2s}\n"
      "topics: [{name: T, partitions: 3}]\nmembers: [{id: A, subscribe: [T]}]\n",
      "inline");
  CHECK(std::get<Duration>(s.config.at("session.timeout.ms").value) == Duration{10s});
  CHECK(std::get<Duration>(s.config.at("heartbeat.interval.ms").value) == Duration{2s});
}

TEST_CASE("a file must be well-formed text in the encoding YAML reads it in") {
  CHECK_FALSE(find_text_fault("name: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n"));
  CHECK_FALSE(find_text_fault("\xef\xbb\xbfname: x\n"));  // a UTF-8 byte order mark
  auto fault = [](std::string_view text) {
    const auto f = find_text_fault(text);
    return f ? fmt::format("{}:{}: {}", f->line, f->column, f->what) : std::string("none");
  };
  CHECK(fault("name: x\xff") == "1:8: not valid UTF-8: byte 0xFF");
  CHECK(fault("a: 1\nb: \xc3\xa9\x80") == "2:6: not valid UTF-8: byte 0x80");  // columns count bytes, as yaml-cpp's do
  CHECK(fault("\xc0\x80") == "1:1: not valid UTF-8: byte 0xC0");               // overlong NUL
  CHECK(fault("\xe0\x80\xaf") == "1:1: not valid UTF-8: byte 0xE0");           // overlong '/'
  CHECK(fault("\xed\xa0\x80") == "1:1: not valid UTF-8: byte 0xED");           // a surrogate
  CHECK(fault("\xf4\x90\x80\x80") == "1:1: not valid UTF-8: byte 0xF4");       // above U+10FFFF
  CHECK(fault("x\xe2\x82") == "1:2: not valid UTF-8: byte 0xE2");              // cut short
  // UTF-16 and UTF-32, which YAML also reads, by byte order mark or NUL bytes.
  using namespace std::string_literals;
  CHECK_FALSE(find_text_fault("\xff\xfe" "a\0:\0 \0\xe9\0"s));
  CHECK_FALSE(find_text_fault("\0a\0:"s));
  CHECK(fault("\xff\xfe" "a\0\n\0b\0\x00\xd8"s) == "2:2: not valid UTF-16: unpaired surrogate 0xD800");
  CHECK(fault("\0\0\0a\0\x11\0\0"s) == "1:2: not valid UTF-32: 0x110000 is not a Unicode character");
  // The loader checks before YAML parses, so a bad byte is never a name.
  CHECK(refusal("name: x\ndescription: \xff\n") == "2:14: not valid UTF-8: byte 0xFF");
  const std::string utf16 = "\xff\xfe" "n\0a\0m\0e\0:\0 \0x\0\n\0d\0u\0r\0a\0t\0i\0o\0n\0:\0 \0001\0m\0\n\0"
                            "t\0o\0p\0i\0c\0s\0:\0 \0[\0{\0n\0a\0m\0e\0:\0 \0T\0,\0 \0p\0a\0r\0t\0i\0t\0i\0o\0n\0s\0:\0 \0001\0}\0]\0\n\0"
                            "m\0e\0m\0b\0e\0r\0s\0:\0 \0[\0{\0i\0d\0:\0 \0A\0,\0 \0s\0u\0b\0s\0c\0r\0i\0b\0e\0:\0 \0[\0T\0]\0}\0]\0\n\0"s;
  CHECK(load_text(utf16, "inline").name == "x");
}

TEST_CASE("durations stop at 10 years, where the 64-bit microsecond clock is far from overflow") {
  std::string why;
  CHECK(parse_duration("87600h", why) == kMaxDuration);
  CHECK(parse_duration("315360000s", why) == kMaxDuration);
  CHECK_FALSE(parse_duration("315360000000001us", why));
  CHECK(why.find("is longer than 10 years (87600h)") != std::string::npos);
  CHECK_FALSE(parse_duration("2562047000h", why));  // fit int64 before: at + interval wrapped
  CHECK(why.find("is longer than 10 years") != std::string::npos);
  CHECK_FALSE(parse_duration("99999999999999999999999h", why));  // beyond uint64 too
  CHECK(why.find("is longer than 10 years") != std::string::npos);
  // An expected metric sums many resources' durations: only the clock's type bounds it.
  CHECK(parse_duration("100000h", why, Duration::max()) == Duration{100000h});
  CHECK_FALSE(parse_duration("2562048000h", why, Duration::max()));
  CHECK(why.find("is too large for the simulator's clock") != std::string::npos);
  CHECK(refusal(one_member("expect: {downtime.total: \"< 100000h\"}\n")).empty());
  CHECK(format_count(0) == "0");
  CHECK(format_count(999) == "999");
  CHECK(format_count(1000) == "1,000");
  CHECK(format_count(87264000000) == "87,264,000,000");
  CHECK(format_count(6.4e19) == "6.4e+19");
}

TEST_CASE("a timer that re-arms itself may not have a period of 0; other zeros stay valid") {
  for (const char* key : {"metadata.max.age.ms", "request.timeout.ms", "retry.backoff.ms"}) {
    CAPTURE(key);
    const std::string got = refusal(one_member(fmt::format("config: {{{}: 0}}\n", key)));
    CHECK(got.find(fmt::format("config '{}' must be above 0 in this simulator (Kafka accepts 0)", key)) != std::string::npos);
    CHECK(refusal(one_member(fmt::format("config: {{{}: 0s}}\n", key))) == got);  // a duration of 0 too
    CHECK(refusal(one_member(fmt::format("config: {{{}: 1}}\n", key))).empty());
  }
  // 0 is meaningful for these, and nothing re-arms at one instant.
  for (const char* key : {"group.initial.rebalance.delay.ms", "incremental.round.interval.ms",
                          "scheduled.rebalance.max.delay.ms", "max.poll.interval.ms"})
    CHECK(refusal(one_member(fmt::format("config: {{{}: 0}}\n", key))).empty());
}

TEST_CASE("KIP-848's heartbeat interval must be above 0 and below its session timeout, whatever the file's protocol") {
  CHECK(refusal(one_member("protocol: consumer\n")).empty());  // the defaults, 5 s and 45 s
  CHECK(refusal(one_member("protocol: eager\nconfig: {group.consumer.heartbeat.interval.ms: 45s}\n")) ==
        "6:48: group.consumer.heartbeat.interval.ms (45.000s) must be lower than group.consumer.session.timeout.ms "
        "(45.000s), as Kafka's broker requires");
  CHECK(refusal(one_member("config: {group.consumer.session.timeout.ms: 4s}\n")).find(
            "group.consumer.heartbeat.interval.ms (5.000s) must be lower than group.consumer.session.timeout.ms (4.000s)") !=
        std::string::npos);
  CHECK(refusal(one_member("protocol: consumer\nconfig: {group.consumer.heartbeat.interval.ms: 0}\n")) ==
        "6:48: group.consumer.heartbeat.interval.ms must be above 0");
  // And the KIP-848 pair under a classic file: `run --protocol consumer` uses it.
  CHECK(refusal(one_member("protocol: cooperative\nconfig: {group.consumer.heartbeat.interval.ms: 0}\n")) ==
        "6:48: group.consumer.heartbeat.interval.ms must be above 0");
  // The classic client's group settings under a consumer file: Kafka's consumer refuses them.
  CHECK(refusal(one_member("protocol: consumer\nconfig: {heartbeat.interval.ms: 1000}\n")) ==
        "6:33: heartbeat.interval.ms does not apply to the consumer protocol (Kafka's consumer refuses it with "
        "group.protocol=consumer); set group.consumer.heartbeat.interval.ms (the coordinator's) instead, or give the "
        "scenario a classic protocol to compare classic variants with it");
  CHECK(refusal(one_member("protocol: consumer\nconfig: {partition.assignment.strategy: [range]}\n")).find(
            "6:41: partition.assignment.strategy does not apply to the consumer protocol") == 0);
}

TEST_CASE("events may not reach past the 10-year clock, however their durations add up") {
  const std::string three = "name: n\nduration: 1m\ntopics: [{name: T, partitions: 2}]\n"
                            "members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}, {id: C, subscribe: [T]}]\n";
  CHECK(refusal(three + "events: [{at: 1s, rolling-restart: all, down: 1s, interval: 43800h}]\n").find(
            "rolling-restart event at 1.000s reaches past 10 years (87600h), the latest instant this simulator schedules: "
            "at + interval x (members - 1) + down = 1.000s + 157680000.000s x 2 + 1.000s") != std::string::npos);
  CHECK(refusal(three + "events: [{at: 1s, rolling-upgrade: [A, B], to: consumer, down: 87600h, interval: 1s}]\n")
            .find("at + interval x (members - 1) + down = 1.000s + 1.000s x 1 + 315360000.000s") != std::string::npos);
  CHECK(refusal(three + "events: [{at: 1s, rolling-bounce: all, down: 1s, interval: 43800h}]\n").find("past 10 years") !=
        std::string::npos);
  CHECK(refusal(three + "events: [{at: 59s, bounce: A, down: 87600h}]\n").find("at + down = 59.000s + 315360000.000s") !=
        std::string::npos);
  CHECK(refusal(three + "events: [{at: 1s, slow: A, batch: 87600h, for: 1s}]\n").find("at + for + batch") !=
        std::string::npos);
  CHECK(refusal(three + "events: [{at: 1s, coordinator-failover: true, down: 87600h}]\n").find("past 10 years") !=
        std::string::npos);
  CHECK(refusal(three + "events: [{at: 1s, rolling-bounce: all, down: 1s, interval: 43799h}]\n").empty());
  // Costs are paid once per resource in turn (in parallel by Connect workers).
  CHECK(refusal(one_member("costs: {assign: 43800h}\n")).empty());
  CHECK(refusal(one_member("costs: {assign: 43801h}\n")).find("assign cost 157683600.000s x 2 partitions") !=
        std::string::npos);
  CHECK(refusal("name: n\nduration: 1m\ncosts: {revoke: 87600h}\nconnectors: [{name: c, tasks: 8}]\nmembers: [{id: W}]\n"
                "initial-assignment: {W: [c, c/0, c/1, c/2, c/3, c/4, c/5, c/6, c/7]}\n")
            .empty());
}

TEST_CASE("the budget: resources, members x resources and the events a run executes, under the protocol it runs") {
  // The project's scale target loads: 1,000 members x 100,000 partitions, an hour, 3 s heartbeats.
  const Scenario target = load_text(
      "name: n\nduration: 1h\ntopics: [{name: T, partitions: 100000}]\n"
      "members: {count: 1000, prefix: m, subscribe: [T]}\n"
      "events: [{at: 1m, rolling-bounce: all, down: 5s, interval: 30s}]\n",
      "inline");
  CHECK_NOTHROW(check_budget(target, "consumer", true));
  // The stretch: 10,000 members x 500,000 partitions through a rolling bounce
  // (10,000 s) loads and runs without a trace; a run keeping its trace is
  // refused, and told how to run it.
  const Scenario stretch = load_text(
      "name: n\nduration: 100200s\ntopics: [{name: T, partitions: 500000}]\n"
      "members: {count: 10000, prefix: m, subscribe: [T]}\n"
      "events: [{at: 30s, rolling-bounce: all, down: 5s, interval: 10s}]\n",
      "inline");
  CHECK_NOTHROW(check_budget(stretch, "consumer", false));
  CHECK_NOTHROW(check_budget(stretch, "cooperative", false));
  CHECK_THROWS_WITH_AS(check_budget(stretch, "cooperative", true),
                       "inline:2:11: this run would execute about 437,340,000 events, above this simulator's limit "
                       "of 50,000,000 for a run that keeps its trace (each event about 200 bytes of it; `run "
                       "--timeline none` without --out, --trace or --html keeps none and takes up to "
                       "1,000,000,000): 10,000 members for 100200.000s, "
                       "each heartbeating every 3.000s (heartbeat.interval.ms) and refreshing metadata every 300.000s "
                       "(metadata.max.age.ms), plus every member rejoining at each of 10,000 disruptions; shorten "
                       "duration, use fewer members or raise heartbeat.interval.ms or metadata.max.age.ms",
                       InputError);
  CHECK(refusal("name: n\nduration: 1m\ntopics: [{name: T, partitions: 500000}]\n"
                "members: {count: 20001, prefix: m, subscribe: [T]}\n")
            .find("4:10: 20,001 members over the run (members, joins, scale-outs) x 500,000 resources") == 0);
  // Joining members count.
  CHECK(refusal("name: n\nduration: 1m\ntopics: [{name: T, partitions: 500000}]\n"
                "members: {count: 10000, prefix: m, subscribe: [T]}\n"
                "events: [{at: 1s, scale-out: 10001, subscribe: [T]}]\n")
            .find("20,001 members over the run") != std::string::npos);
  // Resources, whatever the members: the declaration that passes 2,000,000
  // is named, growth counting at its largest.
  CHECK(refusal("name: n\nduration: 1m\n"
                "topics: [{name: A, partitions: 1000000}, {name: B, partitions: 1000000}, {name: C, partitions: 1}]\n"
                "members: [{id: m, subscribe: [A]}]\n") ==
        "3:74: the group's resources (partitions of every topic at their largest, each connector and its tasks) "
        "reach 2,000,001 here, above this simulator's limit of 2,000,000 (each costs about 0.7 KB through a run); "
        "use fewer partitions");
  const std::string grown =
      "name: n\nduration: 1m\n"
      "topics: [{name: A, partitions: 1000000}, {name: B, partitions: 500000}, {name: C, partitions: 400000}]\n"
      "members: [{id: m, subscribe: [A]}]\nevents:\n- {at: 1s, add-partitions: {topic: B, count: 600000}}\n";
  CHECK(refusal(grown).empty());  // 2,000,000 exactly
  CHECK(refusal(grown + "- {at: 2s, add-partitions: {topic: C, count: 400001}}\n")
            .find("7:3: the group's resources (partitions of every topic at their largest, each connector and its "
                  "tasks) reach 2,000,001 here") == 0);
  CHECK(refusal("name: n\nduration: 1m\nconnectors: [{name: a, tasks: 999999}, {name: b, tasks: 999999}, {name: c, tasks: 1}]\n"
                "members: {count: 2, prefix: w}\n")
            .find("reach 2,000,002 here") != std::string::npos);
  // Member-topic pairs: every classic member copies every topic's count.
  // 10,000 members on 2,000 one-partition topics pass the resource caps but
  // not this one; 1,000 topics (the stretch's) pass.
  auto on_topics = [](int topics) {
    std::string names;
    for (int t = 0; t < topics; ++t) names += fmt::format("{}{{name: t{}, partitions: 1}}", t == 0 ? "" : ", ", t);
    return "name: n\nduration: 1m\ntopics: [" + names + "]\nmembers: {count: 10000, prefix: m, subscribe: [t0]}\n";
  };
  CHECK(refusal(on_topics(1000)).empty());
  CHECK(refusal(on_topics(2001)) ==
        "4:10: 10,000 members over the run (members, joins, scale-outs) x 2,001 topics (declared or created, and "
        "connectors) = 20,010,000 member-topic pairs, above this simulator's limit of 20,000,000 (a classic member "
        "keeps its own copy of every topic's metadata); use fewer members or topics");
  // Heartbeats: 100,000 members over 30 days do not pass even without a
  // trace, and the message names the numbers and the keys.
  CHECK(refusal("name: n\nduration: 720h\ntopics: [{name: T, partitions: 4}]\n"
                "members: {count: 100000, prefix: m, subscribe: [T]}\n") ==
        "2:11: this run would execute about 87,264,000,000 events, above this simulator's limit of 1,000,000,000 "
        "(its time grows with them): 100,000 members for 2592000.000s, each heartbeating every 3.000s "
        "(heartbeat.interval.ms) and refreshing metadata every 300.000s (metadata.max.age.ms); shorten duration, use fewer members or raise "
        "heartbeat.interval.ms or metadata.max.age.ms");
  // A rolling bounce of every member makes every member rejoin each time.
  const Scenario bounced = load_text(
      "name: n\nduration: 1h\ntopics: [{name: T, partitions: 4}]\n"
      "members: {count: 10000, prefix: m, subscribe: [T]}\n"
      "events: [{at: 1s, rolling-bounce: all, down: 1s, interval: 100ms}]\n",
      "inline");
  CHECK_THROWS_WITH_AS(check_budget(bounced, "eager", true),
                       doctest::Contains("plus every member rejoining at each of 10,000 disruptions"), InputError);
  // The heartbeat interval is the protocol's: `run --protocol` is checked
  // again, and a run keeping its trace (RunOptions' default) by the tighter limit.
  const Scenario slow = load_text(
      "name: n\nduration: 5h\nprotocol: consumer\n"
      "config: {group.consumer.heartbeat.interval.ms: 20s}\n"
      "topics: [{name: T, partitions: 4}]\nmembers: {count: 10000, prefix: m, subscribe: [T]}\n",
      "inline");
  CHECK_NOTHROW(check_budget(slow, "consumer", true));
  CHECK_THROWS_AS(check_budget(slow, "eager", true), InputError);
  CHECK_NOTHROW(check_budget(slow, "eager", false));
  RunOptions eager;
  eager.protocol = "eager";
  CHECK_THROWS_WITH_AS(run(slow, eager), doctest::Contains("(heartbeat.interval.ms)"), InputError);
  // A Streams application over the classic protocol: processes x stateful
  // tasks, each process counted once; the streams protocol is not bounded so.
  const std::string streams_app =
      "name: n\nduration: 1h\ntopics: [{name: T, partitions: 100000}]\n"
      "topology: {subtopologies: [{id: \"0\", source: [T], state: [s]}]}\n"
      "members: {count: 1001, prefix: m}\n";
  // Checked when a run starts: the file loads, and may run under streams.
  const Scenario app = load_text(streams_app, "inline");
  CHECK_THROWS_WITH_AS(check_classic_streams(app, "cooperative"),
                       "inline:5:10: a Streams application over the classic protocol (cooperative): Streams' "
                       "high-availability assignor ranks every client for every stateful task at each rebalance, as "
                       "Kafka's does; 1,001 processes x 100,000 stateful tasks = 100,100,000 pairs, above this "
                       "simulator's limit of 100,000,000 (its memory grows with them); use fewer processes or "
                       "partitions, or protocol streams (KIP-1071)",
                       InputError);
  CHECK_THROWS_WITH_AS(run(app, RunOptions{}), doctest::Contains("1,001 processes x 100,000 stateful tasks"), InputError);
  // At the limit: 1,000 x 100,000 runs (about 180 MB; docs/performance.md).
  std::string at_limit = streams_app;
  at_limit.replace(at_limit.find("count: 1001"), 11, "count: 1000");
  CHECK_NOTHROW(check_classic_streams(load_text(at_limit, "inline"), "cooperative"));
  CHECK_NOTHROW(check_classic_streams(app, "streams"));
  const std::string threads =  // 1,000 threads of 10 processes: 1e6 pairs
      "name: n\nduration: 1h\ntopics: [{name: T, partitions: 100000}]\n"
      "topology: {subtopologies: [{id: \"0\", source: [T], state: [s]}]}\nmembers:\n";
  std::string members;
  for (int i = 0; i < 1000; ++i) members += fmt::format("  - {{id: m{}, process: p{}}}\n", i, i % 10);
  CHECK_NOTHROW(check_classic_streams(load_text(threads + members, "inline"), "eager"));
  // A repartition topic counts as wide as its sink makes it.
  const Scenario repartitioned = load_text(
      "name: n\nduration: 1h\ntopics: [{name: T, partitions: 10}]\n"
      "topology: {subtopologies: [{id: \"0\", source: [T], repartition-sink: [{name: R, partitions: 100000}]},\n"
      "                           {id: \"1\", source: [R], state: [s]}]}\n"
      "members: {count: 1001, prefix: m}\n",
      "inline");
  CHECK_THROWS_WITH_AS(check_classic_streams(repartitioned, "eager"),
                       doctest::Contains("1,001 processes x 100,000 stateful tasks"), InputError);
  // Stateless sub-topologies are not ranked.
  std::string stateless = streams_app;
  stateless.replace(stateless.find("state: [s]"), 10, "state: []");
  CHECK_NOTHROW(check_classic_streams(load_text(stateless, "inline"), "eager"));
}

TEST_CASE("counts that would allocate are checked before the loader copies anything") {
  auto aliases = [](const std::string& head, std::size_t n, const std::string& first, const std::string& tail) {
    std::string text = head + "[&x " + first;
    for (std::size_t i = 1; i < n; ++i) text += ", *x";
    return text + "]\n" + tail;
  };
  const std::string head = "name: n\nduration: 1m\ntopics: [{name: T, partitions: 1}]\n";
  CHECK(refusal(aliases(head + "members: ", 100001, "{id: A, subscribe: [T]}", "")) ==
        "4:10: members lists 100,001 members, more than the 100,000 this simulator takes in one run");
  CHECK(refusal(aliases(head + "members: [{id: A, subscribe: [T]}]\nevents: ", 1000001, "{at: 1s, pause: A, for: 1s}", ""))
            .find("5:9: events lists 1,000,001 events, more than the 1,000,000") == 0);
  // One subscription of 2,000 names, repeated by alias for 5,001 members.
  std::string names = "[T";
  for (int i = 1; i < 2000; ++i) names += ", T";
  names += "]";
  std::string members = "members:\n  - {id: m0, subscribe: &s " + names + "}\n";
  for (int i = 1; i <= 5000; ++i) members += fmt::format("  - {{id: m{}, subscribe: *s}}\n", i);
  CHECK(refusal(head + members).find("the file lists more than 10,000,000 names") != std::string::npos);
}

TEST_CASE("an initial assignment gives out everything the present members run, and only that") {
  const std::string topics = "name: n\nduration: 1m\ntopics: [{name: T, partitions: 3}, {name: U, partitions: 1}]\n";
  // C starts later: it is not in the initial group, and U is nobody's yet.
  CHECK(refusal(topics + "members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}, {id: C, subscribe: [U], start: 5s}]\n"
                         "initial-assignment: {A: [T-0, T-2], B: [T-1]}\n")
            .empty());
  CHECK(refusal(topics + "members: [{id: A, subscribe: [T, U]}, {id: B, subscribe: [T]}]\n"
                         "initial-assignment: {A: [T-0], B: []}\n") ==
        "5:21: initial-assignment leaves T-1, T-2, U-0 unassigned; a stable group owns every partition its members subscribe to");
  CHECK(refusal(topics + "members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]\n"
                         "initial-assignment: {A: [T-0, T-2], B: [T-1, U-0]}\n") ==
        "5:46: member 'B' is given U-0 but does not subscribe to 'U'");
  // Each member against its own subscription, whoever came before it (the
  // loader builds a subscription's set once for members alike).
  CHECK(refusal(topics + "members: [{id: A, subscribe: [T, U]}, {id: B, subscribe: [T]}]\n"
                         "initial-assignment: {A: [T-0, T-2], B: [T-1, U-0]}\n") ==
        "5:46: member 'B' is given U-0 but does not subscribe to 'U'");
  CHECK(refusal(topics + "members: [{id: B, subscribe: [T]}, {id: A, subscribe: [T, U]}]\n"
                         "initial-assignment: {B: [T-1], A: [T-0, T-2, U-0]}\n")
            .empty());
  CHECK(refusal(topics + "members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}, {id: C, subscribe: [U]}]\n"
                         "initial-assignment: {A: [T-0, T-2], B: [T-1], C: []}\n") ==
        "5:21: initial-assignment leaves U-0 unassigned; a stable group owns every partition its members subscribe to");
  // The same partition written two ways is still one partition.
  CHECK(refusal(topics + "members: [{id: A, subscribe: [T]}, {id: B, subscribe: [T]}]\n"
                         "initial-assignment: {A: [T-0, T-2, T-1], B: [T-+1]}\n")
            .find("resource 'T-+1' is given to both 'A' and 'B'") != std::string::npos);
  // Connect: a worker without subscribe runs every connector and its tasks.
  const std::string connect = "name: n\nduration: 1m\nconnectors: [{name: c, tasks: 2}, {name: d, tasks: 1}]\n"
                              "members: [{id: W1}, {id: W2}]\n";
  CHECK(refusal(connect + "initial-assignment: {W1: [c, c/0, d/0], W2: [c/1, d]}\n").empty());
  CHECK(refusal(connect + "initial-assignment: {W1: [c, c/0], W2: [c/1]}\n").find("leaves d, d/0 unassigned") !=
        std::string::npos);
}

// Streams: `copartition:` groups and `{name, partitions}` repartition sinks
// extend the topology compatibly; a source that is not declared anywhere is
// a typo (with a suggestion), and the topology is checked as a whole.
TEST_CASE("a Streams topology loads its co-partition groups and enforced repartition counts") {
  const Scenario s = load_file(kSource + "/tests/scenarios/streams-topology.yaml");
  REQUIRE(s.subtopologies.size() == 3);
  const auto& join = s.subtopologies[1];
  CHECK(join.repartition_sink == std::vector<std::string>{"totals-by-region"});
  CHECK(join.sink_partitions == std::map<std::string, int>{{"totals-by-region", 4}});
  CHECK(join.copartition == std::vector<std::vector<std::string>>{{"orders-by-customer", "customers"}});
  CHECK(s.subtopologies[2].sink_partitions.empty());
  const std::string head = "name: x\nduration: 1m\ntopics: [{name: orders, partitions: 2}]\nmembers: [{id: A}]\n";
  CHECK(refusal(head + "topology: {subtopologies: [{id: a, source: [ordres]}]}\n") ==
        "5:45: subtopology 'a' reads 'ordres', which is neither a declared topic nor a repartition-sink (did you mean 'orders'?)");
  CHECK(refusal(head + "topology: {subtopologies: [{id: a, source: [orders], repartition-sink: [{name: r, partitions: 0}]}]}\n")
            .find("partitions") != std::string::npos);
  CHECK(refusal(head + "topology: {subtopologies: [{id: a, source: []}]}\n") == "5:44: subtopology 'a' reads no topic");
}

// Each file in tests/bad/ starts with "# error: LINE:COL: text": loading it
// must fail at exactly that position with a message containing the text.
TEST_CASE("every bad input is rejected with file, line, column and a clear message") {
  const auto files = yaml_files(kSource + "/tests/bad");
  CHECK(files.size() >= 25);
  for (const auto& path : files) {
    CAPTURE(path);
    const std::string text = read(path);
    const std::string header = text.substr(0, text.find('\n'));
    REQUIRE(header.rfind("# error: ", 0) == 0);
    const std::string want = header.substr(9);
    const std::string position = want.substr(0, want.find(": "));
    const std::string message = want.substr(position.size() + 2);
    try {
      load_file(path);
      FAIL("loaded without an error");
    } catch (const InputError& e) {
      const std::string got = e.what();
      CAPTURE(got);
      CHECK(got.rfind(path + ":" + position + ": ", 0) == 0);
      CHECK(got.find(message) != std::string::npos);
    }
  }
}

// Every prefix of every bundled or test scenario either loads or is refused
// with an InputError: the loader never crashes, hangs or throws anything else.
TEST_CASE("truncated files never crash the loader") {
  auto files = yaml_files(kSource + "/scenarios");
  const auto more = yaml_files(kSource + "/tests/scenarios");
  files.insert(files.end(), more.begin(), more.end());
  int loaded = 0, refused = 0;
  for (const auto& path : files) {
    const std::string text = read(path);
    for (std::size_t n = 0; n <= text.size(); n += 7) {
      try {
        load_text(text.substr(0, n), path);
        ++loaded;
      } catch (const InputError&) {
        ++refused;
      }
    }
  }
  CHECK(refused > 0);
  CHECK(loaded > 0);
}
}

namespace {
struct YamlBlock {
  int line = 0;  // of the block's first line in its document
  std::string text;
};

// The ```yaml blocks of a Markdown document.
std::vector<YamlBlock> yaml_blocks(const std::string& path) {
  std::istringstream in(read(path));
  std::vector<YamlBlock> out;
  bool inside = false;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (!inside && line.rfind("```yaml", 0) == 0) {
      inside = true;
      out.push_back({n + 1, ""});
    } else if (inside && line.rfind("```", 0) == 0) {
      inside = false;
    } else if (inside) {
      out.back().text += line + "\n";
    }
  }
  return out;
}
}  // namespace

TEST_SUITE("scenarios") {
// The docs agree with the loader: a whole scenario in docs/scenario-format.md
// or the README loads as written.
TEST_CASE("the scenarios the docs show in full load as written") {
  int whole = 0;
  for (const std::string doc : {"/docs/scenario-format.md", "/README.md"}) {
    for (const auto& block : yaml_blocks(kSource + doc)) {
      const bool scenario = block.text.rfind("name:", 0) == 0 || block.text.find("\nname:") != std::string::npos;
      if (!scenario || block.text.find("members:") == std::string::npos) continue;  // a fragment of one
      if (block.text.rfind("# every key, annotated", 0) == 0) continue;               // the reference listing
      CAPTURE(doc);
      CAPTURE(block.line);
      ++whole;
      CHECK_NOTHROW((void)load_text(block.text, doc));
    }
  }
  CHECK(whole >= 2);
}
}
