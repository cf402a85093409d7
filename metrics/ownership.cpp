#include "metrics/ownership.hpp"

#include <algorithm>

namespace rsim::metrics {

namespace {
const std::vector<Name> kNobody;
}

void Ownership::apply(const TraceEvent& ev) {
  if (ev.kind == "assigned") {
    const auto* resources = ev.list("resources");
    if (resources == nullptr) return;
    bool unlisted = false;
    if (!resources->empty()) {  // most are a new epoch and nothing new: no name to look up
      const Name member(ev.actor);
      const auto generation = ev.integer("generation");
      unlisted = generation && ev.integer("unlisted");
      for (const Name r : *resources) given(ev.at, r, member, generation, unlisted);
    }
    // An assignment the coordinator may have moved the member past gives
    // nothing by right.
    if (!unlisted) reaffirm(ev.at, ev.actor);
  } else if (ev.kind == "joined" && ev.find("leader") != nullptr) {  // a classic JoinGroup answered
    if (auto g = ev.integer("generation")) rejoined_[ev.actor] = *g;
    standing_.apply(ev);
  } else if (ev.kind == "loaded" && ev.actor == "coordinator") {
    // A new coordinator went back to the last persisted generation: a join
    // to a later one was to a generation that no longer exists.
    if (auto g = ev.integer("generation"))
      for (auto& [member, joined] : rejoined_) joined = std::min(joined, *g);
    standing_.apply(ev);
  } else if (ev.kind == "conversion-assignment") {
    // What the converted group takes `member` to own; what it holds besides
    // is unknown to the coordinator until it lets go.
    const std::string* member = ev.text("member");
    const auto* resources = ev.list("resources");
    if (member == nullptr || resources == nullptr) return;
    const std::vector<Name> held = held_by(*member);
    std::set<std::string>& unknown = unknown_[*member];
    unknown = std::set<std::string>(held.begin(), held.end());
    for (const Name r : *resources) unknown.erase(r);
  } else if (ev.kind == "revoked" || ev.kind == "lost") {
    if (const auto* resources = ev.list("resources")) release(ev.at, Name(ev.actor), *resources);
  } else if (ev.kind == "crash" || ev.kind == "stopped") {
    release_all(ev.at, Name(ev.actor));
  } else {
    standing_.apply(ev);
  }
}

std::string Ownership::zombie_cause(const std::string& holder, const std::string& resource,
                                    std::optional<std::int64_t> generation) const {
  if (standing_.removed(holder)) return "removed";
  if (auto u = unknown_.find(holder); u != unknown_.end() && u->second.count(resource) != 0) return "conversion";
  if (auto u = unlisted_.find(holder); u != unlisted_.end() && generation) {
    const auto e = u->second.find(Name(resource));
    if (e != u->second.end() && e->second < *generation) return "stale epoch";
  }
  auto joined = rejoined_.find(holder);
  if (generation && joined != rejoined_.end() && joined->second < *generation) return "not rejoined";
  return {};
}

std::vector<Name>& Ownership::holders(Name resource) {
  if (resource.id() >= owners_.size()) owners_.resize(resource.id() + 1);
  return owners_[resource.id()];
}

bool Ownership::holds(Name member, Name resource) const {
  const auto& hs = owners(resource);
  return std::find(hs.begin(), hs.end(), member) != hs.end();
}

void Ownership::given(Time at, Name r, Name newcomer, std::optional<std::int64_t> generation, bool unlisted) {
  auto& hs = holders(r);
  if (r.id() >= last_given_.size()) last_given_.resize(r.id() + 1);
  LastGiven& last = last_given_[r.id()];
  for (const Name h : hs) {
    if (h == newcomer) continue;
    // A removed member acting on an assignment it received before it was
    // removed (its callbacks waited for a batch) is the zombie here, as is
    // one taking what its coordinator may have released since.
    if (standing_.removed(newcomer))
      add_zombie(Zombie{r, newcomer, "removed", h, at, std::nullopt});
    else if (unlisted && h == last.member && last.generation && *last.generation > *generation)
      add_zombie(Zombie{r, newcomer, "stale epoch", h, at, std::nullopt});
    else if (std::string cause = zombie_cause(h, r, generation); !cause.empty())
      add_zombie(Zombie{r, h, std::move(cause), newcomer, at, std::nullopt});
    else if (double_)
      double_(at, r, h, newcomer);
  }
  if (last.member != Name() && last.member != newcomer && move_) move_(at, r, last.member, newcomer);
  last = LastGiven{newcomer, generation};
  if (unlisted) unlisted_[newcomer][r] = *generation;
  const auto at_or_after = std::lower_bound(hs.begin(), hs.end(), newcomer);
  if (at_or_after != hs.end() && *at_or_after == newcomer) return;
  hs.insert(at_or_after, newcomer);
  if (owners_change_) owners_change_(r);
  Held& held = held_[newcomer];
  held.given.add(r);
  ++held.count;
}
// A removed member that rejoined and was given an assignment holds what it
// holds by right again (a cooperative member keeps what it still owns): its
// zombie overlaps end, and whoever else still holds those resources is now
// the one in the way.
void Ownership::add_zombie(Zombie z) {
  open_zombies_[z.holder][z.resource].push_back(zombies_.size());
  zombies_.push_back(std::move(z));
}

void Ownership::close_zombie(std::size_t index, Time at) {
  zombies_[index].to = at;
  if (zombie_end_) zombie_end_(index);
}

void Ownership::reaffirm(Time at, const std::string& member) {
  if (standing_.removed(member)) return;
  const auto open = open_zombies_.find(member);
  if (open == open_zombies_.end()) return;
  std::vector<std::size_t> mine;  // its open zombies, in the order they began
  for (const auto& [resource, indexes] : open->second) mine.insert(mine.end(), indexes.begin(), indexes.end());
  open_zombies_.erase(open);
  std::sort(mine.begin(), mine.end());
  for (const std::size_t i : mine) {
    close_zombie(i, at);
    const Name r(zombies_[i].resource);
    // Whoever else holds it was given it while the zombie held it: two
    // claims meet in this rebalance, and the assignor (cooperative-sticky
    // reading ownedPartitions) keeps it with the member whose claim it
    // takes, while the other revokes it. Still Kafka's overlap.
    for (const Name h : owners(r)) {
      if (h == member) continue;
      std::string cause = zombie_cause(h, r, std::nullopt);
      add_zombie(Zombie{r, h, cause.empty() ? "stale claim" : std::move(cause), member, at, std::nullopt});
    }
  }
}

void Ownership::end_zombie(Time at, const std::string& member, const std::string& resource) {
  const auto open = open_zombies_.find(member);
  if (open == open_zombies_.end()) return;
  const auto r = open->second.find(resource);
  if (r == open->second.end()) return;
  for (const std::size_t i : r->second) close_zombie(i, at);
  open->second.erase(r);
  if (open->second.empty()) open_zombies_.erase(open);
}

bool Ownership::let_go(Name member, Name resource) {
  if (resource.id() >= owners_.size()) return false;
  auto& hs = owners_[resource.id()];
  const auto it = std::find(hs.begin(), hs.end(), member);
  if (it == hs.end()) return false;
  hs.erase(it);
  if (owners_change_) owners_change_(resource);
  return true;
}

void Ownership::release(Time at, Name member, const NameList& resources) {
  auto held = held_.find(member);
  if (held == held_.end()) return;
  const auto unknown = unknown_.find(member);
  const auto unlisted = unlisted_.find(member);
  for (const Name r : resources) {
    if (unknown != unknown_.end()) unknown->second.erase(r);
    if (unlisted != unlisted_.end()) unlisted->second.erase(r);
    if (!let_go(member, r)) continue;
    --held->second.count;
    end_zombie(at, member, r);
  }
  if (unlisted != unlisted_.end() && unlisted->second.empty()) unlisted_.erase(unlisted);
  held->second.given.compact([&](Name r) { return holds(member, r); });
}

void Ownership::release_all(Time at, Name member) {
  unknown_.erase(member);
  unlisted_.erase(member);
  auto held = held_.find(member);
  if (held == held_.end()) return;
  for (const Name r : held->second.given.entries())
    if (let_go(member, r)) end_zombie(at, member, r);
  held->second = Held{};
}

const std::vector<Name>& Ownership::owners(Name resource) const {
  return resource.id() < owners_.size() ? owners_[resource.id()] : kNobody;
}

std::vector<Name> Ownership::held_by(const std::string& member) const {
  std::vector<Name> out;
  const auto held = held_.find(member);
  if (held == held_.end()) return out;
  const Name m(member);
  for (const Name r : held->second.given.entries())
    if (holds(m, r)) out.push_back(r);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool Ownership::holds_any(const std::string& member) const {
  const auto held = held_.find(member);
  return held != held_.end() && held->second.count != 0;
}

std::map<std::string, std::set<std::string>> Ownership::by_member() const {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [member, held] : held_) {
    if (held.count == 0) continue;
    const std::vector<Name> names = held_by(member);
    out[member] = std::set<std::string>(names.begin(), names.end());
  }
  return out;
}

}  // namespace rsim::metrics
