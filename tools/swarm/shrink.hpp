// Shrinks a failing scenario to a small one that fails the same way: fewer
// events, members and topics, shorter downs and pauses, fewer settings, a
// plainer network (delta debugging, greedy: the first smaller candidate that
// still fails is taken and the search starts over). Every candidate is
// written out and loaded again before it is run, so what is kept is always a
// file the loader accepts.
#pragma once

#include "scenarios/scenario.hpp"
#include "tools/swarm/isolation.hpp"
#include "tools/swarm/verdict.hpp"

#include <string>

namespace rsim::swarm {

struct Shrunk {
  scenario::Scenario scenario;
  Verdict verdict;  // what the shrunk scenario gives: the same kind of failure
  int runs = 0;     // candidates run
};

// `failure` is what `failing` gives under `protocol`; candidates run in child
// processes (a crash shrinks like any other failure), `budget` of them at most.
Shrunk shrink(const scenario::Scenario& failing, const std::string& protocol, const Verdict& failure,
              const Isolation& isolation, int budget);

}  // namespace rsim::swarm
