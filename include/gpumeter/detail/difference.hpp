#pragma once
// How much slower or faster one implementation's device time is than another's, with an interval
// that holds what the run can support (docs/comparisons.md).
//
// The units that vary are passes, not samples. Samples within a pass are strongly correlated (a
// kernel's readings come in runs of one level lasting tens of iterations), so a pass's samples are
// not independent draws and an interval from them is too narrow: it claims differences between a
// kernel and itself (docs/measured-figures.md, "passes, not samples"). What this rule uses:
//   - each pass's level: the 10% trimmed mean of its samples (a median of readings quantized
//     to the timestamp step snaps to that grid; a mean of them averages it out, and the
//     trimming keeps one stray reading from moving it);
//   - each implementation's level: the geometric mean of its passes' levels; in the A B B A
//     order a drift that is linear in time cancels from the difference of two such levels;
//   - the spread of pass levels around their implementation's level, pooled over both sides,
//     with (passes - 1) degrees of freedom per side, and Student's t for the interval;
//   - an allowance for the timestamp step added to the interval's half-width (IntervalRules).
//     Kernels start at random phases of the clock, so a reading rounds up or down to the step
//     in proportion and the plain mean of many readings has no rounding bias; the trimming can
//     move it by at most kPassTrim of a step (it may drop the readings of one side of the step).
//     Where some pass's readings all fell on one step, nothing shows the phases were random, and
//     half a step is allowed. Records before schema version 9 allowed half a step always.
#include <cstddef>
#include <initializer_list>
#include <span>
#include <vector>

#include "gpumeter/detail/duration.hpp"

namespace gpumeter {

// Confidence of every interval a device-time comparison states. 99%, not 95%: an implementation
// compared with itself then claims a difference in about 1 comparison of 100, where 95% claims
// about 5 in 100, as measured (docs/measured-figures.md, "Confidence and the timestamp step").
inline constexpr double kDifferenceConfidence = 0.99;
// The confidence of records before schema version 9.
inline constexpr double kDifferenceConfidenceBeforeV9 = 0.95;
// The probability with which a difference of `smallest_detectable` would have been found.
inline constexpr double kDetectionPower = 0.95;
// Each side of a pass's samples trimmed before its mean is taken.
inline constexpr double kPassTrim = 0.10;

// The rules an interval is computed by: the current ones, or those of an older record
// (comparison.hpp's interval_rules_of(schema_version)).
struct IntervalRules {
  double confidence = kDifferenceConfidence;
  // Whether a step's allowance may be kPassTrim of it where every pass's readings fell on two
  // or more values (false: half a step always).
  bool dithered_step = true;
  // Each pass's level is its median, not its trimmed mean: the host clock's rule from schema
  // version 11 (host_clock.hpp). A host call preempted by the OS reads 10 to 1000 times its work,
  // and a pass of 5 calls (a small budget's) trims none of them: one such call set the level of
  // its pass and the interval could bound nothing (a 3x difference caught 76 times in 100 with
  // both cores busy, bench/results/2026-12-07-host-a-vs-a/).
  bool pass_median = false;
  // Two records are judged alike only where every rule is the same (merge joins no others).
  friend bool operator==(const IntervalRules&, const IntervalRules&) = default;
};

struct RelativeDifference {
  // candidate / baseline - 1: 0.028 reads "2.8% slower", -0.2 "20% faster".
  double estimate = 0;
  double low = 0;   // the interval, at `confidence`
  double high = 0;  //
  double confidence = kDifferenceConfidence;
  // The smallest relative difference this run's own noise would have let the rule find with
  // probability kDetectionPower: a "no difference detected" stands up only to this size.
  double smallest_detectable = 0;
  int degrees_of_freedom = 0;
  Nanos timestamp_tick_ns = 1;

  bool slower() const { return low > 0; }
  bool faster() const { return high < 0; }
  bool found() const { return slower() || faster(); }
};

// Samples of each pass of one implementation, in the order the passes ran.
using PassSamples = std::vector<std::vector<double>>;

// Throws std::invalid_argument when a side has fewer than 2 passes (nothing then measures how
// much a pass's level can move), when a pass is empty or its level is not positive, or when
// `tick_ns` < 1 or the rules' confidence is not in (0, 1).
RelativeDifference relative_difference(const PassSamples& baseline, const PassSamples& candidate,
                                       Nanos tick_ns, const IntervalRules& rules = {});

// The fraction of a timestamp step the interval allows for rounding (see above): kPassTrim where
// the rules allow it and every pass of every side read two or more values, else one half.
double step_allowance_fraction(std::initializer_list<std::span<const std::vector<double>>> sides,
                               const IntervalRules& rules);

// The pass levels of one side in logs: their mean, the sum of squared deviations from it and how
// many; the one spread behind a comparison's interval and a precision's width.
struct LogSpread {
  double mean = 0;
  double squares = 0;
  std::size_t n = 0;
};
LogSpread log_spread_of(std::span<const double> logs);

// The timestamp step's allowance in log units: `fraction` of a step (step_allowance_fraction)
// relative to a level of `level_ns` (for two sides, the shorter one's: its rounding weighs most).
double log_step_allowance(Nanos tick_ns, double level_ns, double fraction);

// A pass's level by `rules`: its median (pass_median) or its 10% trimmed mean. Throws
// std::invalid_argument on no values.
double pass_level(const std::vector<double>& pass, const IntervalRules& rules);

// The 10% trimmed mean (kPassTrim): the mean after the lowest and the highest
// floor(0.1 n) values are dropped. Throws std::invalid_argument on no values.
double trimmed_mean(std::vector<double> values, double trim = kPassTrim);

// The noncentrality (difference over its standard error) at which a two-sided t test with `df`
// degrees of freedom at `confidence` rejects with probability `power`: 7.77 for df 2 at 95%
// and 95%, 4.01 for df 10, 3.60 as df grows. The variance's own uncertainty is integrated
// over, not ignored.
double detectable_noncentrality(int df, double confidence, double power);

}  // namespace gpumeter
