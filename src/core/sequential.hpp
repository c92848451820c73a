#pragma once
// Passes run until a target precision is reached (precision.hpp): the stop rule and the loop
// that applies it. Internal to the core and its tests; compare() and measure_to_precision()
// drive a backend through it.
#include <cstddef>
#include <functional>
#include <vector>

#include "gpumeter/detail/difference.hpp"
#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/precision.hpp"

namespace gpumeter::detail {

// The rule may stop only after this many rounds (two passes of each implementation a round):
// with two passes a side the spread of pass levels is itself so uncertain that a lucky small
// spread could stop a comparison whose real noise is several times larger.
inline constexpr int kPrecisionMinRounds = 2;
// 64 passes of each implementation: past that, the cap on time is what a user needs, and the
// precision grows only as the square root of the passes.
inline constexpr int kPrecisionMaxRounds = 32;

struct PassRun {
  std::vector<double> samples;  // the pass's readings, ns
  Nanos tick_ns = 1;            // the timestamp step the pass's readings showed
};

// The stop rule reads the spread of pass levels at an upper bound, not at its estimate: a rule
// that stops the first time the estimated width dips under the target stops most often on runs
// whose spread happened to read low, and those then find a difference of the target's size less
// often than the 95% promised (on a synthetic 1-block kernel near its reachable precision, 6 of 8
// such stops found a 5% change). With the spread taken at its one-sided 90% upper bound, a stop
// needs the target met with room to spare while passes are few; the bound tightens as they grow.
inline constexpr double kSpreadBoundZ = -1.2815515655446004;  // the normal's 10% quantile

// The width the stop rule reads for a baseline and a candidate: the difference that a t test at
// the rules' confidence would find with kDetectionPower, from the pooled spread of the pass levels
// (at its upper bound when `bound`) and the degrees of freedom, plus the timestamp step's
// allowance (step_allowance_fraction) relative to the baseline's level. It uses the baseline's
// level (the first implementation, fixed by the user) rather than the shorter side's, so it depends
// on the spread alone and not on which implementation is faster. Throws std::invalid_argument as
// relative_difference() does.
double comparison_width(const PassSamples& baseline, const PassSamples& candidate, Nanos tick_ns,
                        bool bound = true, const IntervalRules& rules = {});

// The relative half-width of one implementation's level: the geometric mean of its pass levels,
// Student's t at the rules' confidence over the passes (the spread at its upper bound when
// `bound`), plus the timestamp step's allowance; exp(h) - 1. Throws std::invalid_argument with
// fewer than 2 passes.
double level_half_width(const PassSamples& passes, Nanos tick_ns, bool bound = true,
                        const IntervalRules& rules = {});

struct SequentialPasses {
  std::vector<PassSamples> passes;  // per implementation, in the order they ran
  std::vector<Nanos> tick_ns;       // per implementation, the largest step seen
  PrecisionOutcome outcome;
};

// Runs rounds of the mirrored order (A B C C B A) until the stop rule says stop: at least
// kPrecisionMinRounds rounds; then after each round, stop when the width (the largest over the
// comparisons with the first implementation, or the level's half-width for one) is at or below
// the target; stop before a round that, at the mean duration of the rounds so far, would end past
// the time cap; stop after kPrecisionMaxRounds. The first round always runs, so there is always
// something to state. run_pass(i) runs one pass of implementation i; now() reads a monotonic
// clock in ns.
SequentialPasses run_to_precision(std::size_t n_implementations,
                                  const std::function<PassRun(std::size_t)>& run_pass,
                                  const std::function<Nanos()>& now, const PrecisionTarget& target);

}  // namespace gpumeter::detail
