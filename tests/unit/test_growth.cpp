// How cost grows with size (docs/phases.md, "Sweeps"): the log-log fit and its regimes on
// synthetic curves with known exponents and breakpoints, its errors, and a record's sweeps with
// two implementations that cross.
#include "gpumeter/detail/growth.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// Sizes 10^from .. 10^to in steps of 10^step.
std::vector<double> decades(double from, double to, double step) {
  std::vector<double> out;
  for (double e = from; e <= to + 1e-9; e += step) out.push_back(std::pow(10.0, e));
  return out;
}

template <typename F>
std::vector<double> times(const std::vector<double>& sizes, F f) {
  std::vector<double> out;
  for (const double x : sizes) out.push_back(f(x));
  return out;
}

// A fixed cost of 10 us up to 1e5 elements, then 0.1 ns an element: the kink at 1e5.
double flat_then_linear(double x) {
  return std::max(1e4, 0.1 * x);
}

TEST(FitGrowth, APowerLawIsOneRegime) {
  const std::vector<double> x = decades(2, 8, 0.5);
  const std::vector<GrowthRegime> r =
      fit_growth(x, times(x, [](double s) { return 3.0 * std::sqrt(s); }));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NEAR(r[0].exponent, 0.5, 1e-9);
  EXPECT_NEAR(r[0].r_squared, 1.0, 1e-9);
  EXPECT_LT(r[0].max_residual, 1e-9);
  EXPECT_EQ(r[0].points, 13);
  EXPECT_DOUBLE_EQ(r[0].low, 1e2);
  EXPECT_DOUBLE_EQ(r[0].high, 1e8);
  EXPECT_EQ(r[0].label, "sublinear: between fixed cost and throughput");
}

TEST(FitGrowth, AFixedCostThenThroughputIsTwoRegimesSplitAtTheKink) {
  const std::vector<double> x = decades(2, 8, 0.5);
  const std::vector<GrowthRegime> r = fit_growth(x, times(x, flat_then_linear));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0].exponent, 0.0, 1e-9);
  EXPECT_NEAR(r[1].exponent, 1.0, 1e-9);
  EXPECT_EQ(r[0].label, "flat: a fixed cost (launch, latency) dominates");
  EXPECT_EQ(r[1].label, "linear: throughput-bound (bandwidth or compute)");
  EXPECT_DOUBLE_EQ(r[0].low, 1e2);
  EXPECT_DOUBLE_EQ(r[1].high, 1e8);
  // The kink lies on both lines: either regime may hold it, and none holds more.
  EXPECT_LE(r[0].high, 1e5);
  EXPECT_GE(r[1].low, 1e5);
  EXPECT_GT(r[1].low, r[0].high);  // no point shared
  EXPECT_EQ(r[0].points + r[1].points, 13);
  EXPECT_DOUBLE_EQ(r[0].r_squared, 1.0);  // all equal: the flat line explains them exactly
  EXPECT_NEAR(r[1].r_squared, 1.0, 1e-9);
}

TEST(FitGrowth, ThreeRegimesWhenTheExponentChangesTwice) {
  // Flat to 1e4, linear to 1e6, then quadratic (the data left a cache).
  const std::vector<double> x = decades(2, 9, 0.5);
  const std::vector<GrowthRegime> r = fit_growth(x, times(x, [](double s) {
                                                   if (s <= 1e4) return 1e4;
                                                   if (s <= 1e6) return s;
                                                   return s * s / 1e6;
                                                 }));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_NEAR(r[0].exponent, 0.0, 1e-9);
  EXPECT_NEAR(r[1].exponent, 1.0, 1e-9);
  EXPECT_NEAR(r[2].exponent, 2.0, 1e-9);
  EXPECT_EQ(r[2].label, "superlinear: the time grows faster than the size");
  EXPECT_LE(r[0].high, 1e4);
  EXPECT_GE(r[1].low, 1e4);
  EXPECT_LE(r[1].high, 1e6);
  EXPECT_GE(r[2].low, 1e6);
}

// Multiplicative noise of up to 3% either way, from a fixed seed.
std::vector<double> noisy(std::vector<double> t, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-0.03, 0.03);
  for (double& v : t) v *= 1.0 + noise(rng);
  return t;
}

TEST(FitGrowth, NoiseOfAFewPercentAddsNoRegime) {
  // Every one of 100 draws: the criterion alone would cut about one in six of these power laws.
  const std::vector<double> x = decades(2, 8, 0.25);
  for (unsigned seed = 0; seed < 100; ++seed) {
    const std::vector<GrowthRegime> one =
        fit_growth(x, noisy(times(x, [](double s) { return 2.0 * s; }), seed));
    ASSERT_EQ(one.size(), 1u) << "seed " << seed;
    EXPECT_NEAR(one[0].exponent, 1.0, 0.01);
    EXPECT_GT(one[0].r_squared, 0.999);
    EXPECT_GT(one[0].max_residual, 0.0);
    EXPECT_LT(one[0].max_residual, std::log10(1.03 / 0.97));

    const std::vector<GrowthRegime> two = fit_growth(x, noisy(times(x, flat_then_linear), seed));
    ASSERT_EQ(two.size(), 2u) << "seed " << seed;
    EXPECT_NEAR(two[0].exponent, 0.0, 0.02);
    EXPECT_NEAR(two[1].exponent, 1.0, 0.02);
    // Within one point of the kink.
    EXPECT_GE(two[0].high, std::pow(10.0, 4.75) * 0.999);
    EXPECT_LE(two[1].low, std::pow(10.0, 5.25) * 1.001);
  }
}

TEST(FitGrowth, ALatencyPlusThroughputCurveReadsFlatTransitionLinear) {
  // 10 us + 0.1 ns an element: smooth, so the middle decades are neither.
  const std::vector<double> x = decades(2, 8, 0.25);
  const std::vector<GrowthRegime> r =
      fit_growth(x, noisy(times(x, [](double s) { return 1e4 + 0.1 * s; }), 5));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].label.substr(0, 4), "flat");
  EXPECT_EQ(r[1].label.substr(0, 9), "sublinear");
  EXPECT_EQ(r[2].label.substr(0, 6), "linear");
  EXPECT_LT(r[0].high, 1e5);  // the two costs are equal at 1e5
  EXPECT_GT(r[2].low, 1e5);
  EXPECT_NEAR(r[2].exponent, 1.0, 0.05);
}

TEST(FitGrowth, SortsThePointsAndKeepsARepeatedSizeInOneRegime) {
  // Each size measured twice, given in descending order.
  std::vector<double> x, t;
  for (const double s : decades(2, 8, 0.5)) {
    for (const double f : {0.99, 1.01}) {
      x.insert(x.begin(), s);
      t.insert(t.begin(), flat_then_linear(s) * f);
    }
  }
  const std::vector<GrowthRegime> r = fit_growth(x, t);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].points % 2, 0);  // both readings of each size on one side
  EXPECT_EQ(r[0].points + r[1].points, 26);
  EXPECT_LT(r[0].high, r[1].low);
}

TEST(FitGrowth, FewPointsAreOneRegime) {
  // Five points cannot hold two regimes of three.
  const std::vector<GrowthRegime> r = fit_growth({1, 10, 100, 1000, 10000}, {5, 5, 5, 5000, 50000});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].points, 5);
  EXPECT_LT(r[0].r_squared, 1.0);
}

TEST(FitGrowth, ABreakpointPaysForItselfToo) {
  // A change of 0.25 in the exponent at the middle of 12 points under +-33% scatter: two regimes
  // fit better, but not by the price of four parameters and a breakpoint (ln 12 each), so the
  // criterion keeps one. Priced at their four parameters alone they would be taken.
  std::vector<double> x, t;
  for (int i = 0; i < 12; ++i) {
    const double e = 0.5 * i;
    x.push_back(std::pow(10.0, e));
    const double trend = i < 6 ? 0.0 : 0.25 * (e - 2.75);
    t.push_back(1000 * std::pow(10.0, trend) * (i % 2 == 1 ? 1.33 : 0.67));
  }
  EXPECT_EQ(fit_growth(x, t).size(), 1u);
}

TEST(FitGrowth, RefusesWhatItCannotFit) {
  EXPECT_THROW(fit_growth({1, 10}, {1, 10}), std::invalid_argument);
  EXPECT_THROW(fit_growth({1, 10, 100}, {1, 10}), std::invalid_argument);
  EXPECT_THROW(fit_growth({1, 10, 0}, {1, 10, 100}), std::invalid_argument);
  EXPECT_THROW(fit_growth({1, 10, 100}, {1, -10, 100}), std::invalid_argument);
  EXPECT_THROW(fit_growth({1, 10, std::nan("")}, {1, 10, 100}), std::invalid_argument);
  EXPECT_THROW(fit_growth({1, 10, 100}, {1, 10, std::numeric_limits<double>::infinity()}),
               std::invalid_argument);
  EXPECT_THROW(fit_growth({5, 5, 5}, {1, 2, 3}), std::invalid_argument);
}

TEST(GrowthLabel, EachBoundBelongsToItsNamedSide) {
  EXPECT_EQ(growth_label(0.19).substr(0, 4), "flat");
  EXPECT_EQ(growth_label(-0.19).substr(0, 4), "flat");
  EXPECT_EQ(growth_label(-0.21).substr(0, 10), "decreasing");
  EXPECT_EQ(growth_label(kFlatExponentBelow).substr(0, 9), "sublinear");
  EXPECT_EQ(growth_label(0.79).substr(0, 9), "sublinear");
  EXPECT_EQ(growth_label(kSublinearExponentBelow).substr(0, 6), "linear");
  EXPECT_EQ(growth_label(kLinearExponentAtMost).substr(0, 6), "linear");
  EXPECT_EQ(growth_label(1.21).substr(0, 11), "superlinear");
}

// A record's sweep: case "sum" over n, implementations a (20 us fixed, then 1 ns an element)
// and b (5 us fixed, then 4 ns an element), each row two passes of CUPTI samples about its
// median, compared as a run compares them.
Result row(const std::string& impl, const std::string& n, double median_ns,
           Params extra = {{"dtype", "f32"}}) {
  Result r;
  r.row = {"sum", extra, impl};
  r.row.params["n"] = n;
  r.measurement.method = TimingMethod::kernel_records;
  for (int pass = 0; pass < 2; ++pass) {
    for (const double f : {0.998, 0.999, 1.0, 1.001, 1.002}) {
      const auto v = static_cast<Nanos>(median_ns * f);
      r.measurement.samples.push_back({v, v, 1, 0});
    }
    r.measurement.pass_sizes.push_back(5);
  }
  r.summary = summarize(r.measurement.samples, r.measurement.method, 0);
  return r;
}

double a_ns(double n) {
  return std::max(20e3, n);
}
double b_ns(double n) {
  return std::max(5e3, 4 * n);
}

const std::vector<std::string> kSizes = {"1000", "3000", "1e4", "30000", "1e5", "1e6"};

Record sweep() {
  Record rec;
  for (const std::string& n : kSizes) {
    const double size = std::stod(n);
    Result a = row("a", n, a_ns(size));
    Result b = row("b", n, b_ns(size));
    // At 1e4 b ran first: the record compares a against b there, and the sign is turned.
    if (n == "1e4") {
      rec.results.push_back(b);
      rec.results.push_back(a);
    } else {
      rec.results.push_back(a);
      rec.results.push_back(b);
    }
  }
  rec.comparisons = compare_results(rec.results);
  return rec;
}

const RowKey kA{"sum", {{"dtype", "f32"}}, "a"};
const RowKey kB{"sum", {{"dtype", "f32"}}, "b"};

TEST(AnalyzeSweeps, GrowthOfEachImplementationAndTheirCrossover) {
  Record rec = sweep();
  // Left out: a re-measurement in reversed order (read, it would be a third sweep), and a row
  // whose null test failed (4x the work took the same time; read, it would be a size in a's).
  for (const std::string n : {"1000", "1e4", "1e5"}) {
    Result reversed = row("a", n, 1e9);
    reversed.row.params[kReversedOrderParam] = "reversed";
    rec.results.push_back(reversed);
  }
  Result null_failed = row("a", "1e7", 1.0e3);
  null_failed.measurement.null_test = NullTestSamples{4, {1000, 1000, 1000}};
  summarize_result(null_failed, Ceilings{});  // its outcome decided, as a run's finish decides it
  rec.results.push_back(null_failed);

  const SweepAnalysis s = analyze_sweeps(rec);
  EXPECT_EQ(s.axes, std::vector<std::string>{"n"});  // dtype is no number
  ASSERT_EQ(s.growth.size(), 2u);
  const Growth& a = s.growth[0];
  EXPECT_EQ(a.row, kA);
  EXPECT_EQ(a.axis, "n");
  EXPECT_EQ(a.statistic, Statistic::device_busy);
  EXPECT_EQ(a.sizes, (std::vector<double>{1e3, 3e3, 1e4, 3e4, 1e5, 1e6}));
  ASSERT_EQ(a.median_ns.size(), 6u);
  for (std::size_t i = 0; i < a.sizes.size(); ++i) {
    EXPECT_NEAR(a.median_ns[i], a_ns(a.sizes[i]), 1.0) << a.sizes[i];
  }
  // Six points: 3 + 3 at most, so a's flat stretch and its linear one are split at 1e4.
  ASSERT_EQ(a.regimes.size(), 2u);
  EXPECT_NEAR(a.regimes[0].exponent, 0.0, 1e-3);
  EXPECT_EQ(a.regimes[0].high, 1e4);
  EXPECT_GT(a.regimes[1].exponent, 0.8);
  EXPECT_EQ(s.growth[1].row, kB);

  // b leads at 3000 (12 us against 20), a at 1e4 (20 us against 40), each decided by the
  // record's comparison (at 1e4, of a against b): the bracket is [3000, 1e4], and nothing
  // crosses again.
  ASSERT_EQ(s.crossovers.size(), 1u);
  const Crossover& c = s.crossovers[0];
  EXPECT_TRUE(c.resolved);
  EXPECT_EQ(c.first, kB);
  EXPECT_EQ(c.second, kA);
  EXPECT_EQ(c.low, 3e3);
  EXPECT_EQ(c.high, 1e4);
  EXPECT_EQ(c.axis, "n");
  EXPECT_EQ(c.setting, std::nullopt);
  EXPECT_EQ(c.statistic, Statistic::device_busy);
}

TEST(AnalyzeSweeps, ThePointsTheRecordDidNotCompareWidenTheBracket) {
  // Without the comparisons at 3000 and 1e4 the medians still change order there, but the
  // leaders are decided only at 1000 (b) and 30000 (a).
  Record rec = sweep();
  std::erase_if(rec.comparisons, [](const Comparison& c) {
    const std::string n = c.baseline.params.at("n");
    return n == "3000" || n == "1e4";
  });
  const SweepAnalysis s = analyze_sweeps(rec);
  ASSERT_EQ(s.crossovers.size(), 1u);
  EXPECT_TRUE(s.crossovers[0].resolved);
  EXPECT_EQ(s.crossovers[0].low, 1e3);
  EXPECT_EQ(s.crossovers[0].high, 3e4);
  EXPECT_EQ(s.crossovers[0].first, kB);
}

TEST(AnalyzeSweeps, NoDifferenceDetectedDecidesNothing) {
  // c is a at the two smallest sizes (the record detects no difference there) and twice as fast
  // from 1e4 on: c never falls behind, so nothing crosses.
  Record rec;
  for (const std::string& n : kSizes) {
    const double size = std::stod(n);
    rec.results.push_back(row("a", n, a_ns(size)));
    rec.results.push_back(row("c", n, size < 1e4 ? a_ns(size) : a_ns(size) / 2));
  }
  rec.comparisons = compare_results(rec.results);
  ASSERT_FALSE(rec.comparisons.at(0).difference->found());
  const SweepAnalysis s = analyze_sweeps(rec);
  EXPECT_EQ(s.growth.size(), 2u);
  EXPECT_TRUE(s.crossovers.empty());
}

TEST(AnalyzeSweeps, AGroupWithASizeTwiceIsNotGuessedAt) {
  Record rec = sweep();
  rec.results.push_back(row("a", "1000.0", 25e3));  // 1000 again, spelled otherwise
  rec.comparisons = compare_results(rec.results);
  const SweepAnalysis s = analyze_sweeps(rec);
  ASSERT_EQ(s.growth.size(), 1u);
  EXPECT_EQ(s.growth[0].row, kB);
  EXPECT_TRUE(s.crossovers.empty());  // a's sweep is the pair's baseline
}

TEST(AnalyzeSweeps, EachSliceOfOtherParamsAndEachAxis) {
  // Two numeric axes, m and n, on a 3 x 3 grid of one implementation: each row of the grid is a
  // growth over n, each column one over m.
  Record rec;
  for (const std::string m : {"1", "2", "4"}) {
    for (const std::string n : {"10", "100", "1000"}) {
      Result r = row("a", n, std::stod(m) * std::stod(n) * 100, {{"m", m}});
      rec.results.push_back(r);
    }
  }
  const SweepAnalysis s = analyze_sweeps(rec);
  EXPECT_EQ(s.axes, (std::vector<std::string>{"m", "n"}));
  ASSERT_EQ(s.growth.size(), 6u);
  EXPECT_EQ(s.growth[0].axis, "m");
  EXPECT_EQ(s.growth[0].row.params, (Params{{"n", "10"}}));
  EXPECT_NEAR(s.growth[0].regimes.at(0).exponent, 1.0, 1e-3);
  EXPECT_EQ(s.growth[3].axis, "n");
  EXPECT_EQ(s.growth[3].row.params, (Params{{"m", "1"}}));
  EXPECT_TRUE(s.crossovers.empty());
}

TEST(AnalyzeSweeps, TwoSizesOrAWordAreNoAxis) {
  Record rec;
  // a: two sizes. b: three, but one row's n is not a number as a whole: n is no axis of b's.
  rec.results = {row("a", "10", 100),         row("a", "100", 1000),
                 row("b", "10", 100, {}),     row("b", "100", 1000, {}),
                 row("b", "1000", 10000, {}), row("b", "64KiB", 5000, {})};
  const SweepAnalysis s = analyze_sweeps(rec);
  EXPECT_TRUE(s.growth.empty());
  EXPECT_TRUE(s.axes.empty());
}

// A number that is no size (NaN, 0, a negative) leaves its row out by name: the eleven valid
// sizes are still a sweep (one such row dropped the whole analysis).
TEST(AnalyzeSweeps, ARowWhoseSizeIsNoSizeIsLeftOutByName) {
  Record rec;
  for (int i = 0; i < 11; ++i) {
    const double n = std::pow(10.0, 2 + 0.5 * i);
    rec.results.push_back(row("a", format_shortest(n), a_ns(n), {}));
  }
  for (const std::string bad : {"nan", "0", "-5"}) rec.results.push_back(row("a", bad, 1e4, {}));
  const SweepAnalysis s = analyze_sweeps(rec);
  ASSERT_EQ(s.growth.size(), 1u);
  EXPECT_EQ(s.growth[0].sizes.size(), 11u);
  EXPECT_EQ(s.axes, std::vector<std::string>{"n"});
  ASSERT_EQ(s.left_out.size(), 3u);
  EXPECT_EQ(s.left_out[0],
            "sum / a (n=nan): n=nan is not a size (a finite positive number), so the row is left "
            "out of the sweep over n");
  EXPECT_NE(s.left_out[1].find("n=0 is not a size"), std::string::npos) << s.left_out[1];
  EXPECT_NE(s.left_out[2].find("n=-5 is not a size"), std::string::npos) << s.left_out[2];
}

// Past kExhaustiveGrowthPoints the three-regime search is bounded (a grid of breakpoints, then
// every pair around the best): 10,000 sizes with two kinks are still read as three regimes split
// at the kinks, with the exact exponents.
TEST(FitGrowth, TenThousandSizesAreThreeRegimesSplitAtTheKinks) {
  std::vector<double> x;
  for (int i = 0; i < 10'000; ++i) x.push_back(std::pow(10.0, 2 + 7.0 * i / 9'999));
  const std::vector<GrowthRegime> r = fit_growth(x, times(x, [](double s) {
                                                   if (s <= 1e4) return 1e4;
                                                   if (s <= 1e6) return s;
                                                   return s * s / 1e6;
                                                 }));
  // Fits better than the criterion's floor (an rms residual of 0.02%) are ties: a split a few
  // points from a kink, whose misfit is below it, may be the one kept.
  ASSERT_EQ(r.size(), 3u);
  EXPECT_NEAR(r[0].exponent, 0.0, 1e-9);
  EXPECT_NEAR(r[1].exponent, 1.0, 1e-3);
  EXPECT_NEAR(r[2].exponent, 2.0, 1e-3);
  EXPECT_NEAR(std::log10(r[1].low), 4.0, 0.01);
  EXPECT_NEAR(std::log10(r[2].low), 6.0, 0.01);
  EXPECT_EQ(r[0].points + r[1].points + r[2].points, 10'000);
}

// On a curve of 1,000 points with 3% noise the bounded search still finds both kinks.
TEST(FitGrowth, TheBoundedSearchFindsTheKinksOfANoisyCurve) {
  std::vector<double> x;
  for (int i = 0; i < 1'000; ++i) x.push_back(std::pow(10.0, 2 + 7.0 * i / 999));
  const std::vector<double> t =
      noisy(times(x, [](double s) { return s <= 1e4   ? 1e4
                                           : s <= 1e6 ? s
                                                      : s * s / 1e6; }), 7);
  const std::vector<GrowthRegime> r = fit_growth(x, t);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_NEAR(r[0].exponent, 0.0, 0.02);
  EXPECT_NEAR(r[1].exponent, 1.0, 0.02);
  EXPECT_NEAR(r[2].exponent, 2.0, 0.02);
  EXPECT_NEAR(std::log10(r[1].low), 4.0, 0.05);
  EXPECT_NEAR(std::log10(r[2].low), 6.0, 0.05);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
