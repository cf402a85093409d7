#include "tools/swarm/isolation.hpp"

#include <fmt/format.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <stdexcept>

namespace rsim::swarm {

namespace {

constexpr std::size_t kErrorTail = 2000;

void write_all(int fd, const std::string& s) {
  std::size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

struct Child {
  std::size_t task = 0;
  pid_t pid = -1;
  int out = -1, err = -1;
  std::chrono::steady_clock::time_point deadline;
  ChildResult result;
};

[[noreturn]] void be_child(std::size_t task, int out, int err, const std::function<std::string(std::size_t)>& work) {
  ::dup2(err, STDERR_FILENO);
  std::string result;
  try {
    result = work(task);
  } catch (const std::exception& e) {
    std::cerr << "uncaught exception: " << e.what() << '\n';
    std::cerr.flush();
    ::_exit(3);
  }
  write_all(out, result);
  ::_exit(0);
}

Child spawn(std::size_t task, const Isolation& isolation, const std::function<std::string(std::size_t)>& work) {
  int out[2], err[2];
  if (::pipe(out) != 0 || ::pipe(err) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(out[0]);
    ::close(err[0]);
    be_child(task, out[1], err[1], work);
  }
  ::close(out[1]);
  ::close(err[1]);
  Child c;
  c.task = task;
  c.pid = pid;
  c.out = out[0];
  c.err = err[0];
  c.deadline = std::chrono::steady_clock::now() + isolation.wall_limit;
  return c;
}

// Reads what is there; false at end of file.
bool drain(int fd, std::string& into, std::size_t keep_tail = 0) {
  char buf[65536];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  into.append(buf, static_cast<std::size_t>(n));
  if (keep_tail > 0 && into.size() > 4 * keep_tail) into.erase(0, into.size() - keep_tail);
  return true;
}

void reap(Child& c) {
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  ChildResult& r = c.result;
  if (r.error_tail.size() > kErrorTail) r.error_tail.erase(0, r.error_tail.size() - kErrorTail);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.ok = !r.timed_out && WIFEXITED(status) && r.exit_code == 0;
}

}  // namespace

std::string ChildResult::failure() const {
  if (ok) return {};
  std::string what = timed_out ? "did not finish within the wall-clock limit (killed)"
                     : signal != 0 ? fmt::format("crashed ({})", ::strsignal(signal))
                                   : fmt::format("exited with status {}", exit_code);
  // The last line the child printed usually names the failed assertion.
  std::string tail = error_tail;
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  if (!tail.empty()) what += ": " + tail.substr(tail.rfind('\n') == std::string::npos ? 0 : tail.rfind('\n') + 1);
  return what;
}

std::vector<ChildResult> run_isolated(std::size_t n, const Isolation& isolation,
                                      const std::function<std::string(std::size_t)>& work,
                                      const std::function<void(std::size_t)>& done) {
  std::vector<ChildResult> results(n);
  std::map<pid_t, Child> running;
  std::size_t next = 0;
  const unsigned jobs = isolation.jobs == 0 ? 1 : isolation.jobs;
  while (next < n || !running.empty()) {
    while (next < n && running.size() < jobs) {
      Child c = spawn(next++, isolation, work);
      running.emplace(c.pid, std::move(c));
    }
    std::vector<pollfd> fds;
    std::vector<std::pair<pid_t, bool>> owner;  // pid, is stdout
    for (auto& [pid, c] : running) {
      if (c.out >= 0) {
        fds.push_back({c.out, POLLIN, 0});
        owner.emplace_back(pid, true);
      }
      if (c.err >= 0) {
        fds.push_back({c.err, POLLIN, 0});
        owner.emplace_back(pid, false);
      }
    }
    ::poll(fds.data(), fds.size(), 200);
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Child& c = running.at(owner[i].first);
      int& fd = owner[i].second ? c.out : c.err;
      if (!drain(fd, owner[i].second ? c.result.output : c.result.error_tail, owner[i].second ? 0 : kErrorTail)) {
        ::close(fd);
        fd = -1;
      }
    }
    const auto now = std::chrono::steady_clock::now();
    for (auto it = running.begin(); it != running.end();) {
      Child& c = it->second;
      if (now > c.deadline && !c.result.timed_out) {
        c.result.timed_out = true;
        ::kill(c.pid, SIGKILL);
      }
      if (c.out >= 0 || c.err >= 0) {
        ++it;
        continue;
      }
      reap(c);
      results[c.task] = std::move(c.result);
      if (done) done(c.task);
      it = running.erase(it);
    }
  }
  return results;
}

}  // namespace rsim::swarm
