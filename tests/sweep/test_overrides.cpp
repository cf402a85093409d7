// --set KEY=VALUE written into a scenario's text: replaced where the value
// stands, added to its map, and refused where the path is not a value.
#include "scenarios/loader.hpp"
#include "tools/sweep/overrides.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace rsim;
using sweep::set_value;

namespace {
const std::string kScenario =
    "name: t\n"
    "duration: 2m\n"
    "config: {session.timeout.ms: 10000, heartbeat.interval.ms: 3000}\n"
    "topics: [{name: orders, partitions: 6}]\n"
    "members:\n"
    "  - {id: A, subscribe: [orders]}\n"
    "  - id: B\n"
    "    subscribe: [orders]\n"
    "events:\n"
    "  - {at: 50s, crash: B}   # the crash\n";
}

TEST_SUITE("sweep") {
  TEST_CASE("a value in a flow map is replaced where it stands") {
    const auto t = set_value(kScenario, "t.yaml", "config.session.timeout.ms", "45000");
    CHECK(t.find("config: {session.timeout.ms: 45000, heartbeat.interval.ms: 3000}\n") != std::string::npos);
    const auto s = scenario::load_text(t, "t.yaml");
    CHECK(s.name == "t");
  }

  TEST_CASE("top-level values, list items by index or id, comments kept") {
    CHECK(set_value(kScenario, "t.yaml", "duration", "5m").find("duration: 5m\n") != std::string::npos);
    CHECK(set_value(kScenario, "t.yaml", "topics.0.partitions", "12").find("partitions: 12}") != std::string::npos);
    CHECK(set_value(kScenario, "t.yaml", "topics.orders.partitions", "24").find("partitions: 24}") != std::string::npos);
    CHECK(set_value(kScenario, "t.yaml", "events.0.at", "70s").find("{at: 70s, crash: B}   # the crash") != std::string::npos);
    CHECK(set_value(kScenario, "t.yaml", "members.B.subscribe.0", "orders").find("subscribe: [orders]") != std::string::npos);
  }

  TEST_CASE("a missing key is added to its map, or its section to the file") {
    const auto config = set_value(kScenario, "t.yaml", "config.max.poll.interval.ms", "60000");
    CHECK(config.find("config: {max.poll.interval.ms: 60000, session.timeout.ms: 10000") != std::string::npos);
    CHECK_NOTHROW(scenario::load_text(config, "t.yaml"));
    const auto network = set_value(kScenario, "t.yaml", "network.latency", "5ms");
    CHECK(network.find("network: {latency: 5ms}\n") != std::string::npos);
    CHECK_NOTHROW(scenario::load_text(network, "t.yaml"));
    const auto block = set_value(kScenario, "t.yaml", "members.B.start", "3s");
    CHECK(block.find("  - id: B\n    start: 3s\n    subscribe: [orders]\n") != std::string::npos);
    CHECK_NOTHROW(scenario::load_text(block, "t.yaml"));
  }

  TEST_CASE("the loader judges what was set, with the file's line and column") {
    const auto typo = set_value(kScenario, "t.yaml", "config.sesion.timeout.ms", "6000");
    try {
      scenario::load_text(typo, "t.yaml");
      FAIL("a typo in a config name must be refused");
    } catch (const scenario::InputError& e) {
      CHECK(std::string(e.what()).find("t.yaml:3:") == 0);
      CHECK(std::string(e.what()).find("did you mean 'session.timeout.ms'") != std::string::npos);
    }
    const auto bad = set_value(kScenario, "t.yaml", "topics.0.partitions", "many");
    CHECK_THROWS_AS(scenario::load_text(bad, "t.yaml"), scenario::InputError);
  }

  TEST_CASE("a path that is not a value is refused, naming the option") {
    CHECK_THROWS_WITH_AS(set_value(kScenario, "t.yaml", "members.count", "3"),
                         doctest::Contains("--set members.count=3: 'members' is a list"), sweep::OptionError);
    CHECK_THROWS_WITH_AS(set_value(kScenario, "t.yaml", "topics", "3"), doctest::Contains("is a list"), sweep::OptionError);
    CHECK_THROWS_WITH_AS(set_value(kScenario, "t.yaml", "duration.x", "3"), doctest::Contains("is a single value"),
                         sweep::OptionError);
    CHECK_THROWS_AS(sweep::parse_set("config.session.timeout.ms"), sweep::OptionError);
    CHECK_THROWS_AS(sweep::parse_set("a=1,,2"), sweep::OptionError);
    CHECK(sweep::parse_set("a.b=1,2").values.size() == 2);
  }
}
