#pragma once
// `gpumeter plot RECORD... [--out DIR] [--format svg,png] [--kind LIST]`: figures of records
// (sweeps with growth exponents and crossover brackets, total(N) by phase, comparisons with their
// intervals), drawn by the Python module with matplotlib. This command runs
// `$GPUMETER_PYTHON` (default python3) on the module's plot and passes its exit code through;
// when the interpreter cannot be started or cannot import the module, one line says what to
// install, exit 2.
#include "cli.hpp"

namespace gpumeter::cli {

Command add_plot_command(CLI::App& app);

}  // namespace gpumeter::cli
