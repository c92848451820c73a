#pragma once
// From the collector's parts to a record (docs/program-runs.md): reads each process's part, finds
// the parts that are missing, and attributes each process's kernels to its NVTX ranges by the
// core's rules (ranges.hpp), then builds the rows and the program section of the record. Pure: no
// CUDA, so every rule is tested on synthetic parts.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpumeter/detail/program.hpp"
#include "gpumeter/ranges.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

// One process's part, as read.
struct ProcessPart {
  long pid = 0;
  long parent_pid = 0;
  bool forked = false;        // a fork of a process that had the collector
  bool cupti = false;         // device records were collected
  std::string cupti_problem;  // why not, else ""
  std::uint64_t lost_device_records = 0;
  std::vector<std::string> foreign_cupti_clients;  // other CUPTI clients in the process
  // For each of trace.launches: made while a stream capture was under way (it may have been
  // recorded into a graph, running nothing).
  std::vector<bool> capturing;
  std::map<std::uint64_t, std::string> thread_names;
  // dropped_activity_records: CUPTI's counter plus the records it handed over untimed; nullopt
  // when the counter could not be read.
  RangeTrace trace;
  // For each of trace.launches: the correlation id of the runtime launch a driver launch was made
  // inside on the same thread (CUPTI gives the two one id), else 0. Such a launch is that runtime
  // launch, not another one.
  std::vector<std::uint64_t> enclosing;
};

// Parses a part; `where` names it in errors. Throws CorruptTrace for a part that is not one.
ProcessPart parse_part(std::string_view text, const std::string& where);

// The parts of `dir`, by pid, and the pids that started owing a part (their marker) but wrote
// none: a process killed, or one that left through _exit.
struct PartsFound {
  std::vector<ProcessPart> parts;
  std::vector<long> missing;
};
PartsFound read_parts(const std::filesystem::path& dir);
// Only the pids whose part is missing (nothing parsed): what a wait for the parts polls.
std::vector<long> missing_parts(const std::filesystem::path& dir);

// How launches by PyTorch's autograd engine threads (named pt_autograd_N) are attributed.
enum class EngineThreads {
  // To the ranges open on the one thread of their process that opens push/pop ranges, the thread
  // that called backward() and waits in its ranges meanwhile; refused when several threads do.
  adopt,
  // Like any thread: their kernels are inside only their own ranges (usually outside every range).
  own,
};

struct ProgramOptions {
  RangeOptions ranges;  // the domain and name filters, copies; adoptions are made here
  EngineThreads engine_threads = EngineThreads::adopt;
  long command_pid = 0;
  std::vector<std::string> command;
  std::string implementation = "program";  // every row's implementation (--label)
};

struct ProgramReading {
  std::vector<Result> results;  // one row per range with device work, by domain then name
  ProgramRun program;
};

// Attributes each process's trace and combines the processes' instances of each range. Throws the
// core's range errors (CollectorRecordsLost first), prefixed by the process they came from;
// CuptiUnavailable for a process whose device records could not be collected (another CUPTI
// client, named); LaunchNotFound... as attribute_ranges does; NoRangesFound when no range was
// recorded in any process; LaunchesWithoutKernel when a kernel-launch call left no kernel record.
ProgramReading read_program(const std::vector<ProcessPart>& parts, const ProgramOptions& options);

// The readings of `runs` runs of one command (gpumeter run --repeat), in the order they ran, as
// one: each row's samples are every run's instances, and each run is one pass, so a comparison of
// two such records judges the run-to-run spread (a run's state moves all its instances together:
// its memory placement, the clocks it ran at), not the instances' (docs/program-runs.md). The
// program section sums the runs' instance counts and lists every run's processes and outside
// kernels. Throws ProgramRunsDiffer when a range has device work in some runs and none in others.
ProgramReading merge_program_runs(std::vector<ProgramReading> runs);

// The thread name PyTorch gives its autograd engine's device threads.
bool is_autograd_engine_thread(std::string_view name);

}  // namespace gpumeter
