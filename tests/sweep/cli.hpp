// The rebalance-sim binary (and the launchers) as a user runs them, from the
// source directory, with stdout and stderr kept apart.
#pragma once

#include "tests/paths.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace rsim::sweep_test {

using ::kSource;
using ::kBinary;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh directory for one test's files, removed by its destructor.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int n = 0;
    path = std::filesystem::temp_directory_path() / fmt::format("rsim-sweep-{}-{}", ::getpid(), n++);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// Runs `command` (a shell command line) in the source directory.
inline Result shell(const std::string& command) {
  TempDir dir;
  const std::string cmd = fmt::format("cd '{}' && {{ {}; }} >'{}' 2>'{}'", kSource, command, dir / "out", dir / "err");
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  return r;
}

inline Result sim(const std::string& args) { return shell(fmt::format("'{}' {}", kBinary, args)); }

}  // namespace rsim::sweep_test
