#pragma once
// `gpumeter env [--json] [--device N]`: the host, the device and its state, as a record made now
// would hold them; "not available" (null in JSON) for what cannot be read, exit 0 without a GPU.
#include "cli.hpp"

namespace gpumeter::cli {

Command add_env_command(CLI::App& app);

}  // namespace gpumeter::cli
