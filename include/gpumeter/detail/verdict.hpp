#pragma once
// Reporting rules: the resolution of a wall-clock comparison and the null test.
#include <optional>
#include <string>

namespace gpumeter {

// The evaluation protocol: under 1.5x either way a shared machine cannot tell the two apart.
inline constexpr double kResolutionRatio = 1.5;

enum class Resolution {
  directional_difference,  // >= 1.5x either way; still approximate
  no_measured_difference,  // < 1.5x: "no measured difference at this precision"
};

struct RatioVerdict {
  double speedup = 1;  // baseline time / candidate time (> 1: candidate faster)
  Resolution resolution = Resolution::no_measured_difference;
  // From the resolution on, the factor and its direction: "1.6x faster", "2.0x slower" (two
  // figures). Under it no direction was measured and none is claimed: the candidate's median
  // over the baseline's, "1.0x the time", "0.83x the time", with the figures it takes not to
  // round up to the resolution ("1.496x the time", never "1.5x" labelled no difference).
  std::string wording;
  std::string label;  // "directional difference" / "no measured difference at this precision"
  // Host clock (host_clock.hpp): the widest side's spread of pass levels and the load average
  // the run read, where known; what a verdict of no difference states as its reason.
  std::optional<double> spread;
  std::optional<double> load_average;
  // Judged by host_clock.hpp's rule (the passes, the floor and the means), not by the medians
  // alone (compare_times; records before schema version 11).
  bool by_passes = false;
  // The factor from which a difference is claimed: the 1.5x resolution, or across two runs the
  // host clock's floor for rows read against their yardsticks or for runs not interleaved
  // (host_clock.hpp, kAcrossRunsYardstickRatio, kAcrossRunsResolutionRatio).
  double floor = kResolutionRatio;
  // Across two runs, each row was read against the yardstick timed beside it (host_clock.hpp).
  bool against_yardstick = false;
};

// Compares a candidate's time with a baseline's. The label is decided on the unrounded
// factor, so 1.49x is never promoted to a difference by rounding. Throws
// std::invalid_argument on non-positive times.
RatioVerdict compare_times(double baseline_ns, double candidate_ns);

std::string to_string(Resolution resolution);

// A ratio of times (candidate over baseline) worded with no direction: "1.0x the time", with the
// figures it takes not to round to the resolution ("1.496x the time", never "1.5x").
std::string time_ratio_words(double ratio);

// The null test: scale the work 4x and check the time scales about 4x, within 40%: a harness that
// does not run the work gives about the same time at any scale (a ratio near 1), far outside.
inline constexpr int kNullTestScale = 4;
inline constexpr double kNullTestTolerance = 0.4;

struct NullTestVerdict {
  double observed_ratio = 0;
  double expected_ratio = kNullTestScale;
  bool pass = false;
};

// pass when |ratio - scale| / scale <= tolerance. Throws on non-positive times.
NullTestVerdict evaluate_null_test(double base_ns, double scaled_ns, double scale = kNullTestScale,
                                   double tolerance = kNullTestTolerance);

}  // namespace gpumeter
