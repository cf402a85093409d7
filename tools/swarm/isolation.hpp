// Runs work in forked worker processes, several at a time, so that a run that
// crashes (a signal, an abort, a sanitizer report) or hangs becomes a result
// of its own instead of the end of the whole campaign: the worker dies with
// that task only and is replaced. Results come back in task order whatever
// the number of jobs: the output does not depend on it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace rsim::swarm {

struct ChildResult {
  bool ok = false;          // the child finished and returned `output`
  int signal = 0;           // the signal that ended it, if one did
  int exit_code = 0;        // a non-zero exit without output
  bool timed_out = false;   // killed after the wall-clock limit
  std::string output;       // what the work returned
  std::string error_tail;   // the last lines the child wrote to stderr

  // "crashed (SIGSEGV)", "killed after 60 s", ...: what went wrong, if anything.
  std::string failure() const;
};

struct Isolation {
  unsigned jobs = 1;
  // A last resort against a hang the simulator's own guards miss; the
  // kernel's no-progress check and the loader's budget come first.
  std::chrono::seconds wall_limit{120};
};

// Runs work(i) for i in [0, n) in `jobs` forks of this process; `done` is
// called in the parent as results arrive (for progress), in any order.
std::vector<ChildResult> run_isolated(std::size_t n, const Isolation& isolation,
                                      const std::function<std::string(std::size_t)>& work,
                                      const std::function<void(std::size_t)>& done = {});

}  // namespace rsim::swarm
