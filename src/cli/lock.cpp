// `gpumeter lock`: a command run while holding the device lock (P1).
#include "lock.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "child_signals.hpp"
#include "command_options.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/device_lock.hpp"
#include "gpumeter/error_catalogue.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/exit_help.hpp"
#include "gpumeter/session.hpp"
#include "spawn.hpp"

extern char** environ;

namespace gpumeter::cli {
namespace {

struct LockArguments {
  double timeout_s = kDefaultLockTimeoutS;
  double idle_timeout_s = kDefaultIdleTimeoutS;
  int device = 0;
  bool allow_contended = false;
  std::vector<std::string> command;
};

// This environment, with the lock's holder and notes for the command (and none inherited from
// an enclosing `gpumeter lock` of another path).
std::vector<std::string> child_environment(const DeviceLock& lock) {
  std::vector<std::string> env;
  const std::string held = std::string(kLockHeldEnv) + "=";
  const std::string note = std::string(kLockNoteEnv) + "=";
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    if (entry.rfind(held, 0) == 0 || entry.rfind(note, 0) == 0) continue;
    env.push_back(entry);
  }
  if (lock.inherited()) {
    // Held by an enclosing `gpumeter lock`: its variables stay as they were.
    if (const char* v = std::getenv(kLockHeldEnv)) env.push_back(held + v);
    if (const char* v = std::getenv(kLockNoteEnv)) env.push_back(note + v);
    return env;
  }
  env.push_back(held + std::to_string(::getpid()) + ":" + lock.path());
  std::string lines;
  for (const std::string& d : lock.deviations()) lines += d + "\n";
  if (!lines.empty()) env.push_back(note + lines);
  return env;
}

int run_command(Io& io, const LockArguments& o, const DeviceLock& lock) {
  SpawnRequest request;
  request.argv = o.command;
  request.inherit_environment = false;
  request.environment = child_environment(lock);
  // The command starts as from a shell, whatever this process does with them meanwhile.
  request.default_signals = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

  io.out << std::flush;
  io.err << std::flush;
  SignalsWhileRunning signals;
  const Spawned spawned = spawn(request);
  if (spawned.pid < 0) {
    print_error(io, "lock",
                "cannot run '" + o.command.front() + "': " + std::strerror(spawned.error));
    return spawned.error == ENOENT ? kExitNotFound : kExitCannotRun;
  }
  signals.started(spawned.pid);
  try {
    return wait_for_child(spawned.pid).shell_code();
  } catch (const Error& e) {
    print_error(io, "lock", e.what());
    return kExitInternal;
  }
}

}  // namespace

Command add_lock_command(CLI::App& app) {
  auto o = std::make_shared<LockArguments>();
  CLI::App* sub = app.add_subcommand(
      "lock",
      "Run a command holding the device's exclusive lock: first check that no other compute "
      "process uses the device and its free memory is not low (waiting up to --idle-timeout), "
      "then wait up to --timeout for the lock (flock on $GPU_LOCK, else "
      "/tmp/gpumeter-gpu-<uuid>.lock, or -<index>.lock where no CUDA driver gives the uuid; "
      "written by its creator only). Benchmark programs and the Python module take the lock "
      "themselves, and find it held for them under this command.");
  add_command_option(*sub, "--timeout", o->timeout_s, format_shortest(kDefaultLockTimeoutS));
  add_command_option(*sub, "--idle-timeout", o->idle_timeout_s,
                     format_shortest(kDefaultIdleTimeoutS));
  add_command_option(*sub, "--device", o->device);
  add_command_flag(*sub, "--allow-contended", o->allow_contended);
  sub->add_option("COMMAND", o->command, "The command to run and its arguments (after --)")
      ->required();
  sub->positionals_at_end();
  sub->footer(exit_codes_help({{kExitSignalBase, "signal N ended the command"},
                               {kExitCannotRun},
                               {kExitNotFound},
                               {kExitBusy,
                                "the device stays busy or its lock stays held (one line names the "
                                "processes or the holder)"},
                               {kExitUsage, "bad arguments"}}) +
              " Otherwise the command's own code.");
  return {sub, [o](Io& io) {
            DeviceLockOptions options;
            options.timeout_s = o->timeout_s;
            options.idle_timeout_s = o->idle_timeout_s;
            options.allow_contended = o->allow_contended;
            std::unique_ptr<DeviceLock> lock;
            try {
              lock = take_device_lock(o->device, options);
            } catch (const DeviceBusy& e) {
              print_error(io, "lock", e.what());
              return exit_code_of_error(e);
            } catch (const ConfigError& e) {
              print_error(io, "lock", e.what());
              return exit_code_of_error(e);
            }
            if (lock->contended() && !lock->inherited()) {
              print_error(
                  io, "lock",
                  "going ahead on a busy device (--allow-contended): " + lock->contention());
            }
            return run_command(io, *o, *lock);
          }};
}

}  // namespace gpumeter::cli
