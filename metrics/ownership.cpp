#include "metrics/ownership.hpp"

#include <algorithm>

namespace rsim::metrics {

namespace {
const std::set<std::string> kNobody;
}

void Ownership::apply(const TraceEvent& ev) {
  if (ev.kind == "assigned") {
    const auto* resources = ev.list("resources");
    if (resources == nullptr) return;
    for (const auto& r : *resources) given(ev.at, r, ev.actor, ev.integer("generation"));
    reaffirm(ev.at, ev.actor);
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
    std::set<std::string>& unknown = unknown_[*member];
    unknown = held_by(*member);
    for (const auto& r : *resources) unknown.erase(r);
  } else if (ev.kind == "revoked" || ev.kind == "lost") {
    if (const auto* resources = ev.list("resources")) release(ev.at, ev.actor, *resources);
  } else if (ev.kind == "crash" || ev.kind == "stopped") {
    release_all(ev.at, ev.actor);
  } else {
    standing_.apply(ev);
  }
}

std::string Ownership::zombie_cause(const std::string& holder, const std::string& resource,
                                    std::optional<std::int64_t> generation) const {
  if (standing_.removed(holder)) return "removed";
  if (auto u = unknown_.find(holder); u != unknown_.end() && u->second.count(resource) != 0) return "conversion";
  auto joined = rejoined_.find(holder);
  if (generation && joined != rejoined_.end() && joined->second < *generation) return "not rejoined";
  return {};
}

void Ownership::given(Time at, const std::string& r, const std::string& newcomer, std::optional<std::int64_t> generation) {
  auto& holders = owners_[r];
  for (const auto& h : holders) {
    if (h == newcomer) continue;
    // A removed member acting on an assignment it received before it was
    // removed (its callbacks waited for a batch) is the zombie here.
    if (standing_.removed(newcomer))
      add_zombie(Zombie{r, newcomer, "removed", h, at, std::nullopt});
    else if (std::string cause = zombie_cause(h, r, generation); !cause.empty())
      add_zombie(Zombie{r, h, std::move(cause), newcomer, at, std::nullopt});
    else if (double_)
      double_(at, r, h, newcomer);
  }
  auto last = last_owner_.find(r);
  if (last != last_owner_.end() && last->second != newcomer && move_) move_(at, r, last->second, newcomer);
  holders.insert(newcomer);
  held_[newcomer].insert(r);
  last_owner_[r] = newcomer;
}

// A removed member that rejoined and was given an assignment holds what it
// holds by right again (a cooperative member keeps what it still owns): its
// zombie overlaps end, and whoever else still holds those resources is now
// the one in the way.
void Ownership::add_zombie(Zombie z) {
  open_zombies_[z.holder][z.resource].push_back(zombies_.size());
  zombies_.push_back(std::move(z));
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
    zombies_[i].to = at;
    const std::string r = zombies_[i].resource;
    // Whoever else holds it was given it while the zombie held it: two
    // claims meet in this rebalance, and the assignor (cooperative-sticky
    // reading ownedPartitions) keeps it with the member whose claim it
    // takes, while the other revokes it. Still Kafka's overlap.
    for (const auto& h : owners_[r]) {
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
  for (const std::size_t i : r->second) zombies_[i].to = at;
  open->second.erase(r);
  if (open->second.empty()) open_zombies_.erase(open);
}

void Ownership::release(Time at, const std::string& member, const std::vector<std::string>& resources) {
  auto held = held_.find(member);
  if (held == held_.end()) return;
  for (const auto& r : resources) {
    if (auto u = unknown_.find(member); u != unknown_.end()) u->second.erase(r);
    if (held->second.erase(r) == 0) continue;
    owners_[r].erase(member);
    end_zombie(at, member, r);
  }
}

void Ownership::release_all(Time at, const std::string& member) {
  unknown_.erase(member);
  auto held = held_.find(member);
  if (held == held_.end()) return;
  for (const auto& r : held->second) {
    owners_[r].erase(member);
    end_zombie(at, member, r);
  }
  held->second.clear();
}

const std::set<std::string>& Ownership::owners(const std::string& resource) const {
  auto it = owners_.find(resource);
  return it == owners_.end() ? kNobody : it->second;
}

const std::set<std::string>& Ownership::held_by(const std::string& member) const {
  auto it = held_.find(member);
  return it == held_.end() ? kNobody : it->second;
}

std::map<std::string, std::set<std::string>> Ownership::by_member() const {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [member, resources] : held_)
    if (!resources.empty()) out[member] = resources;
  return out;
}

}  // namespace rsim::metrics
