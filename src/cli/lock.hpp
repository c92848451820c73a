#pragma once
// `gpumeter lock [--timeout S] [--idle-timeout S] [--device N] [--allow-contended] -- COMMAND...`:
// runs COMMAND holding the device's exclusive lock (P1), for any program that does not take it
// itself. The idle check comes first (outside the lock), then flock; COMMAND runs as a child
// (the lock's descriptor is not passed to it) and the lock is released when it ends. A
// gpumeter program under it (a benchmark program, the Python module) finds the lock held for
// it (GPUMETER_LOCK_HELD) and neither waits nor checks again.
//
// Exit: COMMAND's exit code, 128+N when signal N ended it, 126 when it cannot be started, 127
// when it is not found; 4 when the device stays busy or its lock stays held (one line on stderr
// names the processes or the holder); 2 for bad arguments (gpumeter/exit_codes.hpp).
#include "cli.hpp"

namespace gpumeter::cli {

Command add_lock_command(CLI::App& app);

}  // namespace gpumeter::cli
