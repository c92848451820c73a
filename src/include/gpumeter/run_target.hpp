#pragma once
// What a run measures to, as a user asks for it: a fixed budget (a warm-up and a measurement, in
// milliseconds) or a target precision with its time cap. The rules of those options are written
// here once; every front end reads their text by the rules below (number_rule.hpp's reader, so a
// precision is a fraction, 2% or 0.02, and a cap a duration, 10s, 500ms or bare seconds,
// everywhere) and checks them together by run_target_conflict; option_spec.hpp holds the options
// themselves.
#include <string>

#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/number_rule.hpp"
#include "gpumeter/detail/precision.hpp"

namespace gpumeter {

// The values an option of the run's target may take, in the core's units: from `min` (or above
// it, when min_excluded) to `max`, both finite.
struct TargetRange {
  double min = 0;
  bool min_excluded = false;
  double max = 0;
  // False for NaN.
  constexpr bool contains(double v) const {
    return (min_excluded ? v > min : v >= min) && v <= max;
  }
};

// Each part of a budget, in milliseconds: above 0, at most kMaxBudgetMs (budget_ms_valid).
inline constexpr TargetRange kBudgetMsRange{0, true, kMaxBudgetMs};
// The target precision, as a fraction (0.01 for 1%).
inline constexpr TargetRange kPrecisionTargetRange{kMinPrecisionTarget, false, kMaxPrecisionTarget};
// The time cap of a run to a precision, in seconds.
inline constexpr TargetRange kPrecisionTimeSRange{to_ms(kMinPrecisionTime) / 1e3, false,
                                                  to_ms(kMaxPrecisionTime) / 1e3};

// The same ranges as the rules their options are read by (number_rule.hpp).
inline constexpr NumberRule kBudgetMsRule{kBudgetMsRange.min, kBudgetMsRange.min_excluded,
                                          kBudgetMsRange.max, false, " ms"};
inline constexpr NumberRule kPrecisionTargetRule{kPrecisionTargetRange.min,
                                                 kPrecisionTargetRange.min_excluded,
                                                 kPrecisionTargetRange.max,
                                                 false,
                                                 "",
                                                 NumberKind::fraction};
inline constexpr NumberRule kPrecisionTimeRule{kPrecisionTimeSRange.min,
                                               kPrecisionTimeSRange.min_excluded,
                                               kPrecisionTimeSRange.max,
                                               false,
                                               " s",
                                               NumberKind::duration};

// How a front end names the options of a run's target in its messages: "--budget", "budget".
struct RunTargetNames {
  std::string budget;
  std::string precision;
  std::string max_time;
};

// Why the options given cannot go together: a precision and a budget exclude each other (a run to
// a precision measures until it gets there, or its cap), and a time cap caps a run to a precision
// only. Each flag says whether the user gave the option, not whether it has a value: a front end
// with a default of its own could not refuse a cap given alone.
struct RunTargetConflict {
  std::string option;   // the name (of RunTargetNames) of the option at fault, "" for none
  std::string problem;  // a sentence naming both options, "" when they go together
  bool empty() const { return problem.empty(); }
};
RunTargetConflict run_target_conflict(bool budget, bool precision, bool max_time,
                                      const RunTargetNames& names);

}  // namespace gpumeter
