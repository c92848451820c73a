#pragma once
// A program timed by its NVTX ranges (`gpumeter run`, docs/program-runs.md): what its record says
// beyond its rows. Each row is one range (the case is the range's name, a `domain` param names a
// domain other than NVTX's default), each sample one instance of it that launched device work;
// this section says what the rows cannot: the command, its processes, every range's instance
// counts, the kernels launched outside every range and the launches no device record came back
// for. Plain data; rules live in ranges.hpp and src/program/program_run.cpp.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/detail/duration.hpp"

namespace gpumeter {

// How a process came to be: the command gpumeter started, a program it (or a child) started, or
// a fork of one of those.
enum class ProcessOrigin { command, exec, fork };
const char* to_string(ProcessOrigin origin);
std::optional<ProcessOrigin> parse_process_origin(std::string_view text);

struct ProgramProcess {
  long pid = 0;
  long parent_pid = 0;
  ProcessOrigin origin = ProcessOrigin::command;
  std::size_t range_events = 0;
  std::size_t launches = 0;
  std::size_t device_records = 0;
  std::size_t run = 1;  // which run of the command (gpumeter run --repeat), from 1
};

// Every reported range with its instances: the row holds only the instances that launched device
// work (an instance with none has no device time).
struct ProgramRange {
  std::string domain;  // "" for NVTX's default domain
  std::string name;
  std::size_t instances = 0;
  std::size_t with_device_work = 0;
};

// Kernels launched outside every reported range, by process, thread and kernel: reported, never
// absorbed into a range.
struct ProgramOutsideKernels {
  long pid = 0;
  std::uint64_t thread = 0;
  std::string thread_name;
  std::string kernel;
  int n_kernels = 0;
  Nanos total_ns = 0;        // sum of their durations
  Nanos device_busy_ns = 0;  // union of their intervals
  std::size_t run = 1;
};

// Launch-type API calls for which no device record came back, by process, thread and API.
struct ProgramLaunchesWithoutWork {
  long pid = 0;
  std::uint64_t thread = 0;
  std::string api;
  std::size_t n = 0;
  // An API that always runs a kernel (cudaLaunchKernel...): a record lost or never made, where a
  // copy API may legitimately do nothing on the device.
  bool kernel_launch_api = false;
  std::size_t run = 1;
};

// The most runs one record holds (--repeat): far more than a comparison needs.
inline constexpr std::size_t kMaxProgramRuns = 1000;

struct ProgramRun {
  std::vector<std::string> command;
  // How many times the command ran (--repeat), one after another. Each run is one pass of every
  // row: a run's state (its memory placement, the clocks it met) moves all its instances
  // together, so runs, not instances, are the units a comparison judges.
  std::size_t runs = 1;
  std::optional<std::string> range_regex;  // --range; nullopt: every name
  std::optional<std::string> domain;       // --domain; nullopt: every domain
  // How launches by PyTorch's autograd engine threads were attributed (a sentence).
  std::string engine_threads;
  std::vector<ProgramProcess> processes;
  std::vector<ProgramRange> ranges;
  std::vector<ProgramOutsideKernels> outside;
  std::vector<ProgramLaunchesWithoutWork> launches_without_work;
};

}  // namespace gpumeter
