#pragma once
// The exit codes of every gpumeter program (the benchmark programs, the gpumeter command and
// gpumeter-example): one set, so a script or CI job reads any of them the same way. The values
// are documented in README.md and docs/rules.md and never change. Every program's --help says its
// exit codes from kExitCodeMeanings below, naming only what is its own: fourteen texts written
// by hand had drifted apart.
#include <string_view>

namespace gpumeter {

// Everything asked was done: every case measured (or skipped by its benchmark), a comparison
// found no regression, a command under `gpumeter lock` exited 0.
inline constexpr int kExitOk = 0;
// The work ran, and a result it produced is a failure: a case produced no number, a row failed
// its null test, `gpumeter compare` found a regression. The record or the output says which.
inline constexpr int kExitFailed = 1;
// A usage error: bad arguments, input that cannot be read, an --out that cannot be written.
// Nothing was measured.
inline constexpr int kExitUsage = 2;
// An internal error: a failure that is neither the input's nor the device's fault.
inline constexpr int kExitInternal = 3;
// The device stayed busy (other compute processes, too little free memory) or another run held
// its lock past the timeout. Nothing was measured.
inline constexpr int kExitBusy = 4;
// A program that measures GPU work found no usable CUDA GPU: said once, nothing measured.
inline constexpr int kExitNoDevice = 5;
// A case's process (--isolate) whose parent died before it could ask to die with it: it ran
// nothing. The parent is gone, so only a test or a debugger sees it.
inline constexpr int kExitOrphaned = 125;
// `gpumeter lock` and `gpumeter run`: the command was found but could not be started (as a shell
// answers).
inline constexpr int kExitCannotRun = 126;
// `gpumeter lock` and `gpumeter run`: the command was not found (as a shell answers).
inline constexpr int kExitNotFound = 127;
// 128+N: signal N ended the program (a sweep stopped by Ctrl-C exits 130, after writing the
// partial record) or the command `gpumeter lock` ran.
inline constexpr int kExitSignalBase = 128;

// What each code means wherever a program exits with it, in its --help's words; a program adds
// what the code is for it (exit_codes_help).
struct ExitCodeMeaning {
  int code;
  std::string_view meaning;
};
inline constexpr ExitCodeMeaning kExitCodeMeanings[] = {
    {kExitOk, "everything asked was done"},
    {kExitFailed, "a result is a failure (the output or the record says which)"},
    {kExitUsage, "a usage error (nothing was measured)"},
    {kExitInternal, "an internal error"},
    {kExitBusy, "the device stayed busy or another run held its lock (nothing measured)"},
    {kExitNoDevice,
     "no usable CUDA GPU for work that needs one (one line says so; nothing measured)"},
    {kExitOrphaned, "a case's process whose parent died first (it ran nothing)"},
    {kExitCannotRun, "the command cannot be started"},
    {kExitNotFound, "the command is not found"},
    {kExitSignalBase, "signal N ended it (Ctrl-C: 130)"},
};

}  // namespace gpumeter
