#pragma once
// How cost grows with size (docs/phases.md, "Sweeps"): over a numeric axis spanning decades, each
// implementation's log-log growth exponent with its fit quality, per regime where the exponent
// changes, and the crossovers between implementations as brackets of measured sizes. Computed
// from a record's results only.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/total_n.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

// At most three regimes: a fixed cost, a transition and a throughput-bound stretch are the shapes
// seen over a few decades; more would fit noise on sweeps of tens of points.
inline constexpr int kMaxGrowthRegimes = 3;
// Each regime is fitted on at least three points: two fit any line exactly, so a regime of two
// would have no residual to judge its fit by.
inline constexpr int kMinRegimePoints = 3;
// Up to this many points every pair of breakpoints is tried for three regimes; beyond, a grid of
// about this many breakpoints and then every pair around the best: a sweep of 10,000 sizes is
// fitted in milliseconds, where every pair took minutes.
inline constexpr std::size_t kExhaustiveGrowthPoints = 400;
// Adjacent regimes' exponents differ by at least this much. Over a decade of size, 0.2 in the
// exponent is 1.6x in time: a smaller change is none a reader would act on, and one that noise of
// a few percent makes on three points (the criterion alone, searching every split, cut a pure
// power law with 3% noise into more regimes in 17% of draws of 25 points, 38% of 13).
inline constexpr double kMinExponentChange = 0.2;

// The bounds of each label of a regime's exponent, in what a decade of size does to the time.
// Below an exponent of 0.2 the time grows less than 1.6x (10^0.2) over a decade: a fixed cost
// (launch, latency) dominates. From 0.8 to 1.2 it grows 6.3x to 16x, within a factor 1.6 of the 10x
// of proportional growth: throughput-bound. Between the two, neither dominates.
inline constexpr double kFlatExponentBelow = 0.2;
inline constexpr double kSublinearExponentBelow = 0.8;
inline constexpr double kLinearExponentAtMost = 1.2;

// The label of a regime of this exponent: "flat: a fixed cost (launch, latency) dominates",
// "sublinear: ...", "linear: ...", "superlinear: ...", or "decreasing: ..." below -0.2.
std::string growth_label(double exponent);

// A row carrying this param is a re-measurement in reversed order, not another size: sweeps
// leave it out.
inline constexpr const char* kReversedOrderParam = "order";

// A stretch of the axis over which one power law fits: time ~ size^exponent.
struct GrowthRegime {
  double low = 0;  // the first and last measured sizes it covers
  double high = 0;
  int points = 0;
  double exponent = 0;
  // Of the log-log fit over the regime's points: the share of the times' spread the trend
  // explains. 1 when the times are all equal (the flat line explains them exactly); near 0 for a
  // flat regime whose times only scatter, however small the scatter: read max_residual there.
  double r_squared = 0;
  double max_residual = 0;  // largest |log10 residual|: 0.05 is a 12% miss
  std::string label;        // growth_label(exponent)
};

struct Growth {
  RowKey row;        // the case, params other than the axis, the implementation
  std::string axis;  // the param swept
  Statistic statistic = Statistic::device_busy;
  std::vector<double> sizes;          // measured, ascending
  std::vector<double> median_ns;      // each size's median
  std::vector<GrowthRegime> regimes;  // one, or more where the exponent changes
};

// Fits log10(time) = a + b log10(size) by ordinary least squares over the points (taken in
// ascending size), with one to kMaxGrowthRegimes contiguous regimes of at least
// kMinRegimePoints points and two distinct sizes each, sharing no point and no size, adjacent
// exponents at least kMinExponentChange apart; every split is tried, and the number of regimes
// chosen by the Bayesian information criterion
// n ln(SSE/n) + k ln(n), k = 2 per regime + 1 per breakpoint (a regime more must pay for its
// parameters; a tie keeps fewer regimes). Throws std::invalid_argument for fewer than 3 points,
// lengths that differ, a size or time that is not a finite positive number, or fewer than 2
// distinct sizes.
std::vector<GrowthRegime> fit_growth(const std::vector<double>& sizes,
                                     const std::vector<double>& times_ns);

// Every numeric axis of `record` with at least 3 sizes: the growth of each implementation and the
// crossovers between the implementations of a case (each size's comparison decides which leads).
// An axis is a param whose value is a finite positive number (the whole value) in every row of a
// group: the rows of one case and implementation whose other params are equal. Rows left out:
// a re-measurement in reversed order (kReversedOrderParam), a row whose null test failed, a row
// with no samples or no positive median. A group gets a growth when it has at least 3 sizes,
// every row in one statistic, and no size twice (two rows of one size: which to fit is not
// guessed). Crossovers pair the first implementation of each case and other params (in record
// order) with each other one, at every size both measured, decided by the record's comparison of
// the two rows (a resolved difference, either way round), on axes with at least 3 sizes.
struct SweepAnalysis {
  std::vector<Growth> growth;
  std::vector<Crossover> crossovers;
  std::vector<std::string> axes;  // the axes found
  // Rows left out of a sweep because their value of the axis is a number but no size (NaN, 0, a
  // negative), one sentence each naming the row and the value; the other sizes still make one.
  std::vector<std::string> left_out;
};
SweepAnalysis analyze_sweeps(const Record& record);

}  // namespace gpumeter
