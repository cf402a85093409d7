// A child process spoken to one line at a time: a request line on its stdin,
// an answer line from its stdout. What runs an external assignor (exec.hpp).
//
// Wall-clock time is read only to give up on a child that does not answer:
// the answer itself, never the time it took, reaches the simulation, so a
// run stays a pure function of (scenario, seed, plugin).
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <vector>

namespace rsim::protocols {

// The child could not be started, did not answer in time, or exited.
struct PluginProcessError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class PluginProcess {
 public:
  // Starts `argv` (argv[0] looked up on PATH), stdin and stdout piped,
  // stderr shared with this process (a plugin's diagnostics reach the user).
  explicit PluginProcess(const std::vector<std::string>& argv);
  ~PluginProcess();  // closes the child's stdin, then waits briefly, then kills it
  PluginProcess(const PluginProcess&) = delete;
  PluginProcess& operator=(const PluginProcess&) = delete;

  // Writes `line` and a newline, returns the next line the child writes
  // (without its newline). Throws PluginProcessError on timeout (the child
  // is killed), on the child exiting, or on a line over `kMaxLine`.
  std::string exchange(const std::string& line, std::chrono::milliseconds timeout);

  static constexpr std::size_t kMaxLine = std::size_t{1} << 30;

 private:
  std::string why_gone();  // reaps the child: "exited with status N" / "was killed by signal S"
  void stop();

  pid_t pid_ = -1;
  int to_child_ = -1;    // the child's stdin
  int from_child_ = -1;  // the child's stdout
  std::string pending_;  // read past the last answer's newline
};

}  // namespace rsim::protocols
