#pragma once
// Reporting rules of the evaluation protocol (SPEC P5, P6).
#include <cstdint>
#include <string>
#include <vector>

namespace gpumeter {

// Two significant figures. sig2(0) == 0; the sign is kept; 9.96 -> 10.
double sig2(double value);
// `digits` significant figures as text, a significant trailing zero kept: 1.5, 10, 3.0,
// 0.0012, -3.4; integers from 100 up.
std::string format_significant_figures(double value, int digits);
// sig2 as text: format_significant_figures(value, 2).
std::string format_sig2(double value);

// Seed 003: under 1.5x either way a shared machine cannot tell the two apart.
inline constexpr double kResolutionRatio = 1.5;

enum class Resolution {
  directional_difference,  // >= 1.5x either way; still approximate
  no_measured_difference,  // < 1.5x: "no measured difference at this precision"
};

struct RatioVerdict {
  double speedup = 1;  // baseline time / candidate time (> 1: candidate faster)
  Resolution resolution = Resolution::no_measured_difference;
  // "1.6x faster", "2.0x slower": sig2 of the factor, or 3 figures where sig2 would round a
  // factor under the resolution up to it (1.46x, never a "1.5x" labelled no difference).
  std::string wording;
  std::string label;  // "directional difference" / "no measured difference at this precision"
};

// Compares a candidate's time with a baseline's. The label is decided on the unrounded
// factor, so 1.49x is never promoted to a difference by rounding. Throws
// std::invalid_argument on non-positive times.
RatioVerdict compare_times(double baseline_ns, double candidate_ns);

std::string to_string(Resolution resolution);

// B4 / P5: what the raw samples support beyond the 1.5x resolution. A percentile bootstrap
// of median(baseline) / median(candidate), resampling each side's samples with replacement.
// Deterministic for a given seed, so a report re-rendered from a record reads the same.
struct SpeedupInterval {
  double low = 0;
  double high = 0;
  double confidence = 0;
  int resamples = 0;
};
inline constexpr double kIntervalConfidence = 0.95;
inline constexpr int kBootstrapResamples = 2000;  // percentile ends stable to ~1% of width
SpeedupInterval bootstrap_speedup_interval(const std::vector<double>& baseline,
                                           const std::vector<double>& candidate,
                                           double confidence = kIntervalConfidence,
                                           int resamples = kBootstrapResamples,
                                           std::uint64_t seed = 1);

// The finer statement P5 allows under 1.5x: which way, when the interval excludes 1.
// Empty when the interval straddles 1 (the samples support nothing finer).
std::string finer_statement(const SpeedupInterval& interval);

// P6: scale the work k times and check the time scales ~k times.
inline constexpr double kNullTestScale = 4.0;
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
