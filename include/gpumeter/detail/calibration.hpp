#pragma once
// How many iterations a phase runs: calibrated to a time budget, then the same count in every pass
// (docs/rules.md, "calibration and budgets").
#include <cstddef>
#include <vector>

#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/sample.hpp"

namespace gpumeter {

struct Budget {
  Nanos warmup_ns;
  Nanos measure_ns;
  std::size_t min_iterations;
  std::size_t max_iterations;
};

// The kernel-timing method (docs/rules.md): 3 calls estimate one; 25 ms of warm-up and 100 ms of
// measurement, clamped to [10, 200] iterations, so short ops get more samples and long ops do not
// run 200 times.
inline constexpr std::size_t kCalibrationRuns = 3;
inline constexpr Budget kMeasureBudget{25 * kMillisecond, 100 * kMillisecond, 10, 200};

// A warm-up or measurement budget a user gives, in milliseconds, must be a positive number of at
// most kMaxBudgetMs (about 17 minutes for one phase). A longer one is a mistake, and far longer
// ones do not fit in integer nanoseconds: an infinite budget would turn negative.
inline constexpr double kMaxBudgetMs = 1e6;
bool budget_ms_valid(double ms);
// A budget in milliseconds as the phase's nanoseconds; budget_ms_valid(ms) is the caller's check.
inline Nanos budget_ns_from_ms(double ms) {
  return static_cast<Nanos>(ms * 1e6);
}

// One pass of an A B C C B A comparison: the budget and both bounds halved, so that the two
// passes together take about what one measurement takes (the order cancels drift; it is not
// meant to add samples).
Budget comparison_pass_budget(const Budget& whole);

// budget / estimate, clamped to [lo, hi]. A zero or negative estimate gives hi.
std::size_t iterations_for(Nanos budget_ns, Nanos estimate_ns, std::size_t lo, std::size_t hi);

// The estimate of one call from the calibration samples: the median latency (the longest
// span the call occupies the device, so the budget is not overrun).
Nanos estimate_call(const std::vector<Sample>& calibration);

}  // namespace gpumeter
