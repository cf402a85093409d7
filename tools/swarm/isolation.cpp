#include "tools/swarm/isolation.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>

namespace rsim::swarm {

// Workers are forked once and run task after task (a fork per run cost more
// than most runs); a worker that dies takes only its current task with it and
// is replaced. Tasks go to a worker as "INDEX\n" on its stdin; results come
// back as "INDEX LENGTH\n" and LENGTH bytes on its stdout; its stderr is kept
// for the message of a crash.
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

std::optional<std::string> read_line(int fd) {
  std::string line;
  char c = 0;
  while (true) {
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    if (c == '\n') return line;
    line += c;
  }
}

[[noreturn]] void be_worker(int in, int out, int err, const std::function<std::string(std::size_t)>& work) {
  // A crash must end the worker, not run handlers it inherited (a test
  // framework's, say): the parent reads the signal.
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTERM}) std::signal(sig, SIG_DFL);
  ::dup2(err, STDERR_FILENO);
  // The pipes of the workers forked before this one are open here too: a
  // worker holding another's stdin would keep it from ever seeing its end.
  const int max_fd = static_cast<int>(std::min<long>(::sysconf(_SC_OPEN_MAX), 65536));
  for (int fd = 3; fd < max_fd; ++fd)
    if (fd != in && fd != out && fd != err) ::close(fd);
  while (const auto line = read_line(in)) {
    const std::size_t task = std::stoull(*line);
    std::string result;
    try {
      result = work(task);
    } catch (const std::exception& e) {
      std::cerr << "uncaught exception: " << e.what() << std::endl;
      ::_exit(3);
    }
    write_all(out, fmt::format("{} {}\n", task, result.size()) + result);
  }
  ::_exit(0);
}

struct Worker {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
  std::optional<std::size_t> task;
  std::chrono::steady_clock::time_point deadline;
  bool killed = false;
  std::string received;  // stdout not yet parsed
  std::string errors;    // stderr since the current task began
};

Worker spawn(const std::function<std::string(std::size_t)>& work) {
  int in[2], out[2], err[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0 || ::pipe(err) != 0)
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(in[1]);
    ::close(out[0]);
    ::close(err[0]);
    be_worker(in[0], out[1], err[1], work);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  Worker w;
  w.pid = pid;
  w.in = in[1];
  w.out = out[0];
  w.err = err[0];
  ::fcntl(w.out, F_SETFL, ::fcntl(w.out, F_GETFL) | O_NONBLOCK);
  ::fcntl(w.err, F_SETFL, ::fcntl(w.err, F_GETFL) | O_NONBLOCK);
  return w;
}

// Reads what is there; false at end of file. The parent's ends are
// non-blocking: a read never waits on a worker.
bool drain(int fd, std::string& into) {
  char buf[65536];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) return true;
  if (n <= 0) return false;
  into.append(buf, static_cast<std::size_t>(n));
  return true;
}

// Complete results in `w.received`, handed to `done`.
template <class Done>
void parse_results(Worker& w, Done done) {
  while (true) {
    const auto nl = w.received.find('\n');
    if (nl == std::string::npos) return;
    std::size_t task = 0, length = 0;
    if (std::sscanf(w.received.c_str(), "%zu %zu", &task, &length) != 2) throw std::runtime_error("worker protocol");
    if (w.received.size() < nl + 1 + length) return;
    done(task, w.received.substr(nl + 1, length));
    w.received.erase(0, nl + 1 + length);
  }
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The worker is gone: its current task (if any) failed the way it died.
void bury(Worker& w, std::vector<ChildResult>& results, const std::function<void(std::size_t)>& done) {
  close_fd(w.in);
  close_fd(w.out);
  close_fd(w.err);
  int status = 0;
  while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!w.task) return;
  ChildResult& r = results[*w.task];
  r.ok = false;
  r.timed_out = w.killed;
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.error_tail = w.errors.size() > kErrorTail ? w.errors.substr(w.errors.size() - kErrorTail) : w.errors;
  if (done) done(*w.task);
}

}  // namespace

std::string ChildResult::failure() const {
  if (ok) return {};
  std::string what = timed_out ? "did not finish within the wall-clock limit (killed)"
                     : signal != 0 ? fmt::format("crashed ({})", ::strsignal(signal))
                                   : fmt::format("exited with status {}", exit_code);
  // The last line the worker printed usually names the failed assertion.
  std::string tail = error_tail;
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  if (!tail.empty()) what += ": " + tail.substr(tail.rfind('\n') == std::string::npos ? 0 : tail.rfind('\n') + 1);
  return what;
}

std::vector<ChildResult> run_isolated(std::size_t n, const Isolation& isolation,
                                      const std::function<std::string(std::size_t)>& work,
                                      const std::function<void(std::size_t)>& done) {
  std::vector<ChildResult> results(n);
  std::size_t next = 0, finished = 0;
  const std::size_t jobs = std::max<std::size_t>(1, std::min<std::size_t>(isolation.jobs, n));
  std::vector<Worker> workers;
  // SIGPIPE from writing to a worker that just died would end the parent.
  const auto old_sigpipe = std::signal(SIGPIPE, SIG_IGN);
  auto give = [&](Worker& w) {
    if (next >= n) return;
    w.task = next++;
    w.errors.clear();
    w.deadline = std::chrono::steady_clock::now() + isolation.wall_limit;
    write_all(w.in, fmt::format("{}\n", *w.task));
  };
  for (std::size_t i = 0; i < jobs; ++i) {
    workers.push_back(spawn(work));
    give(workers.back());
  }
  while (finished < n) {
    std::vector<pollfd> fds;
    std::vector<std::pair<std::size_t, bool>> owner;  // worker, is stdout
    for (std::size_t i = 0; i < workers.size(); ++i) {
      if (workers[i].out >= 0) {
        fds.push_back({workers[i].out, POLLIN, 0});
        owner.emplace_back(i, true);
      }
      if (workers[i].err >= 0) {
        fds.push_back({workers[i].err, POLLIN, 0});
        owner.emplace_back(i, false);
      }
    }
    ::poll(fds.data(), fds.size(), 200);
    // A worker replaced in this round: its remaining poll entries are stale
    // (the new worker may have been given the same descriptor numbers).
    std::set<std::size_t> replaced;
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents == 0 || replaced.count(owner[k].first) != 0) continue;
      Worker& w = workers[owner[k].first];
      if (owner[k].second) {
        if (!drain(w.out, w.received)) {
          bury(w, results, done);
          if (w.task) ++finished;
          replaced.insert(owner[k].first);
          w = next < n ? spawn(work) : Worker{};
          if (w.pid >= 0) give(w);
          continue;
        }
        parse_results(w, [&](std::size_t task, std::string output) {
          results[task].ok = true;
          results[task].output = std::move(output);
          ++finished;
          if (done) done(task);
          w.task.reset();
          give(w);
        });
      } else if (!drain(w.err, w.errors)) {
        close_fd(w.err);
      } else if (w.errors.size() > 4 * kErrorTail) {
        w.errors.erase(0, w.errors.size() - kErrorTail);
      }
    }
    const auto now = std::chrono::steady_clock::now();
    for (auto& w : workers)
      if (w.pid >= 0 && w.task && !w.killed && now > w.deadline) {
        w.killed = true;
        ::kill(w.pid, SIGKILL);
      }
  }
  for (auto& w : workers) {
    if (w.pid < 0) continue;
    w.task.reset();
    close_fd(w.in);  // the worker's loop ends at end of input
    bury(w, results, done);
  }
  std::signal(SIGPIPE, old_sigpipe);
  return results;
}

}  // namespace rsim::swarm
