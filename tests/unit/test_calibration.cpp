#include "gpumeter/detail/calibration.hpp"

#include <gtest/gtest.h>
#include <cstddef>
#include <limits>

#include "schedule.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

TEST(Calibration, BudgetsAreSeed000s) {
  EXPECT_EQ(kCalibrationRuns, 3u);
  EXPECT_EQ(kMeasureBudget.warmup_ns, 25 * kMillisecond);
  EXPECT_EQ(kMeasureBudget.measure_ns, 100 * kMillisecond);
  EXPECT_EQ(kMeasureBudget.min_iterations, 10u);
  EXPECT_EQ(kMeasureBudget.max_iterations, 200u);
}

// A budget a user gives: positive, at most kMaxBudgetMs; never infinite or NaN, which would not
// fit in nanoseconds (an infinite measure budget once ran as -9223372036854.775 ms).
TEST(Calibration, AUsersBudgetIsPositiveAndBounded) {
  EXPECT_TRUE(budget_ms_valid(0.001));
  EXPECT_TRUE(budget_ms_valid(25));
  EXPECT_TRUE(budget_ms_valid(kMaxBudgetMs));
  EXPECT_FALSE(budget_ms_valid(0));
  EXPECT_FALSE(budget_ms_valid(-1));
  EXPECT_FALSE(budget_ms_valid(kMaxBudgetMs * 1.0001));
  EXPECT_FALSE(budget_ms_valid(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(budget_ms_valid(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_EQ(budget_ns_from_ms(25), 25 * kMillisecond);
  EXPECT_EQ(budget_ns_from_ms(kMaxBudgetMs), 1'000'000 * kMillisecond);
}

TEST(Calibration, IterationsAreBudgetOverEstimate) {
  EXPECT_EQ(iterations_for(100 * kMillisecond, 1 * kMillisecond, 10, 200), 100u);
  EXPECT_EQ(iterations_for(25 * kMillisecond, 1 * kMillisecond, 10, 200), 25u);
  EXPECT_EQ(iterations_for(100 * kMillisecond, 3 * kMillisecond, 10, 200), 33u);  // floor
}

TEST(Calibration, ClampAt200ForShortCalls) {
  EXPECT_EQ(iterations_for(100 * kMillisecond, 2 * kMicrosecond, 10, 200), 200u);
  EXPECT_EQ(iterations_for(100 * kMillisecond, 499 * kMicrosecond, 10, 200), 200u);
  EXPECT_EQ(iterations_for(100 * kMillisecond, 500 * kMicrosecond, 10, 200), 200u);
  EXPECT_EQ(iterations_for(100 * kMillisecond, 501 * kMicrosecond, 10, 200), 199u);
}

TEST(Calibration, ClampAt10ForLongCalls) {
  EXPECT_EQ(iterations_for(100 * kMillisecond, 50 * kMillisecond, 10, 200), 10u);
  EXPECT_EQ(iterations_for(100 * kMillisecond, 10 * kMillisecond, 10, 200), 10u);
  EXPECT_EQ(iterations_for(100 * kMillisecond, 9 * kMillisecond, 10, 200), 11u);
}

TEST(Calibration, ZeroEstimateGivesUpperBound) {
  EXPECT_EQ(iterations_for(100 * kMillisecond, 0, 10, 200), 200u);
}

TEST(Calibration, ComparisonPassHalvesBudgetAndBounds) {
  const Budget pass = comparison_pass_budget(kMeasureBudget);
  EXPECT_EQ(pass.warmup_ns, 12'500'000);
  EXPECT_EQ(pass.measure_ns, 50 * kMillisecond);
  EXPECT_EQ(pass.min_iterations, 5u);
  EXPECT_EQ(pass.max_iterations, 100u);
  EXPECT_EQ(
      iterations_for(pass.measure_ns, 1 * kMicrosecond, pass.min_iterations, pass.max_iterations),
      100u);
  EXPECT_EQ(
      iterations_for(pass.measure_ns, 20 * kMillisecond, pass.min_iterations, pass.max_iterations),
      5u);
}

TEST(Calibration, EstimateIsMedianLatencyOfThreeRuns) {
  // A cold first run (module load) must not set the iteration count.
  const std::vector<Sample> cal{{10, 900, 1, 0}, {10, 100, 1, 0}, {10, 110, 1, 0}};
  EXPECT_EQ(estimate_call(cal), 110);
}

TEST(Schedule, MirroredOrderABCCBA) {
  const auto order = symmetric_schedule(3);
  ASSERT_EQ(order.size(), 6u);
  const std::size_t impl[] = {0, 1, 2, 2, 1, 0};
  const int pass[] = {0, 0, 0, 1, 1, 1};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(order[i].implementation, impl[i]) << i;
    EXPECT_EQ(order[i].pass, pass[i]) << i;
  }
  EXPECT_EQ(symmetric_schedule(1).size(), 2u);
  EXPECT_TRUE(symmetric_schedule(0).empty());
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
