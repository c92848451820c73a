#pragma once
// Starting a program as a child process and waiting for it: the one spawn-and-wait of gpumeter
// (a case's process under --isolate, a device's under --devices, the command `gpumeter lock`
// runs).
#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpumeter {

struct SpawnRequest {
  std::vector<std::string> argv;
  // The file to run: a path, or a name searched in PATH. "" runs argv[0].
  std::string program;
  // The child's environment ("NAME=value" each); the parent's when `inherit_environment`.
  bool inherit_environment = true;
  std::vector<std::string> environment;
  // Descriptors the child gets: {parent's descriptor, number in the child}. Everything else the
  // parent opened close-on-exec stays out of the child.
  std::vector<std::pair<int, int>> descriptors;
  // Signals set to their default action in the child, whatever the parent does with them (an
  // ignored disposition would otherwise survive exec); every other handler is reset by exec.
  std::vector<int> default_signals;
  // Signals the child ignores (a case's process leaves Ctrl-C to its parent).
  std::vector<int> ignored_signals;
  // SIGKILL the child when the thread that started it ends (PR_SET_PDEATHSIG): a hung case is
  // not left running on the device. A child whose parent died before it could ask runs nothing
  // and exits kExitOrphaned.
  bool die_with_parent = false;
};

// The child's pid, or -1 with `error` the errno of what failed (ENOENT: not found; then nothing
// runs). The child starts with an empty signal mask. Async-signal-safe calls only between
// fork and exec, so a process with threads may call it.
struct Spawned {
  pid_t pid = -1;
  int error = 0;
};
Spawned spawn(const SpawnRequest& request);

// How a child ended.
struct ChildExit {
  bool timed_out = false;  // killed (SIGKILL) at the deadline; then nothing else holds
  bool signaled = false;
  int signal = 0;  // when signaled
  int code = 0;    // when exited
  // As a shell reports it: the exit code, or 128+N when signal N ended it.
  int shell_code() const;
};

// Waits for `pid` to end, answering EINTR; with `timeout_s` > 0, kills it with SIGKILL at the
// deadline (a hung kernel does not answer politely) and reaps it. Throws Error when waitpid
// fails otherwise.
ChildExit wait_for_child(pid_t pid, double timeout_s = 0);

// How `pid` ended, reaping it, or nullopt while it runs (never waits). Throws Error when waitpid
// fails otherwise.
std::optional<ChildExit> poll_child(pid_t pid);

}  // namespace gpumeter
