#pragma once
// The phases a user waits for (docs/phases.md): beyond the warm call, what a candidate costs from
// a fresh process to N calls. Each phase is measured on its own and keeps its raw samples and its
// statistic: wall-clock phases (synchronized before and after) are compared with the 1.5x rule,
// device-time phases keep device time, and the two are never compared with each other. A phase
// nobody measured reads "not measured", never zero.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/row.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/verdict.hpp"

namespace gpumeter {

enum class Phase {
  process_start,  // spawn to the candidate's first line: interpreter and harness start
  init,           // importing and initialising the framework
  cold_compile,   // compiling with every kernel cache empty
  cached_load,    // loading the compiled module from a warm cache
  conversion,     // converting and copying the inputs into the framework
  first_build,    // the first build of a structure (a BVH, a plan, a graph of the work)
  first_launch,   // the first call, synchronized
  warm_build,     // a later build of the same structure
  refit,          // refitting the structure to changed inputs
  rebuild,        // building it again from scratch, warm
  warm_call,      // the bare kernel's device time: today's measurement
  kernel_call,    // the bare kernel, synchronized wall clock (the wrapper's baseline)
  end_to_end,     // the public call, synchronized wall clock
  graph_capture,  // capturing the call into a CUDA graph
  graph_replay,   // replaying the captured graph
  downstream,     // the next stage, or one whole application iteration
  // From the last synchronize of a fresh process to its exit as the parent sees it (context
  // teardown, interpreter shutdown): a one-shot tool's user waits for it too.
  process_exit,
};

std::string_view to_string(Phase phase);  // "process_start", "cold_compile", ...
std::optional<Phase> parse_phase(std::string_view text);
// What a reader sees: "process start", "cold compile (empty caches)", ...
std::string_view phase_title(Phase phase);

// Where a phase ran: a fresh process with empty kernel caches, a fresh process with warm caches,
// or the measuring process after the candidate was set up.
enum class PhaseSetting { fresh_cold, fresh_cached, warm_process };
std::string_view to_string(PhaseSetting setting);  // "fresh_cold", "fresh_cached", "warm_process"
std::optional<PhaseSetting> parse_phase_setting(std::string_view text);

// One phase of one candidate: every sample of it, in the statistic it was taken in.
struct PhaseReading {
  RowKey row;  // case, params (the size), implementation (the candidate)
  Phase phase = Phase::warm_call;
  Statistic statistic = Statistic::synchronized_wall_clock;
  PhaseSetting setting = PhaseSetting::warm_process;
  std::vector<Nanos> samples_ns;  // one per process (fresh settings) or per call (warm)
  // graph_capture: how many captures the samples took (each a recapture of the same call).
  std::optional<int> recaptures;
};

// The most calls a measured total may take (gpumeter.phases() refuses more): the N of a total.
inline constexpr int kMaxTotalCalls = 100'000;

// A measured total: N calls timed as one loop from a fresh process (spawn, set-up, N calls,
// synchronized), one sample per process. Never a median multiplied.
struct MeasuredTotal {
  RowKey row;
  int calls = 1;
  PhaseSetting setting = PhaseSetting::fresh_cached;
  std::vector<Nanos> samples_ns;
};

// The runtime a candidate launched its work through, resolved before timing (Warp: through its
// own device lookup; a CPU device is refused). Strings are "" where not applicable.
struct CandidateRuntime {
  std::string implementation;  // the candidate's name
  std::string runtime;         // "warp", "cupy", "torch", "jax", "triton", "cuda"
  std::string version;
  std::string device_alias;        // the runtime's own name of the device: "cuda:0"
  std::string arch;                // "sm_90"
  std::string synchronized_by;     // the runtime whose synchronize ended each wall-clock phase
  std::vector<std::string> notes;  // "allocator preallocation off" (JAX), ...
};

// Which statistics and settings a phase may be taken in: the fresh-process phases (process start
// to first launch) only in a fresh process, the rest only warm; device time only for the warm
// call and the graph's replay (the others hold host work a device clock cannot see). A record
// holding any other pairing is refused on reading.
bool phase_allows(Phase phase, PhaseSetting setting);
bool phase_allows(Phase phase, Statistic statistic);

// A wall-clock phase of a candidate read against the same phase and setting of the first
// candidate of its case (case and params), in record order: the first is the one the others are
// read against, as a user lists the reference first. Each fresh process (or warm call) is a
// pass of the host-clock rule (host_clock.hpp, compare_host_readings): no claim the readings'
// spread does not support. Device-time phases and the first candidate's own are not compared.
struct PhaseVersus {
  std::size_t reading = 0;  // index into the phases given
  std::string against;      // the first candidate's name
  // None: a sample of zero on either side, which no ratio can be taken of.
  std::optional<RatioVerdict> verdict;
};
std::vector<PhaseVersus> compare_phases(const std::vector<PhaseReading>& phases);

}  // namespace gpumeter
