#include "scenarios/limits.hpp"

#include "scenarios/errors.hpp"
#include "scenarios/values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace rsim::scenario {

namespace {

// Each topic's partition count at its largest: add-partitions only grows it.
std::map<std::string, int> largest_partitions(const Scenario& s) {
  std::map<std::string, int> largest;
  for (const auto& t : s.topics) largest[t.name] = t.partitions;
  for (const auto& ev : s.events)
    if (const auto* ap = std::get_if<AddPartitions>(&ev.action)) largest[ap->topic] = std::max(largest[ap->topic], ap->count);
  return largest;
}

// ---- time range ----

using Wide = __int128;  // sums and products of durations cannot wrap in it

struct Reach {
  Wide end;
  std::string how;  // the sum, term by term, for the message
};

template <class Rolling>
Reach rolling_reach(const Event& ev, const Rolling& a) {
  const std::size_t gaps = a.members.ids.empty() ? 0 : a.members.ids.size() - 1;
  return {Wide{ev.at.count()} + Wide{a.interval.count()} * static_cast<Wide>(gaps) + a.down.count(),
          fmt::format("at + interval x (members - 1) + down = {} + {} x {} + {}", format_duration(ev.at),
                      format_duration(a.interval), gaps, format_duration(a.down))};
}

Reach plus(const Event& ev, Duration d, std::string_view name) {
  return {Wide{ev.at.count()} + d.count(),
          fmt::format("at + {} = {} + {}", name, format_duration(ev.at), format_duration(d))};
}

// The latest instant an event schedules something at, if past its `at`.
std::optional<Reach> reach(const Event& ev) {
  return std::visit(
      [&](const auto& a) -> std::optional<Reach> {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, Bounce> || std::is_same_v<A, Restart> || std::is_same_v<A, Upgrade> ||
                      std::is_same_v<A, CoordinatorFailover>)
          return plus(ev, a.down, "down");
        if constexpr (std::is_same_v<A, Pause> || std::is_same_v<A, Isolate>) return plus(ev, a.length, "for");
        if constexpr (std::is_same_v<A, Slow>) return plus(ev, a.length + a.batch, "for + batch");
        if constexpr (std::is_same_v<A, RollingBounce> || std::is_same_v<A, RollingRestart> ||
                      std::is_same_v<A, RollingUpgrade>)
          return rolling_reach(ev, a);
        return std::nullopt;
      },
      ev.action);
}

// Revocation and initialisation costs are paid per resource, in turn
// (Connect workers handle theirs in parallel): a member owning every
// partition pays the cost that many times.
void check_costs(const Scenario& s) {
  if (!s.connectors.empty()) return;
  Wide partitions = 0;
  for (const auto& [topic, n] : largest_partitions(s)) partitions += n;
  for (const auto& [name, cost] : {std::pair{"revoke", s.costs.revoke}, std::pair{"assign", s.costs.assign}}) {
    if (Wide{cost.count()} * partitions <= Wide{kMaxDuration.count()}) continue;
    throw InputError(s.file, s.costs.mark,
                     fmt::format("{} cost {} x {} partitions: a member handling them all, one after another, "
                                 "would take past {}, the latest instant this simulator schedules",
                                 name, format_duration(cost), format_count(static_cast<double>(partitions)),
                                 kMaxDurationText));
  }
}

}  // namespace

void check_time_range(const Scenario& s) {
  for (const auto& ev : s.events) {
    const auto r = reach(ev);
    if (!r || r->end <= Wide{kMaxDuration.count()}) continue;
    throw InputError(s.file, ev.mark,
                     fmt::format("{} event at {} reaches past {}, the latest instant this simulator schedules: {}",
                                 ev.kind, format_duration(ev.at), kMaxDurationText, r->how));
  }
  check_costs(s);
}

}  // namespace rsim::scenario
