#pragma once
// The sweep: every planned case measured in turn (in this process, or each in its own with
// --isolate), the record checkpointed after each, and the table printed from the record.
#include <string>
#include <vector>

#include "gpumeter/benchmark.hpp"
#include "options.hpp"

namespace gpumeter::program {

// Runs the sweep `o` asks for and returns the program's exit code. Throws ConfigError,
// DeviceBusy and the library's errors for main to report.
int run_sweep(const Options& o, const std::vector<std::string>& argv,
              const std::vector<PlannedCase>& cases, const std::string& program);

}  // namespace gpumeter::program
