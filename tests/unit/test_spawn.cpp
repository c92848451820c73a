// The one spawn-and-wait (src/system/spawn.hpp) on real processes through /bin/sh: exit codes
// and signals as a shell reports them, a program that is not found, the signals a child starts
// with whatever its parent does with them, the descriptors it is given, and the deadline.
#include "spawn.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "gpumeter/exit_codes.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

ChildExit run_sh(const std::string& script, SpawnRequest request = {}) {
  request.argv = {"sh", "-c", script};
  const Spawned s = spawn(request);
  EXPECT_GT(s.pid, 0) << s.error;
  return wait_for_child(s.pid);
}

TEST(Spawn, ExitCodeComesBack) {
  const ChildExit e = run_sh("exit 7");
  EXPECT_FALSE(e.signaled);
  EXPECT_FALSE(e.timed_out);
  EXPECT_EQ(e.code, 7);
  EXPECT_EQ(e.shell_code(), 7);
}

TEST(Spawn, SignalIs128PlusN) {
  const ChildExit e = run_sh("kill -TERM $$");
  EXPECT_TRUE(e.signaled);
  EXPECT_EQ(e.signal, SIGTERM);
  EXPECT_EQ(e.shell_code(), kExitSignalBase + SIGTERM);
}

TEST(Spawn, NotFoundIsAnErrorAndNothingRuns) {
  SpawnRequest r;
  r.argv = {"gpumeter-no-such-program-anywhere"};
  const Spawned s = spawn(r);
  EXPECT_EQ(s.pid, -1);
  EXPECT_EQ(s.error, ENOENT);
}

TEST(Spawn, ProgramRunsInPlaceOfArgvZero) {
  SpawnRequest r;
  r.program = "/bin/sh";
  r.argv = {"named-otherwise", "-c", "[ \"$0\" = named-otherwise ] && exit 4; exit 9"};
  const Spawned s = spawn(r);
  ASSERT_GT(s.pid, 0);
  EXPECT_EQ(wait_for_child(s.pid).code, 4);
}

TEST(Spawn, EnvironmentIsTheOneGiven) {
  SpawnRequest r;
  r.inherit_environment = false;
  r.environment = {"GPUMETER_SPAWN_TEST=yes", "PATH=/usr/bin:/bin"};
  EXPECT_EQ(
      run_sh("[ \"$GPUMETER_SPAWN_TEST\" = yes ] && [ -z \"$HOME\" ] && exit 5; exit 1", r).code,
      5);
}

// A parent that ignores SIGTERM (as `gpumeter lock` ignores SIGINT while its command runs):
// the child is given the default action, and dies of the signal.
TEST(Spawn, DefaultSignalsAreDefaultInTheChild) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction saved {};
  ::sigaction(SIGTERM, &ignore, &saved);
  SpawnRequest r;
  r.default_signals = {SIGTERM};
  const ChildExit with_default = run_sh("kill -TERM $$; exit 0", r);
  const ChildExit inherited = run_sh("kill -TERM $$; exit 0");
  ::sigaction(SIGTERM, &saved, nullptr);
  EXPECT_TRUE(with_default.signaled);
  EXPECT_FALSE(inherited.signaled);  // without it, the parent's SIG_IGN survives exec
}

TEST(Spawn, IgnoredSignalsAreIgnoredInTheChild) {
  SpawnRequest r;
  r.ignored_signals = {SIGHUP};
  EXPECT_EQ(run_sh("kill -HUP $$; exit 6", r).code, 6);
}

TEST(Spawn, TheMaskIsEmptyInTheChild) {
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigset_t saved;
  ::pthread_sigmask(SIG_BLOCK, &blocked, &saved);
  const ChildExit e = run_sh("kill -TERM $$; exit 0");
  ::pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  EXPECT_TRUE(e.signaled);
}

TEST(Spawn, DescriptorsAreGivenAtTheirNumbers) {
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  SpawnRequest r;
  r.descriptors = {{p[1], 3}};
  const ChildExit e = run_sh("echo given >&3", r);
  ::close(p[1]);
  char buffer[16] = {};
  const ssize_t n = ::read(p[0], buffer, sizeof buffer - 1);
  ::close(p[0]);
  EXPECT_EQ(e.code, 0);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0), "given\n");
}

TEST(Spawn, ADescriptorNotGivenIsNotInherited) {
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  const std::string fd = std::to_string(p[1]);
  const ChildExit e = run_sh("[ -e /proc/self/fd/" + fd + " ] && exit 1; exit 0");
  ::close(p[0]);
  ::close(p[1]);
  EXPECT_EQ(e.code, 0);
}

TEST(Spawn, TheDeadlineKillsTheChild) {
  SpawnRequest r;
  // The sleeper itself, not a shell over it: a shell killed at the deadline would leave its sleep
  // behind, holding the test's output open (ctest then waits the whole 30 s for it).
  r.argv = {"sleep", "30"};
  const Spawned s = spawn(r);
  ASSERT_GT(s.pid, 0);
  const ChildExit e = wait_for_child(s.pid, 0.2);
  EXPECT_TRUE(e.timed_out);
  EXPECT_EQ(::kill(s.pid, 0), -1);  // reaped: no such process any more
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
