#include "scenarios/writer.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <sstream>
#include <type_traits>

namespace rsim::scenario {

std::string duration_text(Duration d) {
  static constexpr std::array<std::pair<std::int64_t, const char*>, 5> kUnits{{
      {3'600'000'000, "h"}, {60'000'000, "m"}, {1'000'000, "s"}, {1'000, "ms"}, {1, "us"}}};
  const std::int64_t us = d.count();
  for (const auto& [scale, unit] : kUnits)
    if (us != 0 && us % scale == 0) return fmt::format("{}{}", us / scale, unit);
  return "0s";
}

namespace {

// A flow map or list on one line keeps events and members readable.
class Writer {
 public:
  explicit Writer(YAML::Emitter& out) : out_(out) {}

  void scenario(const Scenario& s) {
    out_ << YAML::BeginMap;
    key("name", s.name);
    if (!s.description.empty()) key("description", s.description);
    key("seed", std::to_string(s.seed));
    key("duration", duration_text(s.duration));
    key("protocol", s.protocol);
    if (s.assignor_exec) assignor_exec(*s.assignor_exec);
    else if (s.assignor) key("assignor", *s.assignor);
    config(s);
    network(s);
    costs(s);
    load(s);
    topics(s);
    topology(s);
    connectors(s);
    members(s);
    initial_assignment(s);
    events(s);
    if (s.metrics_from) {
      out_ << YAML::Key << "metrics" << YAML::Value << YAML::Flow << YAML::BeginMap;
      key("from", duration_text(*s.metrics_from));
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndMap;
  }

 private:
  void key(const char* k, const std::string& v) { out_ << YAML::Key << k << YAML::Value << v; }
  void list(const char* k, const std::vector<std::string>& v) {
    out_ << YAML::Key << k << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& x : v) out_ << x;
    out_ << YAML::EndSeq;
  }
  static std::string number(double v) { return fmt::format("{}", v); }

  void assignor_exec(const AssignorExec& x) {
    out_ << YAML::Key << "assignor" << YAML::Value << YAML::Flow << YAML::BeginMap;
    list("exec", x.command);
    key("timeout", duration_text(x.timeout));
    out_ << YAML::EndMap;
  }

  void config(const Scenario& s) {
    if (s.config.empty()) return;
    out_ << YAML::Key << "config" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, entry] : s.config) {
      const std::string text = std::visit(
          [](const auto& v) -> std::string {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, Duration>) {
              // As Kafka writes them: whole milliseconds for `.ms` keys.
              return v.count() % 1000 == 0 ? std::to_string(v.count() / 1000) : duration_text(v);
            } else if constexpr (std::is_same_v<V, std::string>) {
              return v;
            } else {
              return fmt::format("{}", v);
            }
          },
          entry.value);
      key(name.c_str(), text);
    }
    out_ << YAML::EndMap;
  }

  void network(const Scenario& s) {
    out_ << YAML::Key << "network" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out_ << YAML::Key << "latency" << YAML::Value;
    switch (s.latency.kind) {
      case LatencyModel::Kind::Fixed:
        out_ << duration_text(s.latency.a);
        break;
      case LatencyModel::Kind::Uniform:
        out_ << YAML::Flow << YAML::BeginMap << YAML::Key << "uniform" << YAML::Value << YAML::Flow << YAML::BeginSeq
             << duration_text(s.latency.a) << duration_text(s.latency.b) << YAML::EndSeq << YAML::EndMap;
        break;
      case LatencyModel::Kind::Exponential:
        out_ << YAML::Flow << YAML::BeginMap << YAML::Key << "exponential" << YAML::Value
             << duration_text(s.latency.a) << YAML::EndMap;
        break;
    }
    if (s.drop > 0) key("drop", number(s.drop));
    if (s.drop_until) key("drop-until", duration_text(*s.drop_until));
    if (s.bandwidth_bytes_per_s > 0) key("bandwidth", fmt::format("{}B/s", s.bandwidth_bytes_per_s));
    out_ << YAML::EndMap;
  }

  void costs(const Scenario& s) {
    const Costs& c = s.costs;
    if (c.revoke == Duration{0} && c.assign == Duration{0} && c.state_bytes == 0 && c.restore_bytes_per_s == 0 &&
        c.changelog_bytes_per_s == 0)
      return;
    out_ << YAML::Key << "costs" << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (c.revoke != Duration{0}) key("revoke", duration_text(c.revoke));
    if (c.assign != Duration{0}) key("assign", duration_text(c.assign));
    if (c.state_bytes != 0) key("state", std::to_string(c.state_bytes));
    if (c.restore_bytes_per_s != 0) key("restore.rate", fmt::format("{}B/s", c.restore_bytes_per_s));
    if (c.changelog_bytes_per_s != 0) key("changelog.rate", fmt::format("{}B/s", c.changelog_bytes_per_s));
    out_ << YAML::EndMap;
  }

  void load(const Scenario& s) {
    if (!s.load) return;
    out_ << YAML::Key << "load" << YAML::Value << YAML::Flow << YAML::BeginMap;
    key("produce.rate", number(s.load->produce_rate));
    key("process.rate", number(s.load->process_rate));
    out_ << YAML::EndMap;
  }

  void topics(const Scenario& s) {
    if (s.topics.empty()) return;
    out_ << YAML::Key << "topics" << YAML::Value << YAML::BeginSeq;
    for (const auto& t : s.topics) {
      out_ << YAML::Flow << YAML::BeginMap;
      key("name", t.name);
      key("partitions", std::to_string(t.partitions));
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndSeq;
  }

  void topology(const Scenario& s) {
    if (s.subtopologies.empty()) return;
    out_ << YAML::Key << "topology" << YAML::Value << YAML::BeginMap << YAML::Key << "subtopologies" << YAML::Value
         << YAML::BeginSeq;
    for (const auto& st : s.subtopologies) {
      out_ << YAML::Flow << YAML::BeginMap;
      key("id", st.id);
      list("source", st.source);
      if (!st.repartition_sink.empty()) repartition_sinks(st);
      if (!st.state.empty()) list("state", st.state);
      if (!st.copartition.empty()) {
        out_ << YAML::Key << "copartition" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (const auto& group : st.copartition) out_ << group;
        out_ << YAML::EndSeq;
      }
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndSeq << YAML::EndMap;
  }

  // A name, or {name, partitions} when its count is enforced.
  void repartition_sinks(const Subtopology& st) {
    out_ << YAML::Key << "repartition-sink" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& name : st.repartition_sink) {
      const auto it = st.sink_partitions.find(name);
      if (it == st.sink_partitions.end()) {
        out_ << name;
        continue;
      }
      out_ << YAML::BeginMap;
      key("name", name);
      key("partitions", std::to_string(it->second));
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndSeq;
  }

  void connectors(const Scenario& s) {
    if (s.connectors.empty()) return;
    out_ << YAML::Key << "connectors" << YAML::Value << YAML::BeginSeq;
    for (const auto& c : s.connectors) {
      out_ << YAML::Flow << YAML::BeginMap;
      key("name", c.name);
      key("tasks", std::to_string(c.tasks));
      if (c.revoke_cost) key("revoke-cost", duration_text(*c.revoke_cost));
      if (c.assign_cost) key("assign-cost", duration_text(*c.assign_cost));
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndSeq;
  }

  void member_fields(const MemberSpec& m) {
    if (!m.subscribe.empty()) list("subscribe", m.subscribe);
    if (m.instance_id) key("instance-id", *m.instance_id);
    if (m.rack) key("rack", *m.rack);
    if (m.process) key("process", *m.process);
    if (!m.assignors.empty()) list("assignors", m.assignors);
  }

  void members(const Scenario& s) {
    out_ << YAML::Key << "members" << YAML::Value << YAML::BeginSeq;
    for (const auto& m : s.members) {
      out_ << YAML::Flow << YAML::BeginMap;
      key("id", m.id);
      member_fields(m);
      if (m.start != Duration{0}) key("start", duration_text(m.start));
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndSeq;
  }

  void initial_assignment(const Scenario& s) {
    if (!s.initial_assignment) return;
    out_ << YAML::Key << "initial-assignment" << YAML::Value << YAML::BeginMap;
    for (const auto& [member, resources] : *s.initial_assignment) list(member.c_str(), resources);
    out_ << YAML::EndMap;
  }

  void events(const Scenario& s) {
    if (s.events.empty()) return;
    out_ << YAML::Key << "events" << YAML::Value << YAML::BeginSeq;
    for (const auto& ev : s.events) {
      out_ << YAML::Flow << YAML::BeginMap;
      // A scale-out is written as the joins it stands for: its ids depend
      // on a member prefix the one-by-one member list does not keep.
      if (const auto* so = std::get_if<ScaleOut>(&ev.action); so && !so->ids.empty()) {
        for (std::size_t i = 0; i < so->ids.size(); ++i) {
          if (i > 0) out_ << YAML::Flow << YAML::BeginMap;
          key("at", duration_text(ev.at));
          key("join", so->ids[i]);
          if (!so->subscribe.empty()) list("subscribe", so->subscribe);
          out_ << YAML::EndMap;
        }
        continue;
      }
      key("at", duration_text(ev.at));
      std::visit([&](const auto& a) { action(a); }, ev.action);
      out_ << YAML::EndMap;
    }
    out_ << YAML::EndSeq;
  }

  void action(const Join& a) {
    key("join", a.member.id);
    member_fields(a.member);
  }
  void action(const Leave& a) { key("leave", a.member); }
  void action(const Crash& a) { key("crash", a.member); }
  void action(const Bounce& a) {
    key("bounce", a.member);
    key("down", duration_text(a.down));
  }
  void action(const Restart& a) {
    key("restart", a.member);
    key("down", duration_text(a.down));
  }
  void action(const Pause& a) {
    key("pause", a.member);
    key("for", duration_text(a.length));
  }
  void action(const Slow& a) {
    key("slow", a.member);
    key("batch", duration_text(a.batch));
    key("for", duration_text(a.length));
  }
  void action(const RollingBounce& a) { rolling("rolling-bounce", a.members.ids, a.down, a.interval); }
  void action(const RollingRestart& a) { rolling("rolling-restart", a.members.ids, a.down, a.interval); }
  void action(const ScaleOut& a) {
    key("scale-out", std::to_string(a.count));
    if (!a.subscribe.empty()) list("subscribe", a.subscribe);
  }
  void action(const ScaleIn& a) { list("scale-in", a.members); }
  void action(const Isolate& a) {
    key("isolate", a.member);
    key("for", duration_text(a.length));
  }
  void action(const CoordinatorFailover& a) {
    key("coordinator-failover", "true");
    if (a.down != Duration{0}) key("down", duration_text(a.down));
  }
  void action(const AddPartitions& a) {
    out_ << YAML::Key << "add-partitions" << YAML::Value << YAML::Flow << YAML::BeginMap;
    key("topic", a.topic);
    key("count", std::to_string(a.count));
    out_ << YAML::EndMap;
  }
  void action(const CreateTopic& a) {
    key("create-topic", a.topic);
    key("partitions", std::to_string(a.partitions));
  }
  void action(const Subscribe& a) {
    key("subscribe", a.member);
    list("topics", a.topics);
  }
  void action(const Upgrade& a) {
    list("upgrade", a.members);
    key("to", a.to);
    key("down", duration_text(a.down));
    if (!a.assignors.empty()) list("assignors", a.assignors);
  }
  void action(const RollingUpgrade& a) {
    rolling("rolling-upgrade", a.members.ids, a.down, a.interval);
    key("to", a.to);
    if (!a.assignors.empty()) list("assignors", a.assignors);
  }
  // `all` was resolved to ids by the loader; the ids are what ran.
  void rolling(const char* kind, const std::vector<std::string>& ids, Duration down, Duration interval) {
    list(kind, ids);
    key("down", duration_text(down));
    key("interval", duration_text(interval));
  }

  YAML::Emitter& out_;
};

}  // namespace

std::string to_yaml(const Scenario& s, const std::string& header) {
  YAML::Emitter out;
  out.SetIndent(2);
  Writer(out).scenario(s);
  std::string text;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) text += line.empty() ? "#\n" : "# " + line + "\n";
  return text + out.c_str() + "\n";
}

}  // namespace rsim::scenario
