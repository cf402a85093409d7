#include "metrics/ownership.hpp"

namespace rsim::metrics {

namespace {
const std::set<std::string> kNobody;
}

void Ownership::apply(const TraceEvent& ev) {
  if (ev.kind == "assigned") {
    const auto* resources = ev.list("resources");
    if (resources == nullptr) return;
    for (const auto& r : *resources) {
      auto& holders = owners_[r];
      for (const auto& h : holders) {
        if (h == ev.actor) continue;
        if (standing_.removed(h)) {
          zombies_.push_back(Zombie{r, h, ev.actor, ev.at, std::nullopt});
        } else if (double_) {
          double_(ev.at, r, h, ev.actor);
        }
      }
      auto last = last_owner_.find(r);
      if (last != last_owner_.end() && last->second != ev.actor && move_) move_(ev.at, r, last->second, ev.actor);
      holders.insert(ev.actor);
      held_[ev.actor].insert(r);
      last_owner_[r] = ev.actor;
    }
  } else if (ev.kind == "revoked" || ev.kind == "lost") {
    if (const auto* resources = ev.list("resources")) release(ev.at, ev.actor, *resources);
  } else if (ev.kind == "crash" || ev.kind == "stopped") {
    release_all(ev.at, ev.actor);
  } else {
    standing_.apply(ev);
  }
}

void Ownership::end_zombie(Time at, const std::string& member, const std::string& resource) {
  for (auto& z : zombies_)
    if (!z.to && z.holder == member && z.resource == resource) z.to = at;
}

void Ownership::release(Time at, const std::string& member, const std::vector<std::string>& resources) {
  auto held = held_.find(member);
  if (held == held_.end()) return;
  for (const auto& r : resources) {
    if (held->second.erase(r) == 0) continue;
    owners_[r].erase(member);
    end_zombie(at, member, r);
  }
}

void Ownership::release_all(Time at, const std::string& member) {
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
