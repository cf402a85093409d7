#include "sim/network.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace rsim {

Duration LatencyModel::sample(Rng& rng) const {
  switch (kind) {
    case Kind::Fixed:
      return a;
    case Kind::Uniform:
      return Duration{rng.between(a.count(), b.count())};
    case Kind::Exponential:
      return Duration{static_cast<std::int64_t>(std::llround(rng.exponential(static_cast<double>(a.count()))))};
  }
  return a;
}

double LatencyModel::mean_us() const {
  switch (kind) {
    case Kind::Uniform:
      return (static_cast<double>(a.count()) + static_cast<double>(b.count())) / 2.0;
    case Kind::Fixed:
    case Kind::Exponential:
      break;
  }
  return static_cast<double>(a.count());
}

Network::Network(Kernel& kernel, Trace& trace, LatencyModel latency, double drop_probability, Rng rng)
    : kernel_(kernel), trace_(trace), latency_(latency), drop_(drop_probability), rng_(rng) {
  assert(drop_ >= 0.0 && drop_ <= 1.0);
}

NodeId Network::add_node(std::string name) {
  Node node;
  node.name = std::move(name);
  nodes_.push_back(std::move(node));
  lives_.emplace_back();
  return static_cast<NodeId>(nodes_.size() - 1);
}

void Network::crash(NodeId n) {
  lives_[n].alive = false;
  ++lives_[n].incarnation;
}

void Network::restart(NodeId n) {
  assert(!lives_[n].alive);
  lives_[n].alive = true;
}

void Network::cut(NodeId a, NodeId b) { cuts_.insert(link(a, b)); }
void Network::heal(NodeId a, NodeId b) { cuts_.erase(link(a, b)); }
bool Network::is_cut(NodeId a, NodeId b) const { return !cuts_.empty() && cuts_.count(link(a, b)) != 0; }

// A link's last arrival lives with its higher-numbered end: the
// coordinators are added before the members, so each member keeps its few
// links in cache-near order and no node holds one per member of a large
// group (a hash table of every link was a cache miss per message; issue 16).
Time& Network::last_arrival(NodeId from, NodeId to) {
  const std::uint64_t link = static_cast<std::uint64_t>(from) << 32 | to;
  auto& arrivals = nodes_[std::max(from, to)].arrivals;
  auto it = std::lower_bound(arrivals.begin(), arrivals.end(), link,
                             [](const LinkArrival& a, std::uint64_t l) { return a.link < l; });
  if (it == arrivals.end() || it->link != link) it = arrivals.insert(it, LinkArrival{link, Time{}});
  return it->last;
}

void Network::lost(NodeId from, NodeId to, std::string_view what, const char* reason) {
  trace_.emit(kernel_.now(), "network", "message-lost",
              {{"from", nodes_[from].name}, {"to", nodes_[to].name}, {"message", std::string(what)},
               {"reason", std::string(reason)}});
}

Duration Network::transfer_time(std::size_t bytes) const {
  if (bandwidth_ == 0 || bytes == 0) return Duration{0};
  // Whole microseconds, rounded up: a non-empty message takes some time.
  const auto us = (static_cast<unsigned __int128>(bytes) * 1'000'000 + bandwidth_ - 1) / bandwidth_;
  return Duration{static_cast<Duration::rep>(us)};
}

void Network::send(NodeId from, NodeId to, std::string_view what, Callback deliver, std::size_t bytes) {
  assert(from < nodes_.size() && to < nodes_.size());
  if (!lives_[from].alive) return;  // a dead process sends nothing
  ++stats_.sent;
  if (is_cut(from, to)) {
    ++stats_.cut;
    lost(from, to, what, "cut");
    return;
  }
  // Draw the drop before the latency so a drop probability of 0 leaves the
  // latency stream unchanged.
  if (drop_ > 0.0 && kernel_.now() < drop_until_ && rng_.chance(drop_)) {
    ++stats_.dropped;
    lost(from, to, what, "drop");
    return;
  }
  Time arrival = kernel_.now() + latency_.sample(rng_) + transfer_time(bytes);
  Time& last = last_arrival(from, to);
  if (arrival < last) arrival = last;  // FIFO per link
  last = arrival;
  const std::uint32_t slot = hold(from, to, what, std::move(deliver));
  kernel_.schedule_at(arrival, [this, slot] { arrive(slot); });
}

std::uint32_t Network::hold(NodeId from, NodeId to, std::string_view what, Callback deliver) {
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(in_flight_.size());
    in_flight_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  InFlight& m = in_flight_[slot];
  m.from = from;
  m.to = to;
  m.incarnation = lives_[to].incarnation;
  m.what.assign(what);
  m.deliver = std::move(deliver);
  return slot;
}

// The slot is freed before anything runs: the delivery, or the trace's
// observers told of a loss, may send a message and take it.
void Network::arrive(std::uint32_t slot) {
  InFlight& m = in_flight_[slot];
  const NodeId from = m.from;
  const NodeId to = m.to;
  const bool dead = !lives_[to].alive || lives_[to].incarnation != m.incarnation;
  Callback deliver = std::move(m.deliver);
  if (dead || is_cut(from, to)) {
    const std::string what = std::move(m.what);
    free_slots_.push_back(slot);
    if (dead) ++stats_.dead;
    else ++stats_.cut;
    lost(from, to, what, dead ? "dead" : "cut");
    return;
  }
  free_slots_.push_back(slot);
  ++stats_.delivered;
  deliver();
}

}  // namespace rsim
