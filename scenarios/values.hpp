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
// number of microseconds is rejected rather than rounded.
std::optional<Duration> parse_duration(std::string_view text, std::string& why);
// "512KB", "2GB" (powers of 1024), or a bare integer of bytes.
std::optional<std::uint64_t> parse_size(std::string_view text, std::string& why);
// "100MB/s": a size per second.
std::optional<std::uint64_t> parse_rate(std::string_view text, std::string& why);
// A whole decimal number, all of the text.
std::optional<std::int64_t> parse_integer(std::string_view text);
// A finite decimal number, all of the text.
std::optional<double> parse_number(std::string_view text);

}  // namespace rsim::scenario
