#pragma once
// The SM clock and throttle state around each sample. A GPU whose clocks are not locked (gpumeter
// never locks them) runs a kernel slower when it throttles; a sample taken then is not wrong, but
// it measured another machine, and a reader must be able to tell.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpumeter {

// What the backend read at one moment: the SM clock and NVML's clock-event ("throttle")
// reasons, a bit mask as nvmlDeviceGetCurrentClocksEventReasons gives it.
struct ClockReading {
  int sm_mhz = 0;
  std::uint64_t throttle_reasons = 0;
};

// A flagged sample is one whose time may be its clock's rather than its work's: compared with
// the row's other samples it ran on a slower machine, by enough to show in a compute-bound time.
// Two things flag it (clock_flagged):
//
// 1. Its SM clock below kClockFlagFraction of the row's reference clock, the highest clock any
//    of the row's samples ran at (what the board gave this work when nothing held it down; a
//    row that ran throttled throughout shows it in its clock range and in any comparison with a
//    row at a higher clock). The fraction lies between the clock drops measured harmless (a
//    few clock steps under the power cap: the same time within a fraction of a percent) and
//    those measured harmful (a compute-bound kernel at its power limit: several percent
//    slower), and it flags a sample taken while the clock came up from idle. A compute-bound
//    time can follow the clock, by up to 5% (1/0.95) for a sample just above the line. The
//    measurements behind the fraction: docs/measured-figures.md, "clock flags".
// 2. The board protecting itself from heat or an electrical limit around it (hardware
//    slowdown, software or hardware thermal slowdown, hardware power brake), whatever its
//    clock: these can cut the clock by any amount.
//
// The software power cap alone is routine, not a flag: a loaded board sets it while holding its
// clock at or a step under the maximum. Where the cap pulls the clock down far enough to matter,
// rule 1 flags the sample. Each row counts the samples it was set around.
//
// A flag is a warning, not a rejection: the sample stays in the statistics and the record, and the
// row's clock summary (ClockSummary) is shown beside the count (docs/rules.md, "statistics beyond
// medians").
inline constexpr double kClockFlagFraction = 0.95;

// A sample's clock state: the lower SM clock and the union of the reasons of the readings just
// before and just after it.
ClockReading around_sample(const ClockReading& before, const ClockReading& after);

// The clock rule alone: `mhz` below kClockFlagFraction of `reference_mhz`.
bool clock_below_reference(double mhz, double reference_mhz);

// The flag (see kClockFlagFraction): the clock below the fraction of the row's reference clock,
// or a flagging reason.
bool clock_flagged(const ClockReading& sample, int reference_mhz);

// A row's clocks as tables show them beside the flag count; computed from the samples'
// readings wherever shown, and recomputed by a record's reader.
struct ClockSummary {
  std::size_t samples = 0;  // readings summarized, one per sample
  int min_mhz = 0;
  double median_mhz = 0;
  int max_mhz = 0;                  // the row's reference clock
  std::size_t flagged = 0;          // clock_flagged against max_mhz
  std::size_t below_reference = 0;  // of all samples, those under the clock rule alone
  // Samples with each slowing reason set around them (NVML's bits; the power cap is routine).
  std::size_t sw_power_cap = 0;
  std::size_t hw_slowdown = 0;
  std::size_t sw_thermal = 0;
  std::size_t hw_thermal = 0;
  std::size_t hw_power_brake = 0;
};

// Throws std::invalid_argument on no readings.
ClockSummary summarize_clocks(const std::vector<ClockReading>& readings);

// Records of schema version 3 counted a sample as flagged under any slowing reason, the power
// cap included, or below the clock of the row's first sample. Their stored counts are checked
// by that rule, so they still read; nothing else uses it.
std::size_t schema_3_flagged_samples(const std::vector<ClockReading>& readings);

// Two rows ran at different clocks, as far as it can change their comparison: by the same rule
// as a sample, the lower median clock below kClockFlagFraction of the higher. A comparison also
// says so when either row has flagged samples (describe() in comparison.hpp).
bool clocks_differ(double a_mhz, double b_mhz);

// "0x4 (SW power cap)": the mask with the names of the bits gpumeter knows.
std::string describe_throttle_reasons(std::uint64_t reasons);

// What a row's flags mean, for a table's note: "F of N samples clock-flagged: F ran below 95% of
// the row's highest SM clock (HIGHEST MHz), down to LOWEST MHz; the SW power cap was set around C
// (routine; not a flag by itself)".
std::string describe_clock_flags(const ClockSummary& clocks, std::size_t n_samples);

}  // namespace gpumeter
