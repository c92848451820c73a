#pragma once
// `gpumeter evaluate ...`: judges candidate implementations against a reference, each in a
// process of its own with fresh inputs and checked answers (docs/evaluation.md). The candidates
// are Python callables or programs, so the evaluation is the Python module's: this command runs
// `$GPUMETER_PYTHON` (default python3) on gpumeter._evaluate with every argument as given, and
// passes its exit code through; when the interpreter cannot be started or cannot import the
// module, one line says what to install, exit 2.
#include "cli.hpp"

namespace gpumeter::cli {

Command add_evaluate_command(CLI::App& app);

}  // namespace gpumeter::cli
