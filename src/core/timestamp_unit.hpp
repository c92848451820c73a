#pragma once
// The rule that checks a backend's timestamp unit against the device's own clock (T14): probe
// kernels spin on the GPU's %globaltimer (nanoseconds, the device's own reading) and write the
// readings at their start and end; the backend's records of the same kernels must agree. The
// backend launches the probes and reads both; this rule decides what they say.
#include <string>

#include "gpumeter/backend/trace.hpp"
#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/timestamp_check.hpp"

namespace gpumeter::detail {

// One probe kernel: its first and last %globaltimer readings, and the start and end of the
// backend's record of it, in the backend's units.
struct ClockProbe {
  Nanos own_start = 0;
  Nanos own_end = 0;
  Nanos reported_start = 0;
  Nanos reported_end = 0;
  Nanos own_ns() const { return own_end - own_start; }
  Nanos reported() const { return reported_end - reported_start; }
};

// Every phase: one probe before the first iteration and one after the last. The unit is the
// slope of the records' starts and ends against the probes' own readings, from the first probe
// to the second: a kernel's start-up (between its record's start and its first instruction)
// varies by up to about 1.2 us from launch to launch on the H200 (0.67 to 1.86 us seen), so a
// slope read across one kernel of 20 us would be off by 6%, while across at least 1 ms it is off
// by at most 0.25% (and 0.003% across a measured phase's 100 ms). The second probe waits until
// 1 ms after the first began when the phase is shorter.
inline constexpr Nanos kPhaseProbeNs = 20 * kMicrosecond;
inline constexpr Nanos kMinProbeSpanNs = 1 * kMillisecond;
// A slope within 2% of 1 is nanoseconds: 8 times the worst error of the slope over 1 ms, and far
// from any other unit a clock is likely to be kept in (TSC ticks at 1 to 4 per ns, microseconds,
// 100 ns ticks). A clock off by less would pass unconverted; none is known.
inline constexpr double kUnitTolerance = 0.02;
// Each probe's own record, read in the slope's unit, must last what the probe measured itself,
// give or take its start-up: 3 us, beyond the 1.9 us of start-up seen. A clock that changed
// between the probes by more than 3 us in 20 us (15%) fails this; PyTorch's profiler's clock
// (2.1x) fails it by a factor of ten. A smaller change inside one phase would not be seen.
inline constexpr Nanos kProbeStartupAllowanceNs = 3 * kMicrosecond;

enum class UnitFinding {
  nanoseconds,       // the slope is 1 within kUnitTolerance, and each probe agrees with it
  other_unit,        // one unit throughout, not nanoseconds: convert by the slope
  changed_in_phase,  // a probe disagrees with the slope: the unit changed during the phase
  probe_failed,      // a probe with no duration, or probes too close to judge by
};

struct UnitJudgement {
  UnitFinding finding = UnitFinding::probe_failed;
  double slope = 0;  // the backend's units per ns over the phase
};

// The phase's two probes, in the order they ran.
UnitJudgement judge_phase_probes(const ClockProbe& first, const ClockProbe& last);

// Converts every activity of `trace` from `scale` units per ns to ns, keeping the first
// activity's start as the origin (only differences are ever read), and notes the conversion
// in trace.timestamp_unit.
void convert_timestamps(Trace& trace, double scale);

// "a probe kernel that ran 20000 ns by the GPU's own clock lasted 42013 units in CUPTI's
// records (2.1 units per ns)": the evidence, for an error message.
std::string describe_probe(const ClockProbe& probe);

}  // namespace gpumeter::detail
