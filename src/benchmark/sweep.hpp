#pragma once
// The sweep: every planned case measured in turn (in this process, or each in its own with
// --isolate), the record checkpointed after each, and the table printed from the record.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/benchmark.hpp"
#include "gpumeter/detail/shard.hpp"
#include "options.hpp"

namespace gpumeter::program {

// Runs the sweep `o` asks for and returns the program's exit code; `shard`, when the cases are
// one shard's, goes into the record. Throws ConfigError, DeviceBusy and the library's errors for
// main to report.
int run_sweep(const Options& o, const std::vector<std::string>& argv,
              const std::vector<PlannedCase>& cases, const std::string& program,
              std::optional<ShardPlan> shard = std::nullopt);

// The end of a sweep whose record was written to `path`: its table printed (unless --quiet), the
// failures counted, and the program's exit code returned.
int finish_sweep(const Options& o, Record record, const std::filesystem::path& path,
                 const std::string& program);

}  // namespace gpumeter::program
