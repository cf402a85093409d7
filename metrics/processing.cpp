#include "metrics/processing.hpp"

#include "metrics/member_log.hpp"
#include "metrics/standing.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string_view>

namespace rsim::metrics {

namespace {
constexpr Time kNotYet = Time::max();  // a window bound not known yet
}  // namespace

// Each resource's processed flag changes only at events; downtime is added
// when a down interval closes, clipped to the window. Stop-the-world needs
// only the count of processed resources and of live members.
class ProcessingReplay {
 public:
  // Resources are numbered in name order once; events name them, and every
  // later step works on the number (a run of 100,000 partitions replays
  // millions of resource mentions).
  ProcessingReplay(const std::vector<std::string>& resources, const std::set<std::string>& created_later, Time from,
                   Time to, const ProcessingOptions& options)
      : from_(from), to_(to), options_(options) {
    if (options_.lag) result_.lag = LagResult{};
    const std::set<std::string> measured(resources.begin(), resources.end());
    names_.assign(measured.begin(), measured.end());
    state_.resize(names_.size());
    for (std::size_t i = 0; i < names_.size(); ++i) {
      const Name name(names_[i]);
      if (name.id() >= index_.size()) index_.resize(name.id() + 1, kNotMeasured);
      index_[name.id()] = i;
      if (created_later.count(names_[i]) != 0) continue;  // exists from its resources-added event
      state_[i].present = true;
      ++present_count_;
    }
    down_count_ = present_count_;
  }

  // As the run goes: the resources that exist at its start; those created
  // later join as their resources-added events come; the window's bounds
  // come with start_window and finish.
  ProcessingReplay(const std::vector<std::string>& initial, const ProcessingOptions& options, Time to,
                   std::function<bool(const std::string&)> is_resource)
      : ProcessingReplay(initial, {}, kNotYet, to, options) {
    is_resource_ = std::move(is_resource);
  }

  void start_window(Time from) { from_ = from; }
  bool window_started() const { return from_ != kNotYet; }

  void apply(const TraceEvent& ev) {
    ++epoch_;
    advance_clock(ev.at);
    apply_change(ev);
    track_recovery(ev);
  }

  ProcessingResult finish(Time to) {
    to_ = to;
    return finish();
  }

  ProcessingResult finish() {
    advance_clock(to_);
    EndState& end = result_.end_state;
    end.settled_since = settled_since_;
    end.coordinator_stable = coordinator_stable_;
    end.unsettled.assign(unsettled_.begin(), unsettled_.end());
    const auto order = name_order();
    for (const std::size_t r : order) {
      const State& s = state_[r];
      if (!s.present || s.processed) continue;
      close_down(r, s, to_);
      end.unprocessed.push_back(names_[r]);
    }
    for (const std::size_t r : order) {
      State& s = state_[r];
      if (!s.present) continue;
      result_.downtime.emplace_hint(result_.downtime.end(), names_[r], s.downtime);
      if (!s.intervals.empty()) result_.down_intervals.emplace_hint(result_.down_intervals.end(), names_[r], std::move(s.intervals));
      if (options_.lag) {
        s.backlog.finish(to_, *options_.lag, [&](const BacklogPoint& p) { s.lag.add(p, *result_.lag); });
        s.lag.finish(to_, *result_.lag);
      }
    }
    return std::move(result_);
  }

 private:
  // Resource numbers in name order: the numbering itself, but for resources
  // created during a run measured as it goes, numbered as they come.
  std::vector<std::size_t> name_order() const {
    std::vector<std::size_t> order(names_.size());
    for (std::size_t r = 0; r < order.size(); ++r) order[r] = r;
    if (is_resource_)
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return names_[a] < names_[b]; });
    return order;
  }

  std::size_t add_resource(Name name) {
    const std::size_t r = names_.size();
    names_.push_back(name);
    state_.emplace_back();
    if (name.id() >= index_.size()) index_.resize(name.id() + 1, kNotMeasured);
    index_[name.id()] = r;
    return r;
  }

  void apply_change(const TraceEvent& ev) {
    const auto* rs = ev.list("resources");
    if (ev.kind == "resources-added" && rs != nullptr) {
      for (const Name name : *rs) {
        std::size_t r = number(name);
        if (r == kNotMeasured && is_resource_ && is_resource_(name)) r = add_resource(name);
        if (r == kNotMeasured) continue;
        State& s = state_[r];
        if (!s.present) ++present_count_;
        s.present = true;
        s.since = last_;
        s.downtime = Duration{0};
        ++down_count_;
      }
    } else if ((ev.kind == "ready" || ev.kind == "revoking" || ev.kind == "lost") && rs != nullptr) {
      const Name member(ev.actor);
      const bool ready = ev.kind == "ready";
      for (const Name name : *rs)
        if (const std::size_t r = number(name); r != kNotMeasured) set_ready(member, r, ready);
      compact(member);
    } else if (ev.kind == "start") {
      alive_.insert(ev.actor);
    } else if (ev.kind == "crash" || ev.kind == "stopped") {
      alive_.erase(ev.actor);
      paused_.erase(ev.actor);
      ++epoch_;
      const Name member(ev.actor);
      const MemberLog<std::size_t> log = std::move(ready_of(member));
      ready_of(member).clear();
      for (const auto r : log.entries())
        if (has_ready(member, r)) set_ready(member, r, false);
    } else if (ev.kind == "pause" || ev.kind == "resume") {
      if (ev.kind == "pause") paused_.insert(ev.actor);
      else paused_.erase(ev.actor);
      ++epoch_;
      update_member(ev.actor);
    } else {
      for (const std::string& changed : standing_.apply(ev)) {
        ++epoch_;
        update_member(changed);
      }
    }
  }

  // Whether the group has settled, and the disruptions waiting for it.
  void track_recovery(const TraceEvent& ev) {
    if (ev.actor == "coordinator" && ev.kind == "state") {
      const std::string* to = ev.text("to");
      coordinator_stable_ = to != nullptr && *to == "Stable";
      coordinator_empty_ = to != nullptr && *to == "Empty";
    } else if (ev.actor == "coordinator" && ev.kind == "loaded") {
      const std::string* state = ev.text("state");
      coordinator_stable_ = state != nullptr && *state == "Stable";
      coordinator_empty_ = state != nullptr && *state == "Empty";
    } else if (ev.actor == "coordinator" && ev.kind == "stable") {
      coordinator_stable_ = true;
      for (auto i : open_) ++result_.recoveries[i].rebalances;
    } else if (ev.kind == "start" || ev.kind == "join" || ev.kind == "rejoin" || ev.kind == "lost" ||
               ev.kind == "poll-timeout" || ev.kind == "leave") {
      unsettled_.insert(ev.actor);
      if (ev.kind == "start") awaiting_.erase(ev.actor);
    } else if (ev.kind == "revoking") {
      if (const auto* rs = ev.list("resources"))
        for (auto i : open_) result_.recoveries[i].revocations += static_cast<int>(rs->size());
    } else if (ev.kind == "assigned") {
      unsettled_.erase(ev.actor);
    } else if (ev.kind == "crash" || ev.kind == "stopped") {
      unsettled_.erase(ev.actor);
    }
    if (ev.actor == "scenario" && ev.kind == "disruption") {
      // The marker precedes the disruption's first effect, so it is never
      // judged stable by itself.
      if (ev.at < from_ || ev.at > to_) return;
      Recovery r;
      r.at = ev.at;
      if (const auto* a = ev.text("action")) r.action = *a;
      if (const auto* m = ev.text("member")) r.member = *m;
      if (comes_back(r.action) && !r.member.empty()) awaiting_[r.member] = result_.recoveries.size();
      open_.push_back(result_.recoveries.size());
      result_.recoveries.push_back(r);
      return;
    }
    // A group every member has left is settled once it is Empty.
    const bool at_rest = coordinator_stable_ || (coordinator_empty_ && alive_.empty());
    const bool settled = down_count_ == 0 && at_rest && unsettled_.empty();
    if (!settled) settled_since_.reset();
    else if (!settled_since_) settled_since_ = ev.at;
    if (!open_.empty() && settled) close_recoveries(ev.at);
  }

  // What restarts a member: it is back when it starts again.
  static bool comes_back(const std::string& action) { return action == "bounce" || action == "restart" || action == "upgrade"; }

  // The group settled at `at`: every open disruption is over but those
  // whose member is not back yet.
  void close_recoveries(Time at) {
    std::vector<std::size_t> still;
    for (auto i : open_) {
      const auto& r = result_.recoveries[i];
      const auto back = awaiting_.find(r.member);
      if (back != awaiting_.end() && back->second == i) still.push_back(i);
      else result_.recoveries[i].stable = at;
    }
    open_ = std::move(still);
  }

  struct State {
    bool present = false;    // exists: from the start, or since its resources-added event
    bool processed = false;
    Time since = kTimeZero;  // start of the current down interval
    std::vector<Name> holders;  // members that have it initialised
    Duration downtime{0};
    std::vector<std::pair<Time, Time>> intervals;  // with ProcessingOptions::keep_intervals
    Backlog backlog;                               // with ProcessingOptions::lag
    LagFold lag;
  };

  // Whether `member` processes what it has initialised: asked once per
  // member per event (epoch_ moves on at each event and each change of
  // standing or pause; a resource mention asks for every holder).
  bool active(Name member) {
    if (member.id() >= active_.size()) active_.resize(member.id() + 1);
    auto& [epoch, value] = active_[member.id()];
    if (epoch != epoch_) {
      epoch = epoch_;
      value = paused_.count(member) == 0 && !standing_.removed(member);
    }
    return value;
  }

  // A resource's number; kNotMeasured if it is not a resource of this run.
  std::size_t number(Name name) const { return name.id() < index_.size() ? index_[name.id()] : kNotMeasured; }

  MemberLog<std::size_t>& ready_of(Name member) {
    if (member.id() >= ready_.size()) ready_.resize(member.id() + 1);
    return ready_[member.id()];
  }

  bool has_ready(Name member, std::size_t r) const {
    const auto& hs = state_[r].holders;
    return std::find(hs.begin(), hs.end(), member) != hs.end();
  }

  void compact(Name member) {
    ready_of(member).compact([&](std::size_t r) { return has_ready(member, r); });
  }

  void set_ready(Name member, std::size_t r, bool ready) {
    State& s = state_[r];
    if (!s.present) return;
    const auto it = std::find(s.holders.begin(), s.holders.end(), member);
    if (ready && it == s.holders.end()) {
      s.holders.push_back(member);
      ready_of(member).add(r);
    } else if (!ready && it != s.holders.end()) {
      s.holders.erase(it);
    }
    update(r, s);
  }

  void update(std::size_t r, State& s) {
    int n = 0;
    for (const Name m : s.holders) n += active(m) ? 1 : 0;
    const bool now = n == 1;
    if (now == s.processed) return;
    s.processed = now;
    if (now) {
      close_down(r, s, last_);
      --down_count_;
    } else {
      s.since = last_;
      ++down_count_;
    }
  }

  void update_member(Name member) {
    if (member.id() >= ready_.size()) return;
    for (const auto r : ready_[member.id()].entries())
      if (has_ready(member, r)) update(r, state_[r]);
  }

  void close_down(std::size_t r, const State& s, Time end) {
    const Time a = std::max(s.since, from_);
    const Time b = std::min(end, to_);
    if (b <= a) return;
    State& down = state_[r];
    down.downtime += b - a;
    if (options_.keep_intervals) down.intervals.emplace_back(a, b);
    if (options_.lag) down.backlog.down(a, b, *options_.lag, [&](const BacklogPoint& p) { down.lag.add(p, *result_.lag); });
  }

  // Stop-the-world for the time since the last event, under the state then.
  void advance_clock(Time t) {
    const Time a = std::max(last_, from_);
    const Time b = std::min(t, to_);
    if (b > a && present_count_ != 0 && down_count_ == present_count_ && !alive_.empty()) result_.stop_the_world += b - a;
    if (t > last_) last_ = t;
  }

  Time from_, to_;
  // As the run goes: which names a resources-added event creates are
  // measured, numbered as they come; empty: every resource is known up front.
  std::function<bool(const std::string&)> is_resource_;
  ProcessingOptions options_;
  Time last_ = kTimeZero;
  std::vector<std::string> names_;  // the resources asked about, in name order; others are ignored
  static constexpr std::size_t kNotMeasured = static_cast<std::size_t>(-1);
  std::vector<std::size_t> index_;  // Name::id() -> number, or kNotMeasured
  std::vector<State> state_;        // by number
  std::size_t present_count_ = 0;   // resources that exist (not yet created ones excluded)
  std::size_t down_count_ = 0;
  std::vector<MemberLog<std::size_t>> ready_;  // member's Name::id() -> resources it has initialised (by number)
  std::uint64_t epoch_ = 0;
  std::vector<std::pair<std::uint64_t, bool>> active_;  // member's Name::id() -> (epoch_ asked at, active)
  std::set<std::string> paused_, alive_;
  Standing standing_;
  bool coordinator_stable_ = false;
  bool coordinator_empty_ = false;
  std::set<std::string> unsettled_;  // members joining or rejoining
  std::vector<std::size_t> open_;    // recoveries waiting for the group to settle
  std::map<std::string, std::size_t> awaiting_;  // member -> its restart's recovery, until it starts again
  std::optional<Time> settled_since_;
  ProcessingResult result_;
};

ProcessingFold::ProcessingFold(const std::vector<std::string>& initial, const ProcessingOptions& options, Time to,
                               std::function<bool(const std::string&)> is_resource)
    : replay_(std::make_unique<ProcessingReplay>(initial, options, to, std::move(is_resource))) {}
ProcessingFold::~ProcessingFold() = default;
void ProcessingFold::start_window(Time from) { replay_->start_window(from); }
bool ProcessingFold::window_started() const { return replay_->window_started(); }
void ProcessingFold::apply(const TraceEvent& ev) { replay_->apply(ev); }
ProcessingResult ProcessingFold::finish(Time to) { return replay_->finish(to); }

namespace {

Duration nearest_rank(const std::vector<Duration>& sorted, double q) {
  if (sorted.empty()) return Duration{0};
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

std::set<std::string> created_later(const std::vector<TraceEvent>& trace) {
  std::set<std::string> out;
  for (const auto& ev : trace)
    if (ev.kind == "resources-added")
      if (const auto* rs = ev.list("resources")) out.insert(rs->begin(), rs->end());
  return out;
}

ProcessingResult measure_processing(const std::vector<TraceEvent>& trace, const std::vector<std::string>& resources,
                                    Time from, Time to, const ProcessingOptions& options) {
  ProcessingReplay replay(resources, created_later(trace), from, to, options);
  for (const auto& ev : trace) replay.apply(ev);
  return replay.finish();
}

DowntimeStats downtime_stats(const std::map<std::string, Duration>& downtime) {
  DowntimeStats s;
  std::vector<Duration> all;
  for (const auto& [r, d] : downtime) {
    s.total += d;
    all.push_back(d);
  }
  std::sort(all.begin(), all.end());
  if (!all.empty()) s.max = all.back();
  s.p50 = nearest_rank(all, 0.50);
  s.p99 = nearest_rank(all, 0.99);
  return s;
}

}  // namespace rsim::metrics
