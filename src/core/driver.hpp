#pragma once
// The core's driver (T3, T5, T6): the order of one iteration and of one phase, the same
// for every backend, and the retry of a phase whose records were lost.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "gpumeter/backend/backend.hpp"
#include "gpumeter/backend/trace.hpp"
#include "gpumeter/detail/call.hpp"
#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/ledger.hpp"
#include "gpumeter/detail/sample.hpp"
#include "gpumeter/detail/timestamp_check.hpp"

namespace gpumeter::detail {

// Runs `request.iterations` iterations of `call` as backend.hpp describes and returns the
// backend's Trace. Any error abandons the phase before it propagates.
// With `clocks`, also reads the device's clock before the first iteration and after each one's
// drain (iterations + 1 readings; an empty vector when the backend reads none).
struct PhaseRun {
  Trace trace;
  std::vector<ClockReading> clocks;
  std::size_t fresh_inputs = 0;        // iterations given fresh inputs (Call::prepare)
  std::size_t checked_iterations = 0;  // iterations whose answer was checked (Call::check)
};
// `clocks_from`: the first iteration whose sample is kept (the warm-up's come first): the clock is
// read only around the kept ones (iterations - clocks_from + 1 readings).
PhaseRun run_phase(Backend& backend, const Call& call, const PhaseRequest& request,
                   bool clocks = false, std::size_t clocks_from = 0);

// B11: throws OtherProcessOnDevice naming the processes the probe lists as new on the device
// (EnvironmentProbe::new_device_processes); `when` says at which point of the phase.
inline constexpr std::size_t kMaxProcessCommandChars = 200;
void check_device_processes(EnvironmentProbe& probe, const char* when);

// Runs one phase and attributes it, repeating the whole phase on RecordsLost.
struct AttributedPhase {
  std::vector<Sample> samples;
  // How long each activity of the phase's trace lasted (preparation included): what
  // estimate_tick reads the clock's step from.
  std::vector<Nanos> durations;
  int retries = 0;
  bool drop_counter_live = true;
  // The phase's timestamp check (T14), from its trace; nullopt when the backend has none.
  std::optional<TimestampCheck> timestamp_check;
  // What the records of the phase's last attempt were, with its fresh inputs and checks (B11).
  Ledger ledger;
};
// With `clocks` (measured phases), each sample carries its clock state (B4) when the backend
// could read every reading of the phase.
AttributedPhase run_attributed_phase(Backend& backend, const Call& call, std::size_t iterations,
                                     bool count_copies, bool clocks = false,
                                     std::size_t clocks_from = 0);

// The step of the clock behind `durations`: the largest step in [8, 1024] ns that at least 90%
// of them are a multiple of (within 2 ns, the jitter of CUPTI's conversion of GPU timestamps to
// its own time base) and that they take at least two different multiples of (a set of equal
// durations fits every divisor and tells nothing); else 1. CUPTI records on the H200 come in
// 32 ns steps (544, 576, 608 ns for a 1-block kernel); a host clock fits no step and reads 1.
// Reads at most the first 512 durations, which bounds its cost to about a millisecond.
Nanos estimate_tick(const std::vector<Nanos>& durations);

// The seed of one call's fresh inputs (Call::prepare): 64 bits from the OS's random source, drawn
// per call, so no call can know or compute the seed of another (two calls share one with
// probability 2^-64).
std::uint64_t next_seed();

// The host's monotonic clock in ns: what the driver's check sampling and a run to a target
// precision read elapsed time from.
Nanos steady_ns();

}  // namespace gpumeter::detail
