#include "gpumeter/detail/summary.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// Declared work per call: finite and >= 0, else the rate would mean nothing.
TEST(Workload, WorkPerCallIsFiniteAndNotNegative) {
  EXPECT_TRUE(work_per_call_valid(0));
  EXPECT_TRUE(work_per_call_valid(2.0 * 4096 * 4096 * 4096));
  EXPECT_FALSE(work_per_call_valid(-5));
  EXPECT_FALSE(work_per_call_valid(std::numeric_limits<double>::infinity()));
  EXPECT_FALSE(work_per_call_valid(std::numeric_limits<double>::quiet_NaN()));
}

TEST(Quantile, LinearInterpolationBetweenClosestRanks) {
  const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 5.5);
  EXPECT_DOUBLE_EQ(quantile(v, 0.1), 1.9);  // position 0.9
  EXPECT_DOUBLE_EQ(quantile(v, 0.9), 9.1);  // position 8.1
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 10);
  EXPECT_DOUBLE_EQ(quantile({7, 1, 4}, 0.5), 4);  // unsorted input, odd count
  EXPECT_DOUBLE_EQ(quantile({3}, 0.9), 3);
  EXPECT_THROW(quantile({}, 0.5), std::invalid_argument);
}

std::vector<Sample> samples_of(std::initializer_list<Sample> s) {
  return s;
}

TEST(Summarize, MedianSpreadGapAndKernels) {
  const auto s = samples_of({{100, 150, 2, 0}, {200, 260, 3, 0}, {300, 330, 2, 10}});
  const Summary sum = summarize(s, TimingMethod::kernel_records, 1);
  EXPECT_EQ(sum.n_samples, 3u);
  EXPECT_DOUBLE_EQ(sum.device_busy.median_ns, 200);
  EXPECT_DOUBLE_EQ(sum.device_busy.p10_ns, 120);
  EXPECT_DOUBLE_EQ(sum.device_busy.p90_ns, 280);
  EXPECT_DOUBLE_EQ(sum.latency.median_ns, 260);
  EXPECT_DOUBLE_EQ(sum.gap_ns, 60);  // median latency - median busy
  EXPECT_EQ(sum.max_n_kernels, 3);
  EXPECT_EQ(sum.retries, 1);
  EXPECT_DOUBLE_EQ(sum.median_uncounted_copy_ns, 0);
  EXPECT_FALSE(sum.tflops.has_value());
  EXPECT_FALSE(sum.tbs.has_value());
}

TEST(Summarize, UnknownKernelCountStaysUnknown) {
  const auto s = samples_of({{100, 100, std::nullopt, 0}, {100, 100, std::nullopt, 0}});
  EXPECT_FALSE(summarize(s, TimingMethod::device_events, 0).max_n_kernels.has_value());
}

TEST(Summarize, DerivedColumnsUseDeviceBusy) {
  // 2 us busy, 5 us latency: 4e6 flops over 2 us = 2 TFLOP/s (not 0.8 over latency).
  const auto s = samples_of({{2000, 5000, 2, 0}});
  const Summary sum = summarize(s, TimingMethod::kernel_records, 0, Workload{4e6, 8e6},
                                Ceilings{10e12, 4e12, {}, {}});
  ASSERT_TRUE(sum.tflops && sum.tbs);
  EXPECT_DOUBLE_EQ(*sum.tflops, 2.0);
  EXPECT_DOUBLE_EQ(*sum.tbs, 4.0);
  EXPECT_DOUBLE_EQ(*sum.pct_of_peak_flops, 20.0);
  EXPECT_DOUBLE_EQ(*sum.pct_of_peak_bandwidth, 100.0);
  // 100% is the ceiling reached, not passed.
  EXPECT_EQ(sum.above_flops_ceiling, false);
  EXPECT_EQ(sum.above_bandwidth_ceiling, false);
}

// A phase's samples (raw ns) and a row's are stated by one rule: the spread of the same samples
// is the same whichever way they come in, for odd and even counts and for ties.
TEST(Spread, PhaseSamplesAndRowStatisticAgree) {
  const std::vector<std::vector<Nanos>> cases{
      {500, 100, 300},                 // odd count, unsorted
      {400, 100, 300, 200},            // even count: the median between the two middle values
      {100, 100, 100, 900, 900, 100},  // ties, even count
      {7, 7, 7, 7, 7},                 // all equal
      {42}};                           // one sample
  for (const std::vector<Nanos>& ns : cases) {
    std::vector<Sample> rows;
    for (const Nanos x : ns) rows.push_back(Sample{x, x, 1, 0});
    const Spread row = summarize(rows, TimingMethod::kernel_records, 0).device_busy;
    const Spread phase = spread_of(ns);
    std::vector<double> values(ns.begin(), ns.end());
    EXPECT_DOUBLE_EQ(phase.median_ns, row.median_ns);
    EXPECT_DOUBLE_EQ(phase.p10_ns, row.p10_ns);
    EXPECT_DOUBLE_EQ(phase.p90_ns, row.p90_ns);
    EXPECT_DOUBLE_EQ(phase.median_ns, quantile(values, 0.5));
    EXPECT_DOUBLE_EQ(phase.p10_ns, quantile(values, 0.1));
    EXPECT_DOUBLE_EQ(phase.p90_ns, quantile(values, 0.9));
  }
  // Known values, so that both agreeing on a wrong rule fails too.
  const Spread even = spread_of(std::vector<Nanos>{400, 100, 300, 200});
  EXPECT_DOUBLE_EQ(even.median_ns, 250);
  EXPECT_DOUBLE_EQ(even.p10_ns, 130);  // position 0.3 between 100 and 200
  EXPECT_DOUBLE_EQ(even.p90_ns, 370);  // position 2.7 between 300 and 400
  const Spread ties = spread_of(std::vector<Nanos>{100, 100, 100, 900, 900, 100});
  EXPECT_DOUBLE_EQ(ties.median_ns, 100);
  EXPECT_DOUBLE_EQ(ties.p90_ns, 900);
  // No samples give no spread, never a spread of zeros.
  EXPECT_THROW(spread_of(std::vector<Nanos>{}), std::invalid_argument);
}

TEST(Summarize, NoSamplesIsAnError) {
  EXPECT_THROW(summarize({}, TimingMethod::kernel_records, 0), std::invalid_argument);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
