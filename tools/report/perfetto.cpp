#include "tools/report/perfetto.hpp"

#include "metrics/lag.hpp"
#include "metrics/processing.hpp"

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
    } else if (ev.actor != "scenario" && ev.actor != "network") {
      member(ev);
    }
  }

  Json finish(const std::vector<TraceEvent>& events, const std::vector<std::string>& resources,
             std::optional<metrics::LoadRates> load) {
    // Close what is still open at the end of the run.
    if (group_state_) slice(1, 1, *group_state_, "group", state_since_, end_);
    for (auto& [m, phase] : phases_)
      if (phase.name) slice(pid(m), 1, *phase.name, "phase", phase.since, end_);
    for (auto& [key, since] : owned_) slice(pid(key.first), tid(key.first, key.second), key.second, "ownership", since, end_);
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
  };

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

  void slice(int p, int t, const std::string& name, const char* cat, Time from, Time to) {
    Json e;
    e["name"] = name;
    e["cat"] = cat;
    e["ph"] = "X";
    e["ts"] = us(from);
    e["dur"] = us(to) - us(from);
    e["pid"] = p;
    e["tid"] = t;
    out_.push_back(e);
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
      if (group_state_) slice(1, 1, *group_state_, "group", state_since_, ev.at);
      group_state_ = *ev.text("to");
      state_since_ = ev.at;
    } else if (ev.kind == "generation") {
      instant(1, 1, "generation " + std::to_string(ev.integer("generation").value_or(0)), ev.at, Json::object());
    } else if (ev.kind == "failover") {
      instant(1, 1, "failover", ev.at, Json::object());
    }
  }

  void set_phase(const std::string& m, std::optional<std::string> name, Time at) {
    Phase& phase = phases_[m];
    if (phase.name == name) return;  // the same phase goes on
    if (phase.name) slice(pid(m), 1, *phase.name, "phase", phase.since, at);
    phase.name = std::move(name);
    phase.since = at;
  }

  void release(const std::string& m, const std::string& r, Time at) {
    auto it = owned_.find({m, r});
    if (it == owned_.end()) return;
    slice(pid(m), tid(m, r), r, "ownership", it->second, at);
    owned_.erase(it);
  }

  void member(const TraceEvent& ev) {
    const std::string& m = ev.actor;
    pid(m);
    const auto* rs = ev.list("resources");
    if (ev.kind == "join" || ev.kind == "rejoin") {
      if (!paused_[m]) set_phase(m, std::string("joining"), ev.at);
    } else if (ev.kind == "joined") {
      set_phase(m, std::string("syncing"), ev.at);
    } else if (ev.kind == "assigned") {
      // Initialising what was assigned (the assign cost: state restore, ...).
      set_phase(m, rs != nullptr && !rs->empty() ? std::optional<std::string>("restoring") : std::nullopt, ev.at);
      if (rs != nullptr)
        for (const auto& r : *rs) owned_.emplace(std::pair{m, r}, ev.at);
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
        if (key.first == m) held.push_back(key.second);
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
    auto value_at = [](const std::vector<metrics::BacklogPoint>& curve, std::int64_t t) {
      for (std::size_t i = 0; i + 1 < curve.size(); ++i) {
        const auto a = us(curve[i].at), b = us(curve[i + 1].at);
        if (t < a) return 0.0;
        if (t <= b) {
          if (b == a) return curve[i + 1].backlog;
          return curve[i].backlog + (curve[i + 1].backlog - curve[i].backlog) * static_cast<double>(t - a) / static_cast<double>(b - a);
        }
      }
      return curve.empty() || t < us(curve.front().at) ? 0.0 : curve.back().backlog * (curve.back().emptied ? 0.0 : 1.0);
    };
    for (const std::int64_t t : corners) {
      double total = 0;
      for (const auto& c : curves) total += value_at(c, t);
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
  std::map<std::pair<std::string, std::string>, Time> owned_;  // (member, resource) -> since
};

}  // namespace

void write_perfetto(std::ostream& out, const std::vector<TraceEvent>& events, const std::vector<std::string>& resources,
                    Time end, std::optional<metrics::LoadRates> load) {
  TraceWriter w(end);
  for (const auto& ev : events) w.apply(ev);
  out << w.finish(events, resources, load).dump() << '\n';
}

}  // namespace rsim::report
