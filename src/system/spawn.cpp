// spawn and wait_for_child: fork + exec with a close-on-exec pipe that carries exec's errno back.
#include "spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"

extern char** environ;

namespace gpumeter {
namespace {

// A descriptor is moved above every number a child is given before any is placed, so placing
// one never closes another still to be given.
constexpr int kAboveChildDescriptors = 64;

[[noreturn]] void child_failed(int report_fd, int error) {
  (void)!::write(report_fd, &error, sizeof error);
  ::_exit(kExitNotFound);
}

}  // namespace

int ChildExit::shell_code() const {
  return signaled ? kExitSignalBase + signal : code;
}

Spawned spawn(const SpawnRequest& request) {
  Spawned out;
  if (request.argv.empty()) {
    out.error = EINVAL;
    return out;
  }
  // Everything the child needs is prepared here: after fork only async-signal-safe calls.
  std::vector<char*> argv;
  for (const std::string& a : request.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  if (!request.inherit_environment) {
    for (const std::string& e : request.environment) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
  }
  char* const* env = request.inherit_environment ? environ : envp.data();
  const char* file = request.program.empty() ? argv[0] : request.program.c_str();
  std::vector<std::pair<int, int>> given;  // {a high copy, number in the child}
  const auto close_given = [&given] {
    for (const auto& g : given) ::close(g.first);
  };
  for (const auto& [fd, as] : request.descriptors) {
    const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, kAboveChildDescriptors);
    if (high < 0) {
      out.error = errno;
      close_given();
      return out;
    }
    given.emplace_back(high, as);
  }
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    out.error = errno;
    close_given();
    return out;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (request.die_with_parent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      // The parent may have died between fork and prctl; then no signal would ever come.
      if (::getppid() != parent) ::_exit(kExitOrphaned);
    }
    struct sigaction action {};
    sigemptyset(&action.sa_mask);
    action.sa_handler = SIG_DFL;
    for (const int sig : request.default_signals) ::sigaction(sig, &action, nullptr);
    action.sa_handler = SIG_IGN;
    for (const int sig : request.ignored_signals) ::sigaction(sig, &action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (const auto& [high, as] : given) {
      // dup2 clears close-on-exec on the copy the child keeps.
      if (::dup2(high, as) < 0) child_failed(report[1], errno);
    }
    ::execvpe(file, argv.data(), env);
    child_failed(report[1], errno);
  }
  const int fork_error = errno;
  ::close(report[1]);
  close_given();
  if (pid < 0) {
    ::close(report[0]);
    out.error = fork_error;
    return out;
  }
  // Closed without a word when exec succeeded; the errno when it did not.
  int error = 0;
  ssize_t n = 0;
  do {
    n = ::read(report[0], &error, sizeof error);
  } while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof error)) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    out.error = error;
    return out;
  }
  out.pid = pid;
  return out;
}

namespace {

ChildExit exit_of(int status) {
  ChildExit out;
  if (WIFSIGNALED(status)) {
    out.signaled = true;
    out.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    out.code = WEXITSTATUS(status);
  }
  return out;
}

}  // namespace

ChildExit wait_for_child(pid_t pid, double timeout_s) {
  // Not "Clock": device_lock.cpp names its clock so at namespace scope, and the sanitizer pass
  // compiles this library as one unit (-Wshadow).
  using Steady = std::chrono::steady_clock;
  const auto deadline = Steady::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  ChildExit out;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, timeout_s > 0 ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      throw Error(std::string("waiting for a child process failed: ") + std::strerror(errno));
    }
    if (done == 0) {
      if (Steady::now() > deadline) {
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        out.timed_out = true;
        return out;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  return exit_of(status);
}

std::optional<ChildExit> poll_child(pid_t pid) {
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return exit_of(status);
    if (done == 0) return std::nullopt;
    if (errno != EINTR) {
      throw Error(std::string("waiting for a child process failed: ") + std::strerror(errno));
    }
  }
}

}  // namespace gpumeter
