#include "metrics/invariants.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace rsim::metrics {

namespace {
Time after(Time at, std::optional<std::int64_t> us) { return at + Duration{us.value_or(0)}; }
}  // namespace

void InvariantChecker::add(Finding f) { findings_.push_back(std::move(f)); }

void InvariantChecker::double_ownership(Time at, const std::string& resource, const std::string& holder,
                                        const std::string& newcomer) {
  add({"double-ownership", at, fmt::format("resource {} owned by two members", resource), {holder, newcomer}});
}

void InvariantChecker::apply(const TraceEvent& ev, const Ownership& ownership) {
  follow_zombies(ownership.zombies(), ev.at);
  if (ev.actor == "network") {
    track_lost_message(ev);
    return;
  }
  if (ev.actor == "coordinator") {
    check_generation(ev);
    if (ev.kind == "records-divergence")
      add({"records", ev.at, "the coordinator's state is not what its records log replays to (lost at a failover)", {"coordinator"}});
    if (ev.kind == "member-removed") {
      const std::string* member = ev.text("member");
      if (member) removed_.insert(*member);
      const std::string* reason = ev.text("reason");
      if (member && reason && *reason == "left the group" && rules_.static_members.count(*member) != 0)
        add({"static-leave", ev.at, fmt::format("static member {} sent LeaveGroup (KIP-345: static members never do)", *member),
             {*member}});
    }
    return;
  }
  if (ev.kind == "start") {
    if (const std::string* p = ev.text("rebalance-protocol")) member_protocol_[ev.actor] = *p;
    else member_protocol_.erase(ev.actor);
  }
  if (ev.kind == "join" && eager_member(ev.actor) && ownership.holds_any(ev.actor))
    add({"eager-join", ev.at,
         fmt::format("eager member {} sent JoinGroup still owning {}", ev.actor, fmt::join(ownership.held_by(ev.actor), ",")),
         {ev.actor}});
  const std::string* error = ev.text("error");
  const bool answer = ev.kind == "assigned" || ev.kind == "fenced" || ev.kind == "fatal" ||
                      (ev.kind == "heartbeat" && error != nullptr && *error != "NONE");
  const std::string* join_id = ev.kind == "join" ? ev.text("member-id") : nullptr;
  const bool new_membership = ev.kind == "start" || (join_id != nullptr && join_id->empty());
  // One lookup for the member's epoch and its answers.
  Tracked* tracked = answer || new_membership ? &this->tracked(ev) : nullptr;
  if (tracked != nullptr) check_member_epoch(ev, *tracked, new_membership);
  check_process_copies(ev);
  track_impairment(ev);
  if (answer) {
    History<Time>& answers = tracked->answers;
    answers.items.push_back(ev.at);
    const Time oldest = oldest_needed(ev.actor);
    trim(answers, [oldest](Time t) { return t < oldest; });
    if (error == nullptr || *error != "REBALANCE_IN_PROGRESS") {
      tracked->told.items.push_back(ev.at);
      trim(tracked->told, [oldest](Time t) { return t < oldest; });
    }
    unanswered_.erase(ev.actor);  // an answer after a zombie's end puts its bound after that end
  }
}

InvariantChecker::Tracked& InvariantChecker::tracked(const TraceEvent& ev) {
  if (ev.actor_slot == kNoActorSlot) return tracked_[ev.actor];
  if (ev.actor_slot >= tracked_by_slot_.size()) tracked_by_slot_.resize(std::size_t{ev.actor_slot} + 1, nullptr);
  Tracked*& t = tracked_by_slot_[ev.actor_slot];
  if (t == nullptr) t = &tracked_[ev.actor];
  return *t;
}

// Under its own rebalance protocol, or the run's. Looked up only for a
// JoinGroup, the one rule that reads it, not at every event.
bool InvariantChecker::eager_member(const std::string& member) const {
  const auto own = member_protocol_.find(member);
  return own == member_protocol_.end() ? rules_.eager : own->second == "eager";
}

// Streams (KIP-1071): a process never holds two copies of one task (an
// active and a standby, two standbys) among its members in good standing;
// the coordinator withholds a task while the asker's process still has it.
// Over the classic protocol nothing withholds a standby from one thread while
// another of its process closes the task (Kafka's state directory lock makes
// the standby wait); not checked there.
void InvariantChecker::check_process_copies(const TraceEvent& ev) {
  if (ev.actor == "scenario" && ev.kind == "run") {
    const std::string* p = ev.text("protocol");
    kip1071_ = p != nullptr && *p == "streams";
    return;
  }
  if (ev.actor == "scenario" && ev.kind == "process") {
    if (const std::string* m = ev.text("member"); m && ev.text("process")) process_of_[*m] = *ev.text("process");
    return;
  }
  if (!kip1071_) return;
  const auto process = process_of_.find(ev.actor);
  if (process == process_of_.end()) return;
  if (ev.kind == "joined") removed_.erase(ev.actor);
  if (ev.kind == "crash" || ev.kind == "stopped") drop_copies(ev.actor);
  NameList tasks;
  for (const char* role : {"resources", "standbys", "warmups"})
    if (const auto* l = ev.list(role)) tasks.insert(tasks.end(), l->begin(), l->end());
  if (ev.kind == "revoked" || ev.kind == "lost")
    for (const Name t : tasks) drop_copy(ev.actor, t);
  if (ev.kind != "assigned") return;
  for (const Name t : tasks) {
    // The task's holders, not every member: an assignment costs its tasks'
    // copies, not the group's size.
    std::set<std::string>& holders = holders_of(t);
    for (const auto& other : holders)
      if (removed_.count(other) == 0 && process_of_[other] == process->second)
        add({"process-copies", ev.at, fmt::format("process {} holds task {} twice ({} and {})", process->second, t, other, ev.actor),
             {other, ev.actor}});
    copies_[ev.actor].insert(t.id());
    holders.insert(ev.actor);
  }
}

std::set<std::string>& InvariantChecker::holders_of(Name task) { return holders_[task.id()]; }

void InvariantChecker::drop_copy(const std::string& member, Name task) {
  if (auto c = copies_.find(member); c != copies_.end()) c->second.erase(task.id());
  drop_holder(task.id(), member);
}

void InvariantChecker::drop_holder(std::uint32_t task, const std::string& member) {
  if (auto h = holders_.find(task); h != holders_.end() && h->second.erase(member) != 0 && h->second.empty()) holders_.erase(h);
}

void InvariantChecker::drop_copies(const std::string& member) {
  const auto c = copies_.find(member);
  if (c == copies_.end()) return;
  for (const std::uint32_t task : c->second) drop_holder(task, member);
  copies_.erase(c);
}

// Classic generations and KIP-848 epochs: a generation formed must be newer
// than the last one formed or loaded, and completed ones only grow. A new
// coordinator loads the last *persisted* generation: one formed but not yet
// synced is formed again (Kafka: nothing is written at completeClassicGroupJoin).
void InvariantChecker::check_generation(const TraceEvent& ev) {
  const auto g = static_cast<int>(ev.integer("generation").value_or(ev.integer("epoch").value_or(0)));
  if (ev.kind == "generation") {
    if (g <= last_formed_)
      add({"generation", ev.at, fmt::format("generation went from {} to {}", last_formed_, g), {"coordinator"}});
    last_formed_ = std::max(last_formed_, g);
  } else if (ev.kind == "loaded") {
    if (g < last_stable_)
      add({"generation", ev.at, fmt::format("a new coordinator loaded generation {} after generation {} completed", g, last_stable_),
           {"coordinator"}});
    if (g < last_formed_) ++reissued_;
    last_formed_ = g;
  } else if (ev.kind == "stable") {
    if (g < last_stable_)
      add({"generation", ev.at, fmt::format("completed generation went from {} to {}", last_stable_, g), {"coordinator"}});
    last_stable_ = std::max(last_stable_, g);
    note_completed(ev.at);
  } else if (ev.kind == "converted") {
    if (ev.integer("new-group").value_or(0) != 0) {  // an empty group replaced: epochs start again
      last_formed_ = last_stable_ = 0;
      for (auto& [member, t] : tracked_) t.epoch.reset();  // order does not matter
    } else {
      last_formed_ = std::max(last_formed_, g);
    }
  }
}

// Within one membership of one process, a member is only ever given newer
// generations. A join without a member id starts a new membership: in the
// same group its first epoch is the group's, newer than any before; but an
// empty group that was replaced meanwhile starts its epochs again, and a
// late assignment of the old group (a slow poll loop applying it after the
// replacement) must not count against the new one.
void InvariantChecker::check_member_epoch(const TraceEvent& ev, Tracked& t, bool new_membership) {
  if (new_membership) {
    t.epoch.reset();
    return;
  }
  if (ev.kind != "assigned") return;
  const auto g = ev.integer("generation");
  if (!g) return;
  if (t.epoch && *g < *t.epoch)
    add({"member-epoch", ev.at, fmt::format("member {} assigned at epoch {} after epoch {}", ev.actor, *g, *t.epoch), {ev.actor}});
  t.epoch = t.epoch ? std::max(*t.epoch, static_cast<int>(*g)) : static_cast<int>(*g);
}

// What keeps a member from noticing it was removed: a freeze, a cut, a slow
// poll loop (its callbacks wait for the batch), a revocation in progress.
void InvariantChecker::track_impairment(const TraceEvent& ev) {
  const std::string& m = ev.actor;
  if (ev.kind == "pause") open(m, "frozen", ev.at);
  else if (ev.kind == "resume") close(m, "frozen", ev.at);
  else if (ev.kind == "isolated") open(m, "cut", ev.at, after(ev.at, ev.integer("for_us")));
  else if (ev.kind == "slow") open(m, "slow", ev.at, after(after(ev.at, ev.integer("for_us")), ev.integer("batch_us")));
  else if (ev.kind == "revoking") open(m, "revoking", ev.at);
  else if (ev.kind == "revoked" || ev.kind == "lost") close(m, "revoking", ev.at);
  else if (ev.kind == "crash" || ev.kind == "stopped") {
    close(m, "revoking", ev.at);
    close(m, "frozen", ev.at);
  }
}

// A request to the coordinator (or FindCoordinator to a broker), or its
// answer, lost on the way: the member learns nothing from it until its wait
// for the answer ends and it sends again.
void InvariantChecker::track_lost_message(const TraceEvent& ev) {
  if (ev.kind != "message-lost") return;
  const std::string* from = ev.text("from");
  const std::string* to = ev.text("to");
  const std::string* message = ev.text("message");
  if (from == nullptr || to == nullptr || message == nullptr) return;
  auto broker = [](const std::string& node) { return node == "coordinator" || node == "bootstrap"; };
  if (broker(*from) == broker(*to)) return;
  const std::string& member = broker(*from) ? *to : *from;
  std::string request = *message;
  if (const auto r = request.rfind("Response"); r != std::string::npos && r + 8 == request.size()) request.erase(r);
  Duration wait = rules_.request_timeout;
  if (request == "JoinGroup") wait = rules_.join_timeout;
  else if (request == "Heartbeat") wait = rules_.heartbeat_interval;
  else if (request == "LeaveGroup") return;  // nothing waits for it
  open(member, "answer lost", ev.at, ev.at + wait);
}

// An impairment that ended before `oldest_needed` cannot move any bound
// still to be checked: a bound starts at its zombie's start and only grows.
void InvariantChecker::open(const std::string& member, const std::string& what, Time from, std::optional<Time> to) {
  History<Impairment>& h = impaired_[member][what];
  h.items.push_back(Impairment{from, to});
  const Time oldest = oldest_needed(member);
  trim(h, [oldest](const Impairment& i) { return i.to && *i.to < oldest; });
}

void InvariantChecker::close(const std::string& member, const std::string& what, Time at) {
  auto m = impaired_.find(member);
  if (m == impaired_.end()) return;
  auto k = m->second.find(what);
  if (k == m->second.end()) return;
  for (auto& i : k->second.items)
    if (!i.to) i.to = at;
}

template <class T, class Stale>
void InvariantChecker::trim(History<T>& h, Stale&& stale) {
  if (h.items.size() <= 2 * h.kept + 64) return;
  std::erase_if(h.items, stale);  // keeps the order: answers stay sorted
  h.kept = h.items.size();
}

// Future zombies start now or later; unchecked ones at their start.
Time InvariantChecker::oldest_needed(const std::string& member) const {
  const auto z = unchecked_.find(member);
  if (z == unchecked_.end()) return now_;
  return std::min(now_, z->second.begin()->second);  // zombies begin in time order
}

// Called before each event: notes the zombies Ownership began, and checks
// those that ended at an instant now over.
void InvariantChecker::follow_zombies(const std::vector<Zombie>& zombies, Time now) {
  now_ = now;
  for (; zombies_seen_ < zombies.size(); ++zombies_seen_)
    if (rules_.zombie_grace) unchecked_[zombies[zombies_seen_].holder].emplace(zombies_seen_, zombies[zombies_seen_].from);
  while (!ended_.empty() && *zombies[ended_.front()].to < now) {
    check_ended_zombie(zombies, ended_.front());
    ended_.pop_front();
  }
}

void InvariantChecker::check_ended_zombie(const std::vector<Zombie>& zombies, std::size_t index) {
  if (!rules_.zombie_grace) return;
  const Zombie& z = zombies[index];
  if (auto u = unchecked_.find(z.holder); u != unchecked_.end()) {
    u->second.erase(index);
    if (u->second.empty()) unchecked_.erase(u);
  }
  const auto b = bound(z);
  // Still impaired now: the bound will be after the end.
  if (!b || *z.to <= b->deadline) return;
  if (b->answered) zombie_findings_.emplace_back(index, zombie_finding(z, b->deadline));
  else unanswered_[z.holder].emplace_back(index, zombie_finding(z, b->deadline));
}

std::optional<InvariantChecker::Bound> InvariantChecker::bound(const Zombie& z) const {
  const auto chance = first_chance_to_learn(z);
  if (!chance) return std::nullopt;
  const Time notice = able_to_notice(z.holder, *chance);
  if (notice == Time::max()) return std::nullopt;
  Bound b{notice + *rules_.zombie_grace};
  if (const auto answer = next_answer(z.holder, z.from)) {
    b.deadline = std::max(b.deadline, *answer + rules_.revoke_allowance);
    b.answered = true;
  }
  return b;
}

Finding InvariantChecker::zombie_finding(const Zombie& z, Time deadline) const {
  return {"zombie", deadline,
          fmt::format("member {} ({}) still held {} {} after it could notice (since {}, {} given to {})", z.holder, z.cause,
                      z.resource, format_duration(*rules_.zombie_grace), format_time(z.from), z.resource, z.newcomer),
          {z.holder, z.newcomer}};
}

// The end of what impaired `member` without a break from `since`: the
// latest end of what had begun by then, and of what began before that, and
// so on.
Time InvariantChecker::able_to_notice(const std::string& member, Time since) const {
  Time t = since;
  auto m = impaired_.find(member);
  if (m == impaired_.end()) return t;
  for (Time before = Time::min(); before != t;) {
    before = t;
    for (const auto& [what, intervals] : m->second)
      for (const auto& i : intervals.items) {
        if (i.from > before) continue;
        if (!i.to) return Time::max();
        t = std::max(t, *i.to);
      }
  }
  return t;
}

// A static member the coordinator kept over a rebalance it did not rejoin
// is in good standing: no heartbeat error fences it, and a cooperative
// member keeps what it owns through every rebalance until an assignment
// leaves something out. It can learn of the overlap only from an assignment
// of a generation completed after the overlap began, or from an answer that
// tells it where it stands (fenced, removed, assigned). In a rebalance storm
// that completes no generation it cannot learn at all, in Kafka as here.
std::optional<Time> InvariantChecker::first_chance_to_learn(const Zombie& z) const {
  if (z.cause != "not rejoined") return z.from;
  std::optional<Time> first;
  const auto c = std::upper_bound(completed_.items.begin(), completed_.items.end(), z.from);
  if (c != completed_.items.end()) first = *c;
  if (auto it = tracked_.find(z.holder); it != tracked_.end()) {
    const auto& told = it->second.told.items;
    const auto t = std::lower_bound(told.begin(), told.end(), z.from);
    if (t != told.end() && (!first || *t < *first)) first = *t;
  }
  return first;
}

// Completions before every unchecked zombie's start are read by no bound.
void InvariantChecker::note_completed(Time at) {
  completed_.items.push_back(at);
  if (completed_.items.size() <= 2 * completed_.kept + 64) return;  // trim's own test, before the walk
  Time oldest = now_;
  for (const auto& [holder, zombies] : unchecked_) oldest = std::min(oldest, zombies.begin()->second);
  trim(completed_, [oldest](Time t) { return t < oldest; });
}

std::optional<Time> InvariantChecker::next_answer(const std::string& member, Time since) const {
  auto it = tracked_.find(member);
  if (it == tracked_.end()) return std::nullopt;
  const auto& answers = it->second.answers.items;
  auto a = std::lower_bound(answers.begin(), answers.end(), since);
  if (a == answers.end()) return std::nullopt;
  return *a;
}

// Zombie findings go in the order of the zombies, after the others, then
// everything by time (a stable sort): the order a check of the whole run at
// its end would give.
void InvariantChecker::finish(const std::vector<Zombie>& zombies, Time end) {
  follow_zombies(zombies, end);
  for (; !ended_.empty(); ended_.pop_front()) check_ended_zombie(zombies, ended_.front());
  if (rules_.zombie_grace) {
    for (const auto& [holder, indexes] : unchecked_)
      for (const auto& [index, from] : indexes) {
        const Zombie& z = zombies[index];
        if (z.to) continue;  // cannot happen: ended ones were checked above
        const auto b = bound(z);
        if (!b || end <= b->deadline) continue;  // still impaired, or its bound is after the end
        zombie_findings_.emplace_back(index, zombie_finding(z, b->deadline));
      }
    for (auto& [holder, list] : unanswered_) zombie_findings_.insert(zombie_findings_.end(), list.begin(), list.end());
    std::sort(zombie_findings_.begin(), zombie_findings_.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [index, f] : zombie_findings_) findings_.push_back(std::move(f));
  }
  std::stable_sort(findings_.begin(), findings_.end(), [](const Finding& a, const Finding& b) { return a.at < b.at; });
}

}  // namespace rsim::metrics
