#include "tools/swarm/shrink.hpp"

#include "metrics/liveness.hpp"
#include "scenarios/errors.hpp"
#include "scenarios/loader.hpp"
#include "scenarios/writer.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>

namespace rsim::swarm {

using namespace std::chrono_literals;
using scenario::Event;
using scenario::Scenario;

namespace {

using Candidates = std::vector<Scenario>;

// ---- one member less ------------------------------------------------------

void erase_id(std::vector<std::string>& ids, const std::string& id) { std::erase(ids, id); }

// The event without `id`; nullopt when nothing is left of it.
std::optional<Event> without_member(Event ev, const std::string& id) {
  namespace sc = scenario;
  bool keep = true;
  std::visit(
      [&](auto& a) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, sc::Join>) {
          keep = a.member.id != id;
        } else if constexpr (std::is_same_v<A, sc::ScaleIn> || std::is_same_v<A, sc::Upgrade>) {
          erase_id(a.members, id);
          keep = !a.members.empty();
        } else if constexpr (std::is_same_v<A, sc::RollingBounce> || std::is_same_v<A, sc::RollingRestart> ||
                             std::is_same_v<A, sc::RollingUpgrade>) {
          erase_id(a.members.ids, id);
          a.members.all = false;
          keep = !a.members.ids.empty();
        } else if constexpr (std::is_same_v<A, sc::ScaleOut> || std::is_same_v<A, sc::CoordinatorFailover> ||
                             std::is_same_v<A, sc::AddPartitions> || std::is_same_v<A, sc::CreateTopic>) {
        } else {
          keep = a.member != id;
        }
      },
      ev.action);
  if (!keep) return std::nullopt;
  return ev;
}

Scenario remove_member(const Scenario& s, const std::string& id) {
  Scenario c = s;
  std::erase_if(c.members, [&](const auto& m) { return m.id == id; });
  std::vector<Event> events;
  for (const auto& ev : c.events)
    if (auto kept = without_member(ev, id)) events.push_back(*kept);
  c.events = std::move(events);
  if (c.initial_assignment) c.initial_assignment->erase(id);
  return c;
}

// ---- one topic less ------------------------------------------------------

Scenario remove_topic(const Scenario& s, const std::string& topic) {
  Scenario c = s;
  std::erase_if(c.topics, [&](const auto& t) { return t.name == topic; });
  for (auto& m : c.members) std::erase(m.subscribe, topic);
  std::vector<Event> events;
  for (auto ev : c.events) {
    if (const auto* ap = std::get_if<scenario::AddPartitions>(&ev.action); ap && ap->topic == topic) continue;
    if (auto* sub = std::get_if<scenario::Subscribe>(&ev.action)) std::erase(sub->topics, topic);
    if (auto* j = std::get_if<scenario::Join>(&ev.action)) std::erase(j->member.subscribe, topic);
    if (auto* so = std::get_if<scenario::ScaleOut>(&ev.action)) std::erase(so->subscribe, topic);
    events.push_back(ev);
  }
  c.events = std::move(events);
  if (c.initial_assignment)
    for (auto& [member, resources] : *c.initial_assignment)
      std::erase_if(resources, [&](const std::string& r) { return r.rfind(topic + "-", 0) == 0; });
  return c;
}

// ---- candidates, most promising first --------------------------------------

Candidates fewer_events(const Scenario& s) {
  Candidates out;
  for (std::size_t i = s.events.size(); i-- > 0;) {
    Scenario c = s;
    c.events.erase(c.events.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(std::move(c));
  }
  // Half of them at once, for long schedules.
  if (s.events.size() >= 4) {
    Scenario c = s;
    c.events.resize(s.events.size() / 2);
    out.insert(out.begin(), std::move(c));
  }
  return out;
}

Candidates fewer_members(const Scenario& s) {
  Candidates out;
  for (std::size_t i = s.members.size(); i-- > 0;) out.push_back(remove_member(s, s.members[i].id));
  for (const auto& ev : s.events)
    if (const auto* j = std::get_if<scenario::Join>(&ev.action)) out.push_back(remove_member(s, j->member.id));
  return out;
}

Candidates fewer_resources(const Scenario& s) {
  Candidates out;
  if (s.initial_assignment) {
    Scenario c = s;
    c.initial_assignment.reset();
    out.push_back(std::move(c));
  }
  if (s.topics.size() > 1)
    for (const auto& t : s.topics) out.push_back(remove_topic(s, t.name));
  for (std::size_t i = 0; i < s.topics.size(); ++i) {
    if (s.topics[i].partitions <= 1 || s.initial_assignment) continue;
    Scenario c = s;
    const int old = c.topics[i].partitions, now = std::max(1, old / 2);
    c.topics[i].partitions = now;
    for (auto& ev : c.events)
      if (auto* ap = std::get_if<scenario::AddPartitions>(&ev.action); ap && ap->topic == c.topics[i].name)
        ap->count -= old - now;
    out.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < s.connectors.size(); ++i) {
    if (s.connectors[i].tasks == 0 || s.initial_assignment) continue;
    Scenario c = s;
    c.connectors[i].tasks /= 2;
    out.push_back(std::move(c));
  }
  return out;
}

// Halves `d`, in whole milliseconds, not below `least`.
bool halve(Duration& d, Duration least) {
  const Duration h = std::chrono::floor<std::chrono::milliseconds>(d / 2);
  if (h < least || h == d) return false;
  d = h;
  return true;
}

Candidates shorter_times(const Scenario& s) {
  Candidates out;
  for (std::size_t i = 0; i < s.events.size(); ++i) {
    std::vector<std::function<bool(Event&)>> edits{
        [](Event& e) {
          return std::visit(
              [](auto& a) {
                using A = std::decay_t<decltype(a)>;
                namespace sc = scenario;
                if constexpr (std::is_same_v<A, sc::Bounce> || std::is_same_v<A, sc::Restart> ||
                              std::is_same_v<A, sc::Upgrade> || std::is_same_v<A, sc::RollingBounce> ||
                              std::is_same_v<A, sc::RollingRestart> || std::is_same_v<A, sc::RollingUpgrade>)
                  return halve(a.down, 1ms);
                else if constexpr (std::is_same_v<A, sc::CoordinatorFailover>)
                  return halve(a.down, 0ms);
                else if constexpr (std::is_same_v<A, sc::Pause> || std::is_same_v<A, sc::Isolate> ||
                                   std::is_same_v<A, sc::Slow>)
                  return halve(a.length, 1ms);
                else
                  return false;
              },
              e.action);
        },
        [](Event& e) {
          return std::visit(
              [](auto& a) {
                using A = std::decay_t<decltype(a)>;
                namespace sc = scenario;
                if constexpr (std::is_same_v<A, sc::Slow>)
                  return halve(a.batch, 1ms);
                else if constexpr (std::is_same_v<A, sc::RollingBounce> || std::is_same_v<A, sc::RollingRestart> ||
                                   std::is_same_v<A, sc::RollingUpgrade>)
                  return halve(a.interval, 1ms);
                else
                  return false;
              },
              e.action);
        },
        [](Event& e) { return halve(e.at, 1ms); },
    };
    for (const auto& edit : edits) {
      Scenario c = s;
      if (!edit(c.events[i])) continue;
      std::stable_sort(c.events.begin(), c.events.end(), [](const Event& a, const Event& b) { return a.at < b.at; });
      out.push_back(std::move(c));
    }
  }
  return out;
}

Candidates plainer_settings(const Scenario& s) {
  Candidates out;
  for (const auto& [key, entry] : s.config) {
    Scenario c = s;
    c.config.erase(key);
    out.push_back(std::move(c));
  }
  if (s.drop > 0) {
    Scenario c = s;
    c.drop = 0;
    c.drop_until.reset();
    out.push_back(std::move(c));
  }
  if (s.latency.kind != LatencyModel::Kind::Fixed || s.latency.a != 1ms) {
    Scenario c = s;
    c.latency = LatencyModel::fixed(1ms);
    out.push_back(std::move(c));
  }
  if (s.bandwidth_bytes_per_s != 0) {
    Scenario c = s;
    c.bandwidth_bytes_per_s = 0;
    out.push_back(std::move(c));
  }
  if (s.costs.revoke != Duration{0} || s.costs.assign != Duration{0}) {
    for (int which = 0; which < 2; ++which) {
      Scenario c = s;
      (which == 0 ? c.costs.revoke : c.costs.assign) = Duration{0};
      out.push_back(std::move(c));
    }
  }
  for (std::size_t i = 0; i < s.connectors.size(); ++i) {
    if (!s.connectors[i].revoke_cost && !s.connectors[i].assign_cost) continue;
    Scenario c = s;
    c.connectors[i].revoke_cost.reset();
    c.connectors[i].assign_cost.reset();
    out.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < s.members.size(); ++i) {
    if (s.members[i].instance_id) {
      Scenario c = s;
      c.members[i].instance_id.reset();
      out.push_back(std::move(c));
    }
    if (s.members[i].start != Duration{0}) {
      Scenario c = s;
      c.members[i].start = Duration{0};
      out.push_back(std::move(c));
    }
  }
  return out;
}

// The horizon the failure needs: up to a safety finding, or the liveness
// bound after the (shrunk) faults.
Candidates shorter_run(const Scenario& s, const std::string& protocol, const Verdict& failure) {
  Candidates out;
  Duration want = s.duration;
  if (failure.kind == "liveness") {
    Scenario q = s;
    q.drop = 0;
    if (auto quiet = metrics::quiet_start(q))
      want = quiet->time_since_epoch() + metrics::settle_bound(s, protocol) + 60s;
  } else if (failure.at_us >= 0) {
    want = Duration{failure.at_us} + 10s;
  }
  want = std::chrono::ceil<std::chrono::seconds>(want);
  if (want < s.duration) {
    Scenario c = s;
    c.duration = want;
    if (c.drop_until && *c.drop_until > want) c.drop_until = want;
    std::erase_if(c.events, [&](const Event& e) { return e.at > want; });
    out.push_back(std::move(c));
  }
  return out;
}

// What the loader makes of a candidate; nullopt if it refuses it.
std::optional<Scenario> reloaded(const Scenario& c) {
  try {
    return scenario::load_text(scenario::to_yaml(c), c.file.empty() ? "shrink.yaml" : c.file);
  } catch (const scenario::InputError&) {
    return std::nullopt;
  }
}

}  // namespace

Shrunk shrink(const Scenario& failing, const std::string& protocol, const Verdict& failure, const Isolation& isolation,
              int budget) {
  Shrunk best{failing, failure, 0};
  const std::vector<std::function<Candidates(const Scenario&)>> passes{
      [&](const Scenario& s) { return shorter_run(s, protocol, best.verdict); },
      fewer_events,
      fewer_members,
      fewer_resources,
      plainer_settings,
      shorter_times,
  };
  bool progress = true;
  while (progress && best.runs < budget) {
    progress = false;
    for (const auto& pass : passes) {
      std::vector<Scenario> batch;
      for (const auto& c : pass(best.scenario))
        if (auto r = reloaded(c)) batch.push_back(std::move(*r));
      // Run the candidates a few at a time; the first in order that still
      // fails the same way wins, so the result does not depend on --jobs.
      const std::size_t step = std::max<std::size_t>(1, isolation.jobs);
      for (std::size_t from = 0; from < batch.size() && best.runs < budget && !progress; from += step) {
        const std::size_t n = std::min(step, batch.size() - from);
        const auto results = run_isolated(n, isolation, [&](std::size_t i) {
          return judge(batch[from + i], protocol).to_json();
        });
        best.runs += static_cast<int>(n);
        for (std::size_t i = 0; i < n; ++i) {
          Verdict v;
          if (results[i].ok) {
            v = Verdict::from_json(results[i].output);
          } else {
            v.kind = results[i].timed_out ? "hang" : "crash";
            v.message = results[i].failure();
          }
          if (!v.same_failure(failure)) continue;
          best.scenario = batch[from + i];
          best.verdict = v;
          progress = true;
          break;
        }
      }
      if (progress) break;
    }
  }
  return best;
}

}  // namespace rsim::swarm
