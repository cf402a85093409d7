// Parsing of the scenario file's value syntaxes: durations, sizes, rates.
// Each returns nullopt and fills `why` on a malformed value.
#pragma once

#include "sim/time.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rsim::scenario {

// "250us", "5ms", "3s", "2m", "1h", "1.5s". Exact: a value that is not a whole
// number of microseconds is rejected rather than rounded. At most
// kMaxDuration (limits.hpp), 10 years: what a file schedules.
std::optional<Duration> parse_duration(std::string_view text, std::string& why);
// The same up to `longest`: an expected metric may sum many resources'
// durations, and only has to fit the clock's type.
std::optional<Duration> parse_duration(std::string_view text, std::string& why, Duration longest);
// "512KB", "2GB" (powers of 1024), or a bare integer of bytes.
std::optional<std::uint64_t> parse_size(std::string_view text, std::string& why);
// "100MB/s": a size per second.
std::optional<std::uint64_t> parse_rate(std::string_view text, std::string& why);
// A whole decimal number, all of the text.
std::optional<std::int64_t> parse_integer(std::string_view text);
// A finite decimal number, all of the text.
std::optional<double> parse_number(std::string_view text);

// A count for messages: 1234567 as "1,234,567"; from 1e15, where a double
// stops holding whole numbers exactly, as "1.23e+15".
std::string format_count(double x);

}  // namespace rsim::scenario
