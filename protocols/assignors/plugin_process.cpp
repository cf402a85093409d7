#include "protocols/assignors/plugin_process.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace rsim::protocols {

namespace {

using Clock = std::chrono::steady_clock;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::string errno_text() { return std::strerror(errno); }

// How a reaped child ended, for messages.
std::string status_text(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return "stopped";
}

// Waits up to `grace` for the child to end on its own, then kills it; a
// child never outlives us and waitpid never blocks for long.
std::string reap(pid_t pid, std::chrono::milliseconds grace) {
  const auto deadline = Clock::now() + grace;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status_text(status);
    if (r < 0) return "is gone";
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return "did not exit and was killed";
}

}  // namespace

PluginProcess::PluginProcess(const std::vector<std::string>& argv) {
  if (argv.empty()) throw PluginProcessError("no command given");
  // A child that exits while we write must give EPIPE, not kill the simulator.
  std::signal(SIGPIPE, SIG_IGN);
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw PluginProcessError("cannot make a pipe: " + errno_text());
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw PluginProcessError("cannot make a pipe: " + errno_text());
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = ::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
  if (rc != 0) {
    stop();
    throw PluginProcessError(fmt::format("cannot start '{}': {}", argv[0], std::strerror(rc)));
  }
  ::fcntl(to_child_, F_SETFL, ::fcntl(to_child_, F_GETFL) | O_NONBLOCK);
  ::fcntl(from_child_, F_SETFL, ::fcntl(from_child_, F_GETFL) | O_NONBLOCK);
}

PluginProcess::~PluginProcess() { stop(); }

void PluginProcess::stop() {
  close_fd(to_child_);  // EOF on its stdin: a well-behaved plugin exits
  close_fd(from_child_);
  if (pid_ > 0) reap(pid_, std::chrono::milliseconds(1000));
  pid_ = -1;
}

std::string PluginProcess::why_gone() {
  close_fd(to_child_);
  close_fd(from_child_);
  const std::string how = pid_ > 0 ? reap(pid_, std::chrono::milliseconds(1000)) : "is gone";
  pid_ = -1;
  return "the plugin process " + how;
}

// Writes and reads at once, so a large request never deadlocks against a
// child that answers (or fills its stdout) before reading all of it.
std::string PluginProcess::exchange(const std::string& line, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) throw PluginProcessError("the plugin process is not running (it failed before)");
  const std::string request = line + '\n';
  std::size_t written = 0;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (auto nl = pending_.find('\n'); nl != std::string::npos) {
      std::string answer = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return answer;
    }
    if (pending_.size() > kMaxLine) {
      why_gone();
      throw PluginProcessError(fmt::format("the plugin's answer is longer than {} bytes without a newline", kMaxLine));
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      ::kill(pid_, SIGKILL);
      why_gone();
      throw PluginProcessError(fmt::format("no answer within {} ms (wall clock); the plugin process was killed", timeout.count()));
    }
    pollfd fds[2] = {{from_child_, POLLIN, 0}, {written < request.size() ? to_child_ : -1, POLLOUT, 0}};
    const int n = ::poll(fds, 2, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) throw PluginProcessError("poll failed: " + errno_text());
    if (n <= 0) continue;
    if (fds[1].revents != 0) {
      const ssize_t w = ::write(to_child_, request.data() + written, request.size() - written);
      if (w < 0 && errno != EAGAIN && errno != EINTR) throw PluginProcessError(why_gone() + " before reading the request");
      if (w > 0) written += static_cast<std::size_t>(w);
    }
    if (fds[0].revents != 0) {
      char buffer[65536];
      const ssize_t r = ::read(from_child_, buffer, sizeof buffer);
      if (r == 0) throw PluginProcessError(why_gone() + " without answering");
      if (r < 0 && errno != EAGAIN && errno != EINTR) throw PluginProcessError("read failed: " + errno_text());
      if (r > 0) pending_.append(buffer, static_cast<std::size_t>(r));
    }
  }
}

}  // namespace rsim::protocols
