#pragma once
// `gpumeter history DIR... --out SITE`: every record under the folders, over commits, as one
// static site with the regressions the comparison of two runs finds (docs/history.md).
#include "cli.hpp"

namespace gpumeter::cli {

Command add_history_command(CLI::App& app);

}  // namespace gpumeter::cli
