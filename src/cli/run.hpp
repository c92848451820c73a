#pragma once
// `gpumeter run [--range REGEX] [--domain NAME] [--out DIR] -- COMMAND [ARGS...]`: the command
// runs unmodified with the collector injected (CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH); the
// device time of its NVTX ranges goes into a record of the usual schema (docs/program-runs.md).
#include "cli.hpp"

namespace gpumeter::cli {

Command add_run_command(CLI::App& app);

// The environment variable naming the collector library, where it is not beside the command.
inline constexpr const char* kCollectorEnv = "GPUMETER_COLLECTOR";
// How long the command's children get to write their parts after it ends: a worker's exit takes
// milliseconds; a daemon that keeps running is reported missing after this, not waited on.
inline constexpr double kDefaultChildWaitS = 10;

}  // namespace gpumeter::cli
