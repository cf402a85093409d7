// The network between processes (members and the coordinator).
//
// A message is a callback delivered after a latency drawn from the latency
// model. It is lost when: the drop draw says so; the link between sender and
// receiver is cut when it is sent or when it arrives; or the receiver has died
// (or died and restarted: a new incarnation is a new process) before arrival.
// Messages on one link arrive in the order they were sent, as on the TCP
// connection Kafka clients use: an arrival is never earlier than the previous
// arrival on the same link.
#pragma once

#include "sim/kernel.hpp"
#include "sim/random.hpp"
#include "sim/trace.hpp"

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rsim {

using NodeId = std::uint32_t;

struct LatencyModel {
  enum class Kind { Fixed, Uniform, Exponential };
  Kind kind = Kind::Fixed;
  Duration a = Duration{1000};  // fixed value, uniform low, or exponential mean
  Duration b = Duration{0};     // uniform high

  static LatencyModel fixed(Duration d) { return {Kind::Fixed, d, Duration{0}}; }
  static LatencyModel uniform(Duration lo, Duration hi) { return {Kind::Uniform, lo, hi}; }
  static LatencyModel exponential(Duration mean) { return {Kind::Exponential, mean, Duration{0}}; }

  Duration sample(Rng& rng) const;
  double mean_us() const;
};

struct NetworkStats {
  std::uint64_t sent = 0;
  std::uint64_t delivered = 0;
  std::uint64_t dropped = 0;  // random loss
  std::uint64_t cut = 0;      // lost to a cut link
  std::uint64_t dead = 0;     // receiver dead or restarted
};

class Network {
 public:
  Network(Kernel& kernel, Trace& trace, LatencyModel latency, double drop_probability, Rng rng);

  NodeId add_node(std::string name);
  const std::string& name(NodeId n) const { return nodes_[n].name; }

  // A crash ends the node's incarnation: in-flight messages to it are lost.
  void crash(NodeId n);
  void restart(NodeId n);
  bool alive(NodeId n) const { return lives_[n].alive; }

  void cut(NodeId a, NodeId b);
  void heal(NodeId a, NodeId b);
  bool is_cut(NodeId a, NodeId b) const;

  // `what` names the message for the trace when it is lost. A message of
  // `bytes` takes bytes / bandwidth on top of the latency (see set_bandwidth).
  void send(NodeId from, NodeId to, std::string_view what, Callback deliver, std::size_t bytes = 0);

  // Bytes per second every link carries; 0 (the default): no transfer time.
  // Simplification: a message's transfer time is added to its latency; links
  // do not queue messages behind each other beyond keeping FIFO order.
  void set_bandwidth(std::uint64_t bytes_per_second) { bandwidth_ = bytes_per_second; }
  // Random loss stops at `t` (the swarm's quiet phase heals the network).
  void set_drop_until(Time t) { drop_until_ = t; }
  Duration transfer_time(std::size_t bytes) const;

  const NetworkStats& stats() const { return stats_; }

 private:
  // A directed link (from << 32 | to) and its last arrival, for FIFO order.
  struct LinkArrival {
    std::uint64_t link;
    Time last;
  };
  // Whether a node is up, and which of its processes: read by every send and
  // every arrival, eight bytes a node in an array of their own, which stays
  // in cache where the nodes' links do not (issue 16).
  struct Life {
    std::uint32_t incarnation = 0;
    bool alive = true;
  };
  // A member's links (to and from the coordinator and the bootstrap broker,
  // four) are kept inline at the node's start, on cache lines of its own,
  // instead of in a buffer of their own (a node with more spills to one):
  // one pointer less to follow per message in a large group (issue 16).
  struct alignas(64) Node {
    // The links this node is the higher-numbered end of, sorted by link.
    boost::container::small_vector<LinkArrival, 4> arrivals;
    std::string name;
  };
  // A message in flight waits in a slot of the network's own, and the
  // kernel's event names the slot: sending allocates nothing (a freed slot is
  // reused, its name's buffer with it) where a closure holding the message
  // and its delivery did not fit the event's inline buffer (issue 16).
  struct InFlight {
    NodeId from = 0;
    NodeId to = 0;
    std::uint32_t incarnation = 0;
    std::string what;
    Callback deliver;
  };
  static std::pair<NodeId, NodeId> link(NodeId a, NodeId b) { return a < b ? std::pair{a, b} : std::pair{b, a}; }
  std::uint32_t hold(NodeId from, NodeId to, std::string_view what, Callback deliver);
  void arrive(std::uint32_t slot);
  void lost(NodeId from, NodeId to, std::string_view what, const char* reason);
  Time& last_arrival(NodeId from, NodeId to);

  Kernel& kernel_;
  Trace& trace_;
  LatencyModel latency_;
  double drop_;
  Time drop_until_ = Time::max();
  std::uint64_t bandwidth_ = 0;
  Rng rng_;
  std::vector<Node> nodes_;
  std::vector<Life> lives_;  // by node
  std::set<std::pair<NodeId, NodeId>> cuts_;
  std::vector<InFlight> in_flight_;
  std::vector<std::uint32_t> free_slots_;
  NetworkStats stats_;
};

}  // namespace rsim
