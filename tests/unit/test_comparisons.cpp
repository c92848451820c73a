#include "gpumeter/comparisons.hpp"

#include <gtest/gtest.h>

namespace gpumeter {
namespace {

Result row(const std::string& c, const std::string& impl, TimingMethod method,
           std::vector<Nanos> busy, std::map<std::string, std::string> params = {}) {
  Result r;
  r.case_name = c;
  r.implementation = impl;
  r.params = std::move(params);
  r.measurement.method = method;
  for (Nanos b : busy) r.measurement.samples.push_back({b, b, 1, 0});
  r.summary = summarize(r.measurement.samples, method, 0);
  return r;
}

TEST(Comparisons, RatioAgainstTheCasesFirstRow) {
  Record rec;
  rec.results.push_back(row("gemm", "naive", TimingMethod::cupti, {300, 310, 290}));
  rec.results.push_back(row("gemm", "tiled", TimingMethod::cupti, {100, 105, 95}));
  rec.results.push_back(row("gemm", "tuned", TimingMethod::cupti, {250, 255, 245}));
  const Comparisons c = compare_records({rec});
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_EQ(c.cases[0].candidate, "tiled");
  ASSERT_TRUE(c.cases[0].verdict);
  EXPECT_EQ(c.cases[0].verdict->wording, "3.0x faster");
  EXPECT_EQ(c.cases[0].verdict->resolution, Resolution::directional_difference);
  EXPECT_EQ(c.cases[1].verdict->wording, "1.2x faster");
  EXPECT_EQ(c.cases[1].verdict->resolution, Resolution::no_measured_difference);
  const std::string text = render_comparisons({rec});
  EXPECT_NE(text.find("tiled is 3.0x faster than naive (directional difference"),
            std::string::npos);
  EXPECT_NE(text.find("tuned is 1.2x faster than naive (no measured difference at this precision"),
            std::string::npos);
}

TEST(Comparisons, DifferentStatisticsAreNeverCompared) {
  Record rec;
  rec.results.push_back(row("op", "a", TimingMethod::cupti, {100}));
  rec.results.push_back(row("op", "b", TimingMethod::cuda_events, {50}));
  const Comparisons c = compare_records({rec});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_FALSE(c.cases[0].verdict.has_value());
  EXPECT_NE(c.cases[0].refusal.find("never compared"), std::string::npos);
}

TEST(Comparisons, DifferentParamsAreDifferentCases) {
  Record rec;
  rec.results.push_back(row("op", "a", TimingMethod::cupti, {100}, {{"n", "1"}}));
  rec.results.push_back(row("op", "a", TimingMethod::cupti, {400}, {{"n", "2"}}));
  EXPECT_TRUE(compare_records({rec}).cases.empty());
}

TEST(Comparisons, NullTestFromTheRecord) {
  Record rec;
  const std::map<std::string, std::string> p{{kNullTestParam, "4"}};
  rec.results.push_back(row("null", "1x", TimingMethod::cupti, {100, 100}, p));
  rec.results.push_back(row("null", "4x", TimingMethod::cupti, {390, 410}, p));
  const Comparisons c = compare_records({rec});
  ASSERT_EQ(c.null_tests.size(), 1u);
  ASSERT_TRUE(c.null_tests[0].verdict);
  EXPECT_TRUE(c.null_tests[0].verdict->pass);
  EXPECT_DOUBLE_EQ(c.null_tests[0].verdict->observed_ratio, 4.0);
  EXPECT_NE(render_comparisons({rec}).find("4.0x the work took 4.0x the time: pass"),
            std::string::npos);
  // A scale that is not a positive number, or a zero median, is refused, not evaluated.
  for (const char* bad : {"0", "-4", "nan", "4abc", ""}) {
    Record odd = rec;
    for (Result& r : odd.results) r.params[kNullTestParam] = bad;
    const Comparisons oc = compare_records({odd});
    ASSERT_EQ(oc.null_tests.size(), 1u) << bad;
    EXPECT_FALSE(oc.null_tests[0].verdict.has_value()) << bad;
    EXPECT_NE(oc.null_tests[0].refusal.find("not a positive number"), std::string::npos) << bad;
  }
  Record zero = rec;
  zero.results[0] = row("null", "1x", TimingMethod::cupti, {0, 0}, p);
  EXPECT_EQ(compare_records({zero}).null_tests[0].refusal, "a median of zero");
  // A harness that did not run the scaled work fails.
  rec.results[1] = row("null", "4x", TimingMethod::cupti, {100, 100}, p);
  EXPECT_FALSE(compare_records({rec}).null_tests[0].verdict->pass);
}

}  // namespace
}  // namespace gpumeter
