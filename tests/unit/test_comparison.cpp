// Comparisons of a case's implementations from results only: which rule applies to which
// statistic, the words a reader sees first, and what is refused.
#include "gpumeter/comparison.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "gpumeter/record.hpp"
#include "gpumeter/summary.hpp"
#include "gpumeter/table.hpp"

namespace gpumeter {
namespace {

// A result of two passes whose samples are `passes` (device_busy = latency).
Result row(const std::string& c, const std::string& impl, TimingMethod method,
           std::vector<std::vector<Nanos>> passes, Params params = {}, Nanos tick = 1) {
  Result r;
  r.row = {c, std::move(params), impl};
  r.measurement.method = method;
  r.measurement.timestamp_tick_ns = tick;
  for (const auto& pass : passes) {
    for (Nanos b : pass) r.measurement.samples.push_back({b, b, 1, 0});
    r.measurement.pass_sizes.push_back(pass.size());
  }
  r.summary = summarize(r.measurement.samples, method, 0);
  return r;
}

TEST(Comparison, DeviceTimeIsAPercentWithItsInterval) {
  // 20 us and 20.56 us with a little pass-to-pass spread: 2.8% slower, found.
  const std::vector<Result> rs{
      row("copy", "naive", TimingMethod::cupti, {{20000, 20010, 19990}, {20020, 20030, 20010}}),
      row("copy", "tiled", TimingMethod::cupti, {{20560, 20570, 20550}, {20580, 20590, 20570}})};
  const std::vector<Comparison> c = compare_results(rs);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].rule, ComparisonRule::relative_difference);
  EXPECT_EQ(c[0].baseline.implementation, "naive");
  EXPECT_EQ(c[0].candidate.implementation, "tiled");
  ASSERT_TRUE(c[0].difference);
  EXPECT_TRUE(c[0].difference->slower());
  EXPECT_FALSE(c[0].ratio.has_value());
  const std::string text = describe(c[0]);
  EXPECT_EQ(text.rfind("tiled is 2.8% slower than naive (95% interval ", 0), 0u) << text;
  EXPECT_NE(text.find("; device_busy)"), std::string::npos) << text;
}

TEST(Comparison, NoDifferenceSaysHowLargeOneWouldHaveBeenSeen) {
  const std::vector<Result> rs{row("k", "a", TimingMethod::cupti, {{1000, 1001}, {1003, 1002}}),
                               row("k", "b", TimingMethod::cupti, {{1002, 1001}, {1001, 1003}})};
  const Comparison c = compare_results(rs).at(0);
  ASSERT_TRUE(c.difference);
  EXPECT_FALSE(c.difference->found());
  EXPECT_GT(c.difference->smallest_detectable, 0);
  const std::string text = describe(c);
  EXPECT_EQ(text.rfind("no difference detected between b and a (a difference larger than ", 0), 0u)
      << text;
  EXPECT_NE(text.find("would have been seen"), std::string::npos) << text;
}

TEST(Comparison, LargeDifferencesReadAsFactors) {
  const std::vector<Result> rs{row("gemm", "naive", TimingMethod::cupti, {{300, 301}, {302, 300}}),
                               row("gemm", "tiled", TimingMethod::cupti, {{100, 101}, {100, 102}})};
  const std::string text = describe(compare_results(rs).at(0));
  EXPECT_EQ(text.rfind("tiled is 3.0x faster than naive (95% interval ", 0), 0u) << text;
}

TEST(Comparison, WallClockKeepsTheResolutionRuleAndSaysSo) {
  const std::vector<Result> rs{
      row("sum", "one-chain", TimingMethod::host_wall, {{300, 310}, {290, 305}}),
      row("sum", "four-chains", TimingMethod::host_wall, {{100, 105}, {95, 101}}),
      row("sum", "tuned", TimingMethod::host_wall, {{250, 252}, {251, 249}})};
  const std::vector<Comparison> c = compare_results(rs);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].rule, ComparisonRule::resolution);
  ASSERT_TRUE(c[0].ratio);
  EXPECT_EQ(c[0].ratio->resolution, Resolution::directional_difference);
  EXPECT_EQ(describe(c[0]).rfind("four-chains is 3.0x faster than one-chain (directional "
                                 "difference; synchronized_wall_clock, rule: 1.5x resolution)",
                                 0),
            0u)
      << describe(c[0]);
  // Under 1.5x: no measured difference at this precision, and the passes' finer statement.
  EXPECT_EQ(c[1].ratio->resolution, Resolution::no_measured_difference);
  const std::string finer = describe(c[1]);
  EXPECT_NE(finer.find("tuned is 1.2x faster than one-chain (no measured difference at this "
                       "precision; the passes support a finer statement: "),
            std::string::npos)
      << finer;
}

TEST(Comparison, DifferentStatisticsAreNeverCompared) {
  const std::vector<Result> rs{row("op", "a", TimingMethod::cupti, {{100, 100}, {100, 100}}),
                               row("op", "b", TimingMethod::cuda_events, {{50, 50}, {50, 50}})};
  const Comparison c = compare_results(rs).at(0);
  EXPECT_FALSE(c.compared());
  EXPECT_NE(c.refusal.find("never compared"), std::string::npos);
  EXPECT_EQ(describe(c).rfind("b and a not compared: ", 0), 0u);
}

TEST(Comparison, OnePassGivesNoIntervalAndIsRefusedNotGuessed) {
  std::vector<Result> rs{row("op", "a", TimingMethod::cupti, {{100, 101, 102, 100}}),
                         row("op", "b", TimingMethod::cupti, {{200, 201, 202, 200}})};
  const Comparison c = compare_results(rs).at(0);
  EXPECT_FALSE(c.compared());
  EXPECT_NE(c.refusal.find("two passes"), std::string::npos) << c.refusal;
}

TEST(Comparison, ZeroTimesAreRefusedNotAnInternalError) {
  const std::vector<Result> rs{row("op", "a", TimingMethod::cupti, {{0, 0}, {0, 0}}),
                               row("op", "b", TimingMethod::cupti, {{5, 5}, {5, 5}})};
  const Comparison c = compare_results(rs).at(0);
  EXPECT_FALSE(c.compared());
  const std::vector<Result> wall{row("op", "a", TimingMethod::host_wall, {{0, 0}, {0, 0}}),
                                 row("op", "b", TimingMethod::host_wall, {{5, 5}, {5, 5}})};
  EXPECT_FALSE(compare_results(wall).at(0).compared());
}

TEST(Comparison, DifferentParamsAreDifferentCases) {
  const std::vector<Result> rs{
      row("op", "a", TimingMethod::cupti, {{100, 100}, {100, 100}}, {{"n", "1"}}),
      row("op", "a", TimingMethod::cupti, {{400, 400}, {400, 400}}, {{"n", "2"}})};
  EXPECT_TRUE(compare_results(rs).empty());
}

TEST(Comparison, NullTestFromTheResults) {
  const Params p{{kNullTestParam, "4"}};
  std::vector<Result> rs{row("null", "1x", TimingMethod::cupti, {{100, 100}, {100, 100}}, p),
                         row("null", "4x", TimingMethod::cupti, {{390, 410}, {400, 400}}, p)};
  EXPECT_TRUE(compare_results(rs).empty());  // a null test is not a comparison
  const std::vector<NullTestOutcome> n = null_tests(rs);
  ASSERT_EQ(n.size(), 1u);
  ASSERT_TRUE(n[0].verdict);
  EXPECT_TRUE(n[0].verdict->pass);
  EXPECT_EQ(describe(n[0]), "4.0x the work took 4.0x the time: pass");
  for (const char* bad : {"0", "-4", "nan", "4abc", ""}) {
    std::vector<Result> odd = rs;
    for (Result& r : odd) r.row.params[kNullTestParam] = bad;
    const std::vector<NullTestOutcome> on = null_tests(odd);
    ASSERT_EQ(on.size(), 1u) << bad;
    EXPECT_FALSE(on[0].verdict.has_value()) << bad;
    EXPECT_NE(on[0].refusal.find("not a positive number"), std::string::npos) << bad;
  }
  // A harness that did not run the scaled work fails.
  rs[1] = row("null", "4x", TimingMethod::cupti, {{100, 100}, {100, 100}}, p);
  EXPECT_FALSE(null_tests(rs).at(0).verdict->pass);
}

TEST(Comparison, RenderedUnderTheTableWithTheCaseAndNoRequirementIds) {
  Record rec;
  rec.results = {
      row("copy", "naive", TimingMethod::cupti, {{20000, 20010}, {20020, 20030}}, {{"n", "8"}}),
      row("copy", "tiled", TimingMethod::cupti, {{20560, 20570}, {20580, 20590}}, {{"n", "8"}})};
  const std::string text = render_comparisons({rec});
  EXPECT_NE(text.find("- copy (n=8): tiled is 2.8% slower than naive"), std::string::npos) << text;
  for (const char* id : {"P5", "P6", "T9", "B5"}) {
    EXPECT_EQ(text.find(id), std::string::npos) << id << " in: " << text;
  }
}

}  // namespace
}  // namespace gpumeter
