// Kafka Streams' ConstrainedPrioritySet (Kafka 3.8.0): clients queued by a
// weight (their load), then process id; a poll returns the lightest client
// that satisfies a constraint for the task and leaves the others queued.
#pragma once

#include "protocols/streams/ha_client_state.hpp"
#include "protocols/streams/java_priority_queue.hpp"

#include <functional>
#include <optional>
#include <set>
#include <vector>

namespace rsim::protocols::streams::ha {

class ConstrainedPrioritySet {
 public:
  using Constraint = std::function<bool(const ProcessId&, const TaskId&)>;
  using Weight = std::function<double(const ProcessId&)>;
  using Filter = std::function<bool(const ProcessId&)>;

  ConstrainedPrioritySet(Constraint constraint, Weight weight)
      : constraint_(std::move(constraint)), queue_(ByWeight{std::move(weight)}) {}

  // The lightest queued client satisfying both constraints, taken out of the
  // queue; the clients it passed over go back.
  std::optional<ProcessId> poll(const TaskId& task, const Filter& extra = [](const ProcessId&) { return true; }) {
    // Kafka remembers the passed-over clients in a HashSet and re-offers them
    // in its iteration order. For the test UUIDs (new UUID(0, n), hashCode n,
    // few clients) that order is ascending, and so is a std::set's.
    std::set<ProcessId> passed_over;
    while (auto candidate = queue_.poll()) {
      queued_.erase(*candidate);
      if (constraint_(*candidate, task) && extra(*candidate)) {
        for (const auto& c : passed_over) offer(c);
        return candidate;
      }
      passed_over.insert(*candidate);
    }
    for (const auto& c : passed_over) offer(c);
    return std::nullopt;
  }

  // Queues the client, or re-queues it at its current weight.
  void offer(const ProcessId& client) {
    if (!queued_.insert(client).second) queue_.remove(client);
    queue_.offer(client);
  }

  void offer_all(const std::vector<ProcessId>& clients) {
    for (const auto& c : clients) offer(c);
  }

 private:
  struct ByWeight {
    Weight weight;
    int operator()(const ProcessId& a, const ProcessId& b) const {
      const double wa = weight(a), wb = weight(b);
      if (wa != wb) return wa < wb ? -1 : 1;
      return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
    }
  };

  Constraint constraint_;
  JavaPriorityQueue<ProcessId, ByWeight> queue_;
  std::set<ProcessId> queued_;
};

}  // namespace rsim::protocols::streams::ha
