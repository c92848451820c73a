#pragma once
// Range bookkeeping for timing an unmodified program by its NVTX ranges (docs/rules.md, "timing an
// unmodified program"): what a collector injected into the program records (range events,
// launches, device activities), and the per-range device_busy statistics the core makes of it.
// Attribution is by identity, never by device timestamp: a kernel belongs to the ranges open on its
// launching thread when it was launched (matched through its CUPTI correlation id), never to the
// ranges its execution overlaps. Pure bookkeeping: the collector itself lives in a backend.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/backend/trace.hpp"
#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/summary.hpp"

namespace gpumeter {

enum class RangeEventKind {
  push,   // nvtxRangePush: opens a range on the calling thread's stack (of its domain)
  pop,    // nvtxRangePop: closes the innermost open range of that thread and domain
  start,  // nvtxRangeStart: opens a process-wide range, identified by `id`
  end,    // nvtxRangeEnd: closes the process-wide range `id`, from any thread
};

const char* to_string(RangeEventKind kind);

struct RangeEvent {
  RangeEventKind kind = RangeEventKind::push;
  Nanos host_ns = 0;         // the host clock when the call was made
  std::uint64_t thread = 0;  // the calling thread's id
  std::uint64_t id = 0;      // start and end: the range id nvtxRangeStart returned; else unused
  std::string name;          // push and start: the range's message; pop and end carry none
  std::string domain;        // "" for NVTX's default domain
};

// A CUDA API call that can put work on the device (a kernel launch, a graph launch, a copy).
struct LaunchEvent {
  std::uint64_t thread = 0;
  std::uint64_t correlation_id = 0;  // CUPTI's: the device activities it caused carry the same
  Nanos host_ns = 0;
  std::string api;  // "cudaLaunchKernel", "cuGraphLaunch", "cudaMemcpyAsync", ...
};

// Whether an API call by this name always runs a kernel (cudaLaunchKernel, cuLaunchKernelEx,
// cudaLaunchCooperativeKernel, its multi-device form, ...): such a launch with no kernel record is
// suspect, where a copy or an empty graph may legitimately have none.
bool is_kernel_launch_api(std::string_view api);

// Whether an API call by this name copies or fills memory (cudaMemcpyAsync, cudaMemsetAsync,
// cuMemsetD32Async, ...): its device work is a copy or a fill, never a kernel, even when the
// driver does it with a kernel of its own.
bool is_copy_or_fill_api(std::string_view api);

// Everything the collector saw in one run of the program.
struct RangeTrace {
  std::vector<RangeEvent> ranges;  // each thread's events in the order it made them
  std::vector<LaunchEvent> launches;
  // Device activities. Kernels are timed; copies and fills only when RangeOptions::count_copies.
  std::vector<Activity> activities;
  // CUPTI's dropped-record counter; nullopt when it was not proven live (a zero could not be
  // trusted).
  std::optional<std::uint64_t> dropped_activity_records;
  // Range and launch events the collector could not store; nullopt when it did not count them.
  std::optional<std::uint64_t> dropped_host_events;
};

// Launches of `from_thread` made inside [begin_ns, end_ns] (host clock) count toward the ranges
// open on `to_thread` at that moment. For PyTorch's autograd engine: backward runs on an engine
// thread while the thread that called backward() waits inside its ranges.
struct Adoption {
  std::uint64_t from_thread = 0;
  std::uint64_t to_thread = 0;
  Nanos begin_ns = 0;
  Nanos end_ns = 0;
};

struct RangeOptions {
  // Only ranges of this domain are reported ("" is NVTX's default domain); nullopt: every domain.
  std::optional<std::string> domain;
  // Only ranges whose name this pattern (pattern.hpp's bounded subset of ECMAScript's regex)
  // matches somewhere; anchor with ^ and $ for a whole name. nullopt: every name.
  std::optional<std::string> name_regex;
  std::vector<Adoption> adoptions;
  bool count_copies = false;  // copies and fills count toward device_busy and latency too
};

// One opening and closing of a range.
struct RangeInstance {
  std::uint64_t thread = 0;   // the thread that opened it
  bool process_wide = false;  // start/end (covers every thread) rather than push/pop
  Nanos open_ns = 0;          // host clock
  Nanos close_ns = 0;
  // Union of its counted intervals (its kernels', and its copies' and fills' under count_copies);
  // 0 when it counted none.
  Nanos device_busy_ns = 0;
  std::optional<Nanos> latency_ns;  // last end minus first start; nullopt when it counted none
  int n_kernels = 0;                // kernels only: a copy or a fill is never a kernel
  Nanos uncounted_copy_ns = 0;      // union of its copies and fills not counted
};

// Every instance of one range (a domain and a name).
struct RangeStats {
  std::string domain;
  std::string name;
  std::vector<RangeInstance> instances;  // in the order they were opened
  std::size_t n_with_kernels = 0;
  // Over the instances that launched at least one kernel; nullopt when none did (a range with no
  // device work has no device time to spread).
  std::optional<Spread> device_busy;
  std::optional<Spread> latency;
};

// Kernels launched outside every reported range, by launching thread and kernel name: reported,
// never absorbed into a range.
struct OutsideKernels {
  std::uint64_t thread = 0;
  std::string name;
  int n_kernels = 0;
  Nanos total_ns = 0;        // sum of their durations
  Nanos device_busy_ns = 0;  // union of their intervals
};

// A launch for which no kernel record came back. A copy launch may legitimately have none; a
// kernel launch API (kernel_launch_api) should not.
struct LaunchWithoutKernel {
  std::uint64_t thread = 0;
  std::uint64_t correlation_id = 0;
  Nanos host_ns = 0;
  std::string api;
  bool kernel_launch_api = false;
};

struct RangeReport {
  std::vector<RangeStats> ranges;                            // by domain, then name
  std::vector<OutsideKernels> outside;                       // by thread, then name
  std::vector<LaunchWithoutKernel> launches_without_kernel;  // in launch order
};

// Attributes every kernel of `trace` to the range instances open on its launching thread (its
// push/pop stack, the stacks of threads it is adopted by) and to the process-wide start/end ranges
// open when it was launched; a range covers [open, close] of the host clock, both ends included.
// A kernel counts toward every enclosing range. Throws CollectorRecordsLost first (every other
// failure could be its consequence), then CorruptTrace, ConfigError (a bad regex or adoption),
// RangeNotOpen or CorruptTrace (a start id reused while open) in event order, RangeLeftOpen and
// LaunchNotFound; then it returns nothing. Range errors are raised for every range, filtered out or
// not: an unbalanced stack misplaces every range on it.
RangeReport attribute_ranges(const RangeTrace& trace, const RangeOptions& options = {});

// The first check attribute_ranges makes: throws CollectorRecordsLost when the trace's records
// were dropped or its drop counters are unknown. For a caller that reads the trace before
// attributing it (deciding which threads to adopt), so that lost records are still reported first.
void check_collector_records(const RangeTrace& trace);

}  // namespace gpumeter
