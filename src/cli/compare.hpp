#pragma once
// `gpumeter compare BASE NEW [--fail-on-regression FRACTION [--allow-missing]]`: rows matched by
// case, params and implementation; each with the comparison rule of its statistic; a geometric
// mean; rows on one side only listed with why, never dropped; a gate for CI that fails on a
// regression and on what it cannot see (record_comparison.hpp).
#include <optional>
#include <string>

#include "cli.hpp"

namespace gpumeter::cli {

Command add_compare_command(CLI::App& app);

int compare(const std::string& base_file, const std::string& new_file,
            std::optional<double> fail_on_regression, bool allow_missing, Io& io);

}  // namespace gpumeter::cli
