#pragma once
// `gpumeter merge A.json B.json ... -o OUT.json [--allow-mixed]`: the records of the shards of
// one sweep joined into one record.
#include "cli.hpp"

namespace gpumeter::cli {

Command add_merge_command(CLI::App& app);

}  // namespace gpumeter::cli
