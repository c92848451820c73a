#pragma once
// Signals while a command the gpumeter command started runs (`lock`, `run`): SIGINT and SIGQUIT
// from a terminal reach the command directly (its process group is this one's), so this process
// ignores them, as system(3) does; SIGTERM and SIGHUP, which are sent to this process alone, are
// passed on, so the command ends before this process does what it does after it. Restored when
// the object goes.
#include <signal.h>
#include <sys/types.h>

namespace gpumeter::cli {

class SignalsWhileRunning {
 public:
  SignalsWhileRunning();
  ~SignalsWhileRunning();
  SignalsWhileRunning(const SignalsWhileRunning&) = delete;
  SignalsWhileRunning& operator=(const SignalsWhileRunning&) = delete;

  // The command's pid, once it has one: a signal that came while it was starting is sent now.
  void started(pid_t pid);

 private:
  struct sigaction saved_[4]{};
};

}  // namespace gpumeter::cli
