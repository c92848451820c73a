#pragma once
// The sweep: every planned case measured in turn (in this process, or each in its own with
// --isolate), the record checkpointed after each, and the table printed from the record.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/benchmark.hpp"
#include "gpumeter/shard.hpp"
#include "options.hpp"

namespace gpumeter::program {

// Runs the sweep `o` asks for and returns the program's exit code; `shard`, when the cases are
// one shard's, goes into the record. Throws ConfigError, DeviceBusy and the library's errors for
// main to report.
int run_sweep(const Options& o, const std::vector<std::string>& argv,
              const std::vector<PlannedCase>& cases, const std::string& program,
              std::optional<ShardPlan> shard = std::nullopt);

}  // namespace gpumeter::program
