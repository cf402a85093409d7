// What this simulator can represent and afford. The loader refuses a file
// beyond these before any run starts, so that a run never overflows its
// clock and its memory is bounded. They are the simulator's limits, not
// Kafka's, and their messages say so. docs/scenario-format.md, "Limits",
// lists them for users.
#pragma once

#include "scenarios/scenario.hpp"

#include <chrono>
#include <string_view>

namespace rsim::scenario {

// The longest duration a file may give, and the latest instant its events
// may reach (a rolling bounce's last restart, a pause's end). Simulated time
// is int64 microseconds, about 292,000 years: an instant within 10 years plus
// any few timers of at most 10 years each is far from overflow.
inline constexpr Duration kMaxDuration = std::chrono::hours(24 * 365 * 10);
inline constexpr std::string_view kMaxDurationText = "10 years (87600h)";

// Refuses instants the events reach beyond kMaxDuration (at + down,
// at + for, a rolling event's at + interval x (members - 1) + down), and
// handling costs that, paid once per resource in turn, would exceed it.
// Needs `all` targets resolved. Throws InputError.
void check_time_range(const Scenario& s);

}  // namespace rsim::scenario
