// The gpumeter command's options (command_options.hpp). Positional arguments stay with their
// subcommand: they are its syntax, not options a second command could share.
#include "command_options.hpp"

#include <stdexcept>

#include "gpumeter/detail/program.hpp"
#include "gpumeter/detail/record_comparison.hpp"

namespace gpumeter::cli {
namespace {

// `gpumeter run --repeat`: 1 to the most runs a record holds.
constexpr NumberRule kProgramRuns{1, false, static_cast<double>(kMaxProgramRuns), true, ""};

constexpr CommandOption kReportOptions[] = {
    {"--csv", kCsvOption},
    {"--wide", kWideOption},
};

constexpr CommandOption kCompareOptions[] = {
    {"--fail-on-regression", kGateThresholdOption},
    {"--allow-missing", kAllowMissingOption},
};

constexpr CommandOption kMergeOptions[] = {
    {"-o,--output", {true, "The merged record to write (never overwritten)"}},
    {"--allow-mixed",
     {false,
      "Join records of devices of different kinds, timing methods or budgets (the merged record "
      "says so); boards of one kind need no leave: each row keeps its own"}},
    {"--allow-missing-shards",
     {false,
      "Merge the shards of a sweep though one is missing or partial: its cases that did not run "
      "become failures of the merged record (ShardMissing, ShardIncomplete)"}},
};

constexpr CommandOption kEnvOptions[] = {
    {"--json", {false, "JSON, with the field names of a record"}},
    {"--device", kDeviceIndexOption},
};

constexpr CommandOption kLockOptions[] = {
    {"--timeout", kLockWaitOption},
    {"--idle-timeout",
     {true, "Seconds to wait for the device to be idle before giving up", &kWaitSeconds}},
    {"--device", kDeviceIndexOption},
    {"--allow-contended", kAllowContendedOption},
};

constexpr CommandOption kHistoryOptions[] = {
    {"--out", {true, "The site's folder: new, or empty"}},
    {"--commits",
     {true,
      "A file of the project's commits, oldest first, one a line (git rev-list --reverse HEAD); "
      "without it, commits are ordered by their first record's time"}},
};

constexpr CommandOption kRunOptions[] = {
    {"--range",
     {true,
      "Report only ranges whose name this regular expression matches (ECMAScript, searched: "
      "anchor with ^ and $ for a whole name)"}},
    {"--domain", {true, "Report only ranges of this NVTX domain (\"\" for the default domain)"}},
    {"--out", kRecordDirectoryOption},
    {"--label",
     {true,
      "The rows' implementation name (default \"program\"): compare matches rows by range and "
      "label, so two runs to compare keep the same label"}},
    {"--engine-threads",
     {true,
      "adopt (default): kernels launched by PyTorch's autograd engine threads count toward the "
      "ranges open on the thread that called backward(); own: like any thread's, toward ranges "
      "pushed on the engine thread and start/end ranges (which cover every thread)"}},
    {"--count-copies", kCountCopiesOption},
    {"--child-wait",
     {true, "Seconds to wait after the command ends for its children's parts", &kWaitSeconds}},
    // Not kDeviceIndexOption: the program chooses its own devices; this names the one the record
    // describes.
    {"--device",
     {true, "The CUDA device the record names (its state is read after the run; default 0)",
      &kDeviceIndex}},
    {"--repeat",
     {true,
      "Run the command this many times, one after another, into one record (default 1). Each "
      "run is one pass of every row: compare judges two records by the spread between runs, so "
      "records to compare need 2 or more (3 is a good start)",
      &kProgramRuns}},
    {"--csv", kCsvOption},
    {"--wide", kWideOption},
    {"--keep-parts",
     {false,
      "Keep the processes' raw parts beside the record (parts-RUNID/, parts-RUNID-runK/ with "
      "--repeat)"}},
};

// Every argument of evaluate and of plot, --help included, is the Python module's: their options
// are its parsers' (_evaluate.py, plot.py).
constexpr CommandOptions kCommandOptions[] = {
    {"report", kReportOptions},   {"compare", kCompareOptions}, {"merge", kMergeOptions},
    {"env", kEnvOptions},         {"lock", kLockOptions},       {"plot", {}},
    {"history", kHistoryOptions}, {"run", kRunOptions},         {"evaluate", {}},
};

}  // namespace

std::span<const CommandOptions> command_options() {
  return kCommandOptions;
}

const CommandOption& command_option(std::string_view command, std::string_view names) {
  for (const CommandOptions& c : kCommandOptions) {
    if (c.command != command) continue;
    for (const CommandOption& o : c.options) {
      if (o.names == names) return o;
    }
  }
  throw std::logic_error("gpumeter " + std::string(command) + "'s option " + std::string(names) +
                         " is not in the command's option table (command_options.cpp)");
}

}  // namespace gpumeter::cli
