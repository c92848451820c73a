#pragma once
// The rule that checks a backend's timestamp unit against the device's own clock (T14): probe
// kernels spin for a set time on the GPU's %globaltimer (nanoseconds, the device's own reading)
// and write their start and end; the backend's records of the same kernels must agree. The
// backend launches the probes and reads both; this rule decides what they say.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/activity.hpp"
#include "gpumeter/duration.hpp"
#include "gpumeter/timestamp_check.hpp"

namespace gpumeter::detail {

// One probe kernel: how long it ran by its own stamps, and how long the backend's record of
// it lasted, in the backend's units.
struct ClockProbe {
  Nanos own_ns = 0;
  Nanos reported = 0;
};

// Every phase: a short and a long probe before the first iteration, a long one after the last.
// The pair gives the slope of reported against own time (a kernel's fixed start-up, about
// 0.7 us on the H200, cancels); the last probe shows that the unit did not change during the
// phase. 18 us apart, the pair resolves the slope to about 0.4% (two 32 ns ticks of CUPTI's
// clock over 18 us), well inside the tolerance; the three cost about 42 us of device time and
// three launches per phase, outside every sample.
inline constexpr Nanos kPhaseProbeShortNs = 2 * kMicrosecond;
inline constexpr Nanos kPhaseProbeLongNs = 20 * kMicrosecond;
// A slope within 3% of 1 is nanoseconds: 7 times the pair's resolution, and far from every
// other unit a clock is likely to be kept in (TSC ticks at 1 to 4 per ns, microseconds, 100 ns
// ticks). A clock off by less would not be caught; none is known.
inline constexpr double kUnitTolerance = 0.03;

// When a phase's unit is not nanoseconds, its scale is measured on its own: two pairs of probes
// 1 ms apart, each pair's slope resolved to about 0.005% (two ticks of the foreign clock over
// 1 ms). The two slopes must agree within 0.05% (ten times that) for the scale to be trusted,
// and with the phase's own slope within kUnitTolerance; about 2.2 ms of device time, spent only
// when a conversion is needed.
inline constexpr Nanos kScaleProbeShortNs = 50 * kMicrosecond;
inline constexpr Nanos kScaleProbeLongNs = 1050 * kMicrosecond;
inline constexpr double kScaleAgreement = 0.0005;

enum class UnitFinding {
  nanoseconds,       // the slope is 1 within kUnitTolerance, the same at the phase's end
  other_unit,        // the same unit throughout, but not nanoseconds: convert with a scale
  changed_in_phase,  // the last probe disagrees with the first two: the clock changed
  probe_failed,      // a probe with no duration: nothing to judge by
};

struct UnitJudgement {
  UnitFinding finding = UnitFinding::probe_failed;
  double slope = 0;  // reported units per own ns, from the first two probes
};

// Reported units per ns between two probes of different lengths; 0 when they are too close to
// tell (the same own duration).
double probe_slope(const ClockProbe& shorter, const ClockProbe& longer);

// The phase's three probes, in the order they ran.
UnitJudgement judge_phase_probes(const ClockProbe& first_short, const ClockProbe& first_long,
                                 const ClockProbe& last_long);

// The scale of the foreign unit from the calibration's (short, long) pairs, when they agree
// with each other within kScaleAgreement and with the phase's slope within kUnitTolerance;
// nullopt otherwise (not a scale gpumeter can stand behind).
std::optional<double> reliable_scale(const std::vector<ClockProbe>& shorts,
                                     const std::vector<ClockProbe>& longs, double phase_slope);

// Converts every activity of `trace` from `scale` units per ns to ns, keeping the first
// activity's start as the origin (only differences are ever read), and notes the conversion
// in trace.timestamp_unit.
void convert_timestamps(Trace& trace, double scale);

// "a probe kernel that ran 20000 ns by the GPU's own clock lasted 42013 units in CUPTI's
// records (2.1 units per ns)": the evidence, for an error message.
std::string describe_probe(const ClockProbe& probe);

}  // namespace gpumeter::detail
