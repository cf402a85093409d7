// Kafka Streams' ConstrainedPrioritySet (Kafka 3.8.0): clients queued by a
// weight (their load), then process id; a poll returns the lightest client
// that satisfies a constraint for the task and leaves the others queued.
//
// The heap holds clients by their rank in the ClientStates map (process id
// order), and reads a client's weight from its state at every comparison, as
// Kafka's comparator does: a lookup by process id at every comparison was
// most of a 150-client group's run (issue 16). The constraint is asked by
// rank and state too: a poll may pass over most of a 1,000-client group.
//
// The weights are kept beside the ranks: a sift reads two of them, where
// two calls of the weight function on two states scattered in a map were
// most of a 1,000-client rebalance whose tasks move (issue 16). Kept
// current as Kafka's comparator reads them: the assignors change a client
// only between heap operations, and always offer each client they changed
// before the next one, so offer() and offer_all() weigh every client they
// are given before any sift (a changed client still queued is then compared
// at its new weight, as in Java). Compiled with RSIM_CHECK_WEIGHTS, every
// comparison checks its two weights against the states (how this was
// checked: Kafka's vectors, the pinned corpus, scenario runs, 800 swarm runs).
#pragma once

#include "protocols/streams/ha_client_state.hpp"
#include "protocols/streams/java_priority_queue.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>
#include <stdexcept>
#include <vector>

namespace rsim::protocols::streams::ha {

class ConstrainedPrioritySet {
 public:
  using Rank = std::size_t;  // the client's position in ClientStates
  using Constraint = std::function<bool(Rank, const ClientState&, const TaskId&)>;
  using Weight = std::function<double(const ClientState&)>;
  using Filter = std::function<bool(const ProcessId&)>;

  // `clients` must outlive the set and keep its keys while it is in use
  // (the assignors only change what clients hold, never which there are).
  ConstrainedPrioritySet(const ClientStates& clients, Constraint constraint, Weight weight)
      : constraint_(std::move(constraint)), weight_(std::move(weight)), queue_(ByWeight{this}) {
    nodes_.reserve(clients.size());
    for (const auto& node : clients) nodes_.push_back(&node);
    queued_.assign(nodes_.size(), false);
    weights_.assign(nodes_.size(), 0.0);
  }
  ConstrainedPrioritySet(const ConstrainedPrioritySet&) = delete;  // the comparator points here
  ConstrainedPrioritySet& operator=(const ConstrainedPrioritySet&) = delete;

  // The lightest queued client satisfying both constraints, taken out of the
  // queue; the clients it passed over go back.
  std::optional<ProcessId> poll(const TaskId& task, const Filter& extra = [](const ProcessId&) { return true; }) {
    // Kafka remembers the passed-over clients in a HashSet and re-offers them
    // in its iteration order. For the test UUIDs (new UUID(0, n), hashCode n,
    // few clients) that order is ascending, and so is rank order.
    std::vector<Rank> passed_over;
    while (auto candidate = queue_.poll()) {
      queued_[*candidate] = false;
      const ProcessId& id = nodes_[*candidate]->first;
      if (constraint_(*candidate, nodes_[*candidate]->second, task) && extra(id)) {
        reoffer(passed_over);
        return id;
      }
      passed_over.push_back(*candidate);
    }
    reoffer(passed_over);
    return std::nullopt;
  }

  // Queues the client, or re-queues it at its current weight.
  void offer(const ProcessId& client) {
    const Rank r = rank_of(client);
    weigh(r);
    offer(r);
  }

  // Every client weighed before the first is offered: the sifts of one
  // compare the others at their current weights.
  void offer_all(const std::vector<ProcessId>& clients) {
    std::vector<Rank> ranks;
    for (const auto& c : clients) ranks.push_back(rank_of(c));
    for (const Rank r : ranks) weigh(r);
    for (const Rank r : ranks) offer(r);
  }

 private:
  using Node = ClientStates::value_type;

  struct ByWeight {
    const ConstrainedPrioritySet* set;
    int operator()(Rank a, Rank b) const {
      const double wa = set->weights_[a], wb = set->weights_[b];
#ifdef RSIM_CHECK_WEIGHTS
      if (wa != set->weight_(set->nodes_[a]->second) || wb != set->weight_(set->nodes_[b]->second)) std::abort();
#endif
      if (wa != wb) return wa < wb ? -1 : 1;
      return a < b ? -1 : (a == b ? 0 : 1);  // rank order is process id order
    }
  };

  Rank rank_of(const ProcessId& client) const {
    const auto it = std::lower_bound(nodes_.begin(), nodes_.end(), client,
                                     [](const Node* n, const ProcessId& id) { return n->first < id; });
    if (it == nodes_.end() || (*it)->first != client) throw std::logic_error("not a client of this set: " + client);
    return static_cast<Rank>(it - nodes_.begin());
  }

  void weigh(Rank r) { weights_[r] = weight_(nodes_[r]->second); }

  // A client just polled, passed over, is unchanged: no weighing.
  void offer(Rank r) {
    if (queued_[r]) queue_.remove(r);
    queued_[r] = true;
    queue_.offer(r);
  }

  void reoffer(std::vector<Rank>& ranks) {
    std::sort(ranks.begin(), ranks.end());
    for (const Rank r : ranks) offer(r);
  }

  std::vector<const Node*> nodes_;
  std::vector<bool> queued_;
  std::vector<double> weights_;  // by rank, as of the client's last offer
  Constraint constraint_;
  Weight weight_;
  JavaPriorityQueue<Rank, ByWeight> queue_;
};

}  // namespace rsim::protocols::streams::ha
