#include "gpumeter/detail/verdict.hpp"

#include "gpumeter/detail/format.hpp"

#include <gtest/gtest.h>

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

TEST(Sig2, TwoSignificantFigures) {
  EXPECT_EQ(sig2(0.0), 0.0);
  EXPECT_DOUBLE_EQ(sig2(9.96), 10.0);
  EXPECT_DOUBLE_EQ(sig2(1.87), 1.9);
  EXPECT_DOUBLE_EQ(sig2(1234.0), 1200.0);
  EXPECT_DOUBLE_EQ(sig2(0.001234), 0.0012);
  EXPECT_DOUBLE_EQ(sig2(-3.456), -3.5);
  EXPECT_DOUBLE_EQ(sig2(-9.96), -10.0);
  EXPECT_DOUBLE_EQ(sig2(1.5), 1.5);
}

TEST(Sig2, Formatting) {
  EXPECT_EQ(format_sig2(0.0), "0");
  EXPECT_EQ(format_sig2(9.96), "10");
  EXPECT_EQ(format_sig2(1.49), "1.5");
  EXPECT_EQ(format_sig2(1.87), "1.9");
  EXPECT_EQ(format_sig2(0.001234), "0.0012");
  EXPECT_EQ(format_sig2(-3.456), "-3.5");
  EXPECT_EQ(format_sig2(12345.0), "12000");
  EXPECT_EQ(format_sig2(3.0), "3.0");  // the trailing zero is significant
  EXPECT_EQ(format_sig2(0.001), "0.0010");
  EXPECT_EQ(format_sig2(-10.0), "-10");
  EXPECT_EQ(format_significant(1.4649, 3), "1.46");
  EXPECT_EQ(format_significant(1.0, 3), "1.00");
  EXPECT_EQ(format_significant(123456.0, 3), "123000");
}

TEST(Ratio, ResolutionBoundaryFaster) {
  const RatioVerdict at = compare_times(150, 100);
  EXPECT_EQ(at.resolution, Resolution::directional_difference);
  EXPECT_EQ(at.wording, "1.5x faster");
  EXPECT_EQ(at.label, "directional difference");
  const RatioVerdict under = compare_times(149, 100);
  EXPECT_EQ(under.resolution, Resolution::no_measured_difference);
  EXPECT_EQ(under.label, "no measured difference at this precision");
  // Under the resolution no direction is worded: the medians' ratio, candidate over baseline.
  EXPECT_EQ(under.wording, "0.67x the time");
  EXPECT_EQ(compare_times(146, 100).wording, "0.68x the time");
  EXPECT_EQ(compare_times(140, 100).wording, "0.71x the time");
}

TEST(Ratio, ResolutionBoundarySlower) {
  const RatioVerdict at = compare_times(100, 150);
  EXPECT_EQ(at.resolution, Resolution::directional_difference);
  EXPECT_EQ(at.wording, "1.5x slower");
  EXPECT_DOUBLE_EQ(at.speedup, 100.0 / 150.0);
  const RatioVerdict under = compare_times(100, 149);
  EXPECT_EQ(under.resolution, Resolution::no_measured_difference);
  // sig2 would print 1.5x beside "no difference": the figures it takes instead.
  EXPECT_EQ(under.wording, "1.49x the time");
  EXPECT_EQ(compare_times(10000, 14996).wording, "1.4996x the time");
  EXPECT_EQ(compare_times(100, 140).wording, "1.4x the time");  // sig2 where it cannot mislead
}

TEST(Ratio, UnderTheResolutionNoDirectionIsClaimed) {
  // "b is 1.0x slower than a": a direction the rule did not measure.
  for (const double candidate : {100.0, 101.0, 99.0, 130.0, 75.0}) {
    const RatioVerdict v = compare_times(100, candidate);
    EXPECT_EQ(v.resolution, Resolution::no_measured_difference);
    EXPECT_EQ(v.wording.find("slower"), std::string::npos) << v.wording;
    EXPECT_EQ(v.wording.find("faster"), std::string::npos) << v.wording;
  }
  EXPECT_EQ(compare_times(100, 101).wording, "1.0x the time");
}

TEST(Ratio, LargeAndEqual) {
  EXPECT_EQ(compare_times(1000, 100).wording, "10x faster");
  EXPECT_EQ(compare_times(100, 100).wording, "1.0x the time");
  EXPECT_EQ(compare_times(100, 100).resolution, Resolution::no_measured_difference);
  EXPECT_EQ(compare_times(100, 187).wording, "1.9x slower");
  EXPECT_THROW(compare_times(0, 100), std::invalid_argument);
  EXPECT_THROW(compare_times(100, -1), std::invalid_argument);
}

TEST(NullTest, PassesNearFourFailsFarFromIt) {
  EXPECT_TRUE(evaluate_null_test(100, 400).pass);
  EXPECT_TRUE(evaluate_null_test(100, 559).pass);  // 0.3975 off
  EXPECT_FALSE(evaluate_null_test(100, 561).pass);
  EXPECT_TRUE(evaluate_null_test(100, 241).pass);
  EXPECT_FALSE(evaluate_null_test(100, 239).pass);
  // A harness that did not run the work: same time at 4x, which must not pass.
  const NullTestVerdict idle = evaluate_null_test(100, 100);
  EXPECT_FALSE(idle.pass);
  EXPECT_DOUBLE_EQ(idle.observed_ratio, 1.0);
  EXPECT_DOUBLE_EQ(idle.expected_ratio, 4.0);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
