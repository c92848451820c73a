#pragma once
// How cost grows with size (docs/phases.md, "Sweeps"): over a numeric axis spanning decades, each
// implementation's log-log growth exponent with its fit quality, per regime where the exponent
// changes, and the crossovers between implementations as brackets of measured sizes. Computed
// from a record's results only.
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/record.hpp"
#include "gpumeter/total_n.hpp"

namespace gpumeter {

// A stretch of the axis over which one power law fits: time ~ size^exponent.
struct GrowthRegime {
  double low = 0;  // the first and last measured sizes it covers
  double high = 0;
  int points = 0;
  double exponent = 0;
  double r_squared = 0;     // of the log-log fit over the regime's points
  double max_residual = 0;  // largest |log10 residual|: 0.05 is a 12% miss
  std::string label;        // "flat: a fixed cost dominates", "linear", ...
};

struct Growth {
  RowKey row;        // the case, params other than the axis, the implementation
  std::string axis;  // the param swept
  Statistic statistic = Statistic::device_busy;
  std::vector<double> sizes;          // measured, ascending
  std::vector<double> median_ns;      // each size's median
  std::vector<GrowthRegime> regimes;  // one, or more where the exponent changes
};

// Fits log(time) = a + b log(size) over the points, with one to kMaxGrowthRegimes contiguous
// regimes of at least kMinRegimePoints points each, the number chosen by the Bayesian
// information criterion (a regime more must pay for its parameters). Throws
// std::invalid_argument for fewer than 3 points or a size or time that is not positive.
std::vector<GrowthRegime> fit_growth(const std::vector<double>& sizes,
                                     const std::vector<double>& times_ns);

// Every numeric axis of `record` with at least 3 sizes: the growth of each implementation and the
// crossovers between the implementations of a case (each size's comparison decides which leads).
struct SweepAnalysis {
  std::vector<Growth> growth;
  std::vector<Crossover> crossovers;
  std::vector<std::string> axes;  // the axes found
};
SweepAnalysis analyze_sweeps(const Record& record);

}  // namespace gpumeter
