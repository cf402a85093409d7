#include "scenarios/values.hpp"

#include "scenarios/limits.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace rsim::scenario {

namespace {

constexpr std::string_view kTooLarge = "value too large";

// Splits "1.5s" into the number "1.5" and the unit "s".
std::pair<std::string_view, std::string_view> split_unit(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.')) ++i;
  return {t.substr(0, i), t.substr(i)};
}

// value = number * scale exactly, where number is "digits[.digits]".
std::optional<std::uint64_t> scaled(std::string_view number, std::uint64_t scale, std::string& why) {
  const auto dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
  if (whole.empty() || (dot != std::string_view::npos && frac.empty()) || frac.find('.') != std::string_view::npos) {
    why = "malformed number";
    return std::nullopt;
  }
  std::uint64_t w = 0;
  auto [p, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), w);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && w > UINT64_MAX / scale / 2)) {
    why = kTooLarge;
    return std::nullopt;
  }
  if (ec != std::errc() || p != whole.data() + whole.size()) {
    why = "malformed number";
    return std::nullopt;
  }
  std::uint64_t result = w * scale;
  // The fraction F / 10^k must give a whole number of base units: F * scale
  // divisible by 10^k.
  if (frac.size() > 12) {
    why = "too many decimals";
    return std::nullopt;
  }
  std::uint64_t f = 0, ten_k = 1;
  for (char c : frac) {
    if (c < '0' || c > '9') {
      why = "malformed number";
      return std::nullopt;
    }
    f = f * 10 + static_cast<std::uint64_t>(c - '0');
    ten_k *= 10;
  }
  const unsigned __int128 part = static_cast<unsigned __int128>(f) * scale;
  if (part % ten_k != 0) {
    why = "more precision than the unit allows";
    return std::nullopt;
  }
  result += static_cast<std::uint64_t>(part / ten_k);
  return result;
}

}  // namespace

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  auto [p, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec != std::errc() || p != last) return std::nullopt;
  return v;
}

std::optional<double> parse_number(std::string_view text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<Duration> parse_duration(std::string_view text, std::string& why) {
  return parse_duration(text, why, kMaxDuration);
}

std::optional<Duration> parse_duration(std::string_view text, std::string& why, Duration longest) {
  static constexpr std::array<std::pair<std::string_view, std::uint64_t>, 6> kUnits{{
      {"us", 1}, {"ms", 1'000}, {"s", 1'000'000}, {"m", 60'000'000}, {"min", 60'000'000}, {"h", 3'600'000'000},
  }};
  const auto [number, unit] = split_unit(text);
  if (number.empty()) {
    why = fmt::format("'{}' is not a duration (expected a number and a unit, e.g. 250us, 5ms, 3s, 2m, 1h)", text);
    return std::nullopt;
  }
  if (unit.empty()) {
    why = fmt::format("'{}' needs a unit (us, ms, s, m, h), e.g. {}s", text, number);
    return std::nullopt;
  }
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    std::string inner;
    auto us = scaled(number, scale, inner);
    if (us && *us <= static_cast<std::uint64_t>(longest.count())) return Duration{static_cast<std::int64_t>(*us)};
    if ((us || inner == kTooLarge) && longest == kMaxDuration)
      why = fmt::format("'{}' is longer than {}, the longest duration this simulator takes (its clock counts "
                        "microseconds in 64 bits)", text, kMaxDurationText);
    else if (us || inner == kTooLarge)
      why = fmt::format("'{}' is too large for the simulator's clock (64-bit microseconds)", text);
    else
      why = fmt::format("'{}' is not a valid duration: {}", text, inner);
    return std::nullopt;
  }
  why = fmt::format("'{}' has an unknown duration unit '{}' (use us, ms, s, m or h)", text, unit);
  return std::nullopt;
}

std::optional<std::uint64_t> parse_size(std::string_view text, std::string& why) {
  static constexpr std::array<std::pair<std::string_view, std::uint64_t>, 5> kUnits{{
      {"B", 1}, {"KB", 1ULL << 10}, {"MB", 1ULL << 20}, {"GB", 1ULL << 30}, {"TB", 1ULL << 40},
  }};
  const auto [number, unit] = split_unit(text);
  if (number.empty()) {
    why = fmt::format("'{}' is not a size (expected e.g. 512KB, 2GB, or a number of bytes)", text);
    return std::nullopt;
  }
  std::uint64_t scale = 0;
  if (unit.empty()) scale = 1;
  for (const auto& [name, s] : kUnits)
    if (unit == name) scale = s;
  if (scale == 0) {
    why = fmt::format("'{}' has an unknown size unit '{}' (use B, KB, MB, GB or TB)", text, unit);
    return std::nullopt;
  }
  std::string inner;
  auto v = scaled(number, scale, inner);
  if (!v) {
    why = fmt::format("'{}' is not a valid size: {}", text, inner);
    return std::nullopt;
  }
  return v;
}

std::string format_count(double x) {
  if (x >= 1e15) return fmt::format("{:.3g}", x);
  const std::string digits = fmt::format("{:.0f}", x);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::optional<std::uint64_t> parse_rate(std::string_view text, std::string& why) {
  const auto slash = text.rfind("/s");
  if (slash == std::string_view::npos || slash + 2 != text.size()) {
    why = fmt::format("'{}' is not a rate (expected a size per second, e.g. 100MB/s)", text);
    return std::nullopt;
  }
  return parse_size(text.substr(0, slash), why);
}

}  // namespace rsim::scenario
