#include "tools/report/perfetto.hpp"

#include "metrics/lag.hpp"
#include "metrics/processing.hpp"
#include "protocols/catalog.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <optional>

namespace rsim::report {

namespace {

using Json = nlohmann::ordered_json;

class TraceWriter {
 public:
  explicit TraceWriter(Time end) : end_(end) {}

  void apply(const TraceEvent& ev) {
    if (ev.actor == "coordinator") {
      coordinator(ev);
    } else if (ev.actor == "scenario") {
      scenario(ev);
    } else if (ev.actor != "network") {
      member(ev);
    }
  }

  Json finish(const std::vector<TraceEvent>& events, const std::vector<std::string>& resources,
             std::optional<metrics::LoadRates> load) {
    // Close what is still open at the end of the run.
    if (group_state_) slice(1, 1, *group_state_, "group", state_since_, end_, round_args(last_round_));
    for (auto& [m, phase] : phases_)
      if (phase.name) slice(pid(m), 1, *phase.name, "phase", phase.since, end_, member_args(m, phase.round));
    std::vector<std::pair<std::string, std::string>> still;
    for (const auto& [key, held] : owned_) still.push_back(key);
    for (const auto& [m, r] : still) release(m, r, end_);
    counters(events, resources, load);
    Json trace;
    trace["displayTimeUnit"] = "ms";
    trace["traceEvents"] = std::move(out_);
    return trace;
  }

 private:
  struct Phase {
    std::optional<std::string> name;
    Time since;
    std::optional<std::int64_t> round;  // the member's generation or epoch when it began
  };
  struct Held {
    Time since;
    std::optional<std::int64_t> round;  // the generation or epoch it was assigned in
  };
  struct Released {  // where a resource's last ownership slice ended
    int pid = 0;
    int tid = 0;
    std::int64_t ts = 0;
  };

  // Classic groups count generations; KIP-848 and KIP-1071 groups epochs.
  const char* round_name() const { return epochs_ ? "epoch" : "generation"; }

  Json round_args(std::optional<std::int64_t> round) const {
    Json a = Json::object();
    if (round) a[round_name()] = *round;
    return a;
  }

  Json member_args(const std::string& m, std::optional<std::int64_t> round) const {
    Json a = round_args(round);
    a["member"] = m;
    if (auto it = member_ids_.find(m); it != member_ids_.end()) a["member-id"] = it->second;
    return a;
  }

  static std::int64_t us(Time t) { return micros(t); }

  void meta(int pid, int tid, const char* what, const std::string& name) {
    Json e;
    e["name"] = what;
    e["ph"] = "M";
    e["pid"] = pid;
    e["tid"] = tid;
    e["args"] = {{"name", name}};
    out_.push_back(e);
  }

  int pid(const std::string& member) {
    auto [it, fresh] = pids_.emplace(member, static_cast<int>(pids_.size()) + 2);
    if (fresh) {
      meta(it->second, 0, "process_name", "member " + member);
      meta(it->second, 1, "thread_name", "phases");
    }
    return it->second;
  }

  int tid(const std::string& member, const std::string& resource) {
    auto [it, fresh] = tids_.emplace(std::pair{member, resource}, 0);
    if (fresh) {
      int& next = next_tid_[member];
      if (next == 0) next = 2;
      it->second = next++;
      meta(pid(member), it->second, "thread_name", resource);
    }
    return it->second;
  }

  void slice(int p, int t, const std::string& name, const char* cat, Time from, Time to, Json args) {
    Json e;
    e["name"] = name;
    e["cat"] = cat;
    e["ph"] = "X";
    e["ts"] = us(from);
    e["dur"] = us(to) - us(from);
    e["pid"] = p;
    e["tid"] = t;
    e["args"] = std::move(args);
    out_.push_back(e);
  }

  // A flow arrow from the end of one ownership slice to the start of the
  // next owner's: a resource handed over. Perfetto binds a flow's ends to
  // the slices that enclose them, so the start sits just inside the first.
  void flow(const std::string& resource, const Released& from, int to_pid, int to_tid, Time to) {
    const int id = ++flows_;
    Json s{{"name", "handover " + resource}, {"cat", "handover"}, {"ph", "s"}, {"id", id},
           {"ts", from.ts}, {"pid", from.pid}, {"tid", from.tid}};
    Json f{{"name", "handover " + resource}, {"cat", "handover"}, {"ph", "f"}, {"bp", "e"}, {"id", id},
           {"ts", us(to)}, {"pid", to_pid}, {"tid", to_tid}};
    out_.push_back(std::move(s));
    out_.push_back(std::move(f));
  }

  // The scenario's events (a crash, a bounce, a scale-out, a failover) as
  // global instants: a line across every track.
  void scenario(const TraceEvent& ev) {
    if (ev.kind == "run") {
      const std::string* protocol = ev.text("protocol");
      const auto* info = protocol != nullptr ? protocols::find_protocol(*protocol) : nullptr;
      epochs_ = info != nullptr && info->family != protocols::Family::Classic;
      return;
    }
    if (ev.kind != "disruption") return;
    const std::string action = ev.text("action") != nullptr ? *ev.text("action") : "event";
    const std::string who = ev.text("member") != nullptr ? *ev.text("member") : "";
    Json e{{"name", who.empty() ? action : action + " " + who}, {"cat", "scenario"}, {"ph", "i"}, {"s", "g"},
           {"ts", us(ev.at)}, {"pid", 1}, {"tid", 3}};
    e["args"] = {{"action", action}, {"member", who}};
    out_.push_back(std::move(e));
  }

  void instant(int p, int t, const std::string& name, Time at, Json args) {
    Json e;
    e["name"] = name;
    e["ph"] = "i";
    e["s"] = "t";
    e["ts"] = us(at);
    e["pid"] = p;
    e["tid"] = t;
    e["args"] = std::move(args);
    out_.push_back(e);
  }

  void coordinator(const TraceEvent& ev) {
    if (!named_coordinator_) {
      meta(1, 0, "process_name", "coordinator");
      meta(1, 1, "thread_name", "group state");
      named_coordinator_ = true;
    }
    if (ev.kind == "state") {
      if (group_state_) slice(1, 1, *group_state_, "group", state_since_, ev.at, round_args(last_round_));
      group_state_ = *ev.text("to");
      state_since_ = ev.at;
    } else if (ev.kind == "generation") {
      last_round_ = ev.integer("generation");
      Json args = round_args(last_round_);
      if (const auto* members = ev.list("members")) args["members"] = *members;
      if (const auto* leader = ev.text("leader")) args["leader"] = *leader;
      instant(1, 1, fmt::format("{} {}", round_name(), last_round_.value_or(0)), ev.at, std::move(args));
    } else if (ev.kind == "failover") {
      instant(1, 1, "failover", ev.at, Json::object());
    }
  }

  void set_phase(const std::string& m, std::optional<std::string> name, Time at) {
    Phase& phase = phases_[m];
    if (phase.name == name) return;  // the same phase goes on
    if (phase.name) slice(pid(m), 1, *phase.name, "phase", phase.since, at, member_args(m, phase.round));
    phase.name = std::move(name);
    phase.since = at;
    phase.round = rounds_.count(m) != 0 ? std::optional<std::int64_t>(rounds_.at(m)) : std::nullopt;
  }

  void take(const std::string& m, const std::string& r, Time at, std::optional<std::int64_t> round) {
    if (!owned_.emplace(std::pair{m, r}, Held{at, round}).second) return;  // already held: no new slice
    auto prev = released_.find(r);
    if (prev == released_.end()) return;
    // Only a change of owner is a handover (an eager member gets back what it revoked).
    if (prev->second.pid != pid(m) && prev->second.ts <= us(at)) flow(r, prev->second, pid(m), tid(m, r), at);
    released_.erase(prev);
  }

  void release(const std::string& m, const std::string& r, Time at) {
    auto it = owned_.find({m, r});
    if (it == owned_.end()) return;
    Json args = member_args(m, it->second.round);
    args["resource"] = r;
    const int p = pid(m), t = tid(m, r);
    slice(p, t, r, "ownership", it->second.since, at, std::move(args));
    // The flow leaves from just inside the slice (an empty one has no inside).
    released_[r] = Released{p, t, std::max(us(it->second.since), us(at) - 1)};
    owned_.erase(it);
  }

  void member(const TraceEvent& ev) {
    const std::string& m = ev.actor;
    pid(m);
    const auto* rs = ev.list("resources");
    if (const auto* id = ev.text("member-id"); id != nullptr && !id->empty()) member_ids_[m] = *id;
    if (auto round = ev.integer("generation")) rounds_[m] = *round;
    if (ev.kind == "join" || ev.kind == "rejoin") {
      if (!paused_[m]) set_phase(m, std::string("joining"), ev.at);
    } else if (ev.kind == "joined") {
      set_phase(m, std::string("syncing"), ev.at);
    } else if (ev.kind == "assigned") {
      // Initialising what was assigned (the assign cost: state restore, ...).
      set_phase(m, rs != nullptr && !rs->empty() ? std::optional<std::string>("restoring") : std::nullopt, ev.at);
      if (rs != nullptr)
        for (const auto& r : *rs) take(m, r, ev.at, ev.integer("generation"));
    } else if (ev.kind == "ready") {
      if (phases_[m].name == std::optional<std::string>("restoring")) set_phase(m, std::nullopt, ev.at);
    } else if (ev.kind == "revoking") {
      set_phase(m, std::string("revoking"), ev.at);
    } else if (ev.kind == "revoked" || ev.kind == "lost") {
      if (rs != nullptr)
        for (const auto& r : *rs) release(m, r, ev.at);
      if (ev.kind == "lost") instant(pid(m), 1, "partitions lost", ev.at, Json::object());
    } else if (ev.kind == "pause") {
      paused_[m] = true;
      set_phase(m, std::string("paused"), ev.at);
    } else if (ev.kind == "resume") {
      paused_[m] = false;
      set_phase(m, std::nullopt, ev.at);
    } else if (ev.kind == "crash" || ev.kind == "stopped") {
      std::vector<std::string> held;
      for (const auto& [key, since] : owned_)
        if (key.first == m) held.push_back(key.second);  // copied: release erases
      for (const auto& r : held) release(m, r, ev.at);
      set_phase(m, std::string(ev.kind == "crash" ? "down (crashed)" : "down"), ev.at);
    } else if (ev.kind == "start") {
      set_phase(m, std::nullopt, ev.at);
    }
  }

  // The number of resources processed, from the processing replay, and
  // with a load the total backlog.
  void counters(const std::vector<TraceEvent>& events, const std::vector<std::string>& resources,
                         std::optional<metrics::LoadRates> load) {
    const auto p = metrics::measure_processing(events, resources, kTimeZero, end_);
    if (load) backlog_counter(p, *load);
    std::map<std::int64_t, int> delta;  // time -> change in the number down
    for (const auto& [r, intervals] : p.down_intervals)
      for (const auto& [a, b] : intervals) {
        ++delta[us(a)];
        --delta[us(b)];
      }
    meta(1, 2, "thread_name", "processed resources");
    meta(1, 3, "thread_name", "scenario events");
    int down = 0;
    const int total = static_cast<int>(resources.size());
    Json e;
    e["name"] = "processed resources";
    e["ph"] = "C";
    e["pid"] = 1;
    e["ts"] = 0;
    e["args"] = {{"processed", total}};
    for (const auto& [t, d] : delta) {
      down += d;
      e["ts"] = t;
      e["args"] = {{"processed", total - down}};
      out_.push_back(e);
    }
  }

  // The sum of the partitions' backlogs at every corner of any of them
  // (between corners each changes linearly; the counter steps).
  void backlog_counter(const metrics::ProcessingResult& p, const metrics::LoadRates& load) {
    std::vector<std::vector<metrics::BacklogPoint>> curves;
    std::set<std::int64_t> corners;
    for (const auto& [r, intervals] : p.down_intervals) {
      curves.push_back(metrics::backlog_curve(intervals, end_, load.produce, load.process));
      for (const auto& c : curves.back()) corners.insert(us(c.at));
    }
    for (const std::int64_t t : corners) {
      double total = 0;
      for (const auto& c : curves) total += metrics::backlog_at(c, time_at(Duration{t}));
      Json e;
      e["name"] = "backlog (messages)";
      e["ph"] = "C";
      e["pid"] = 1;
      e["ts"] = t;
      e["args"] = {{"backlog", total}};
      out_.push_back(e);
    }
  }

  Time end_;
  Json out_ = Json::array();
  bool named_coordinator_ = false;
  std::optional<std::string> group_state_;
  Time state_since_;
  std::map<std::string, int> pids_;
  std::map<std::pair<std::string, std::string>, int> tids_;
  std::map<std::string, int> next_tid_;
  std::map<std::string, Phase> phases_;
  std::map<std::string, bool> paused_;
  std::map<std::pair<std::string, std::string>, Held> owned_;  // (member, resource) -> since when, in which round
  std::map<std::string, Released> released_;                   // resource -> its last owner's slice end
  std::map<std::string, std::string> member_ids_;              // member -> its current member id
  std::map<std::string, std::int64_t> rounds_;                 // member -> its last generation or epoch
  std::optional<std::int64_t> last_round_;                     // the group's
  bool epochs_ = false;
  int flows_ = 0;
};

}  // namespace

void write_perfetto(std::ostream& out, const std::vector<TraceEvent>& events, const std::vector<std::string>& resources,
                    Time end, std::optional<metrics::LoadRates> load) {
  TraceWriter w(end);
  for (const auto& ev : events) w.apply(ev);
  out << w.finish(events, resources, load).dump() << '\n';
}

}  // namespace rsim::report
