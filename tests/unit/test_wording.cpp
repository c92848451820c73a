// The wording module (wording.hpp): every sentence and label from synthetic comparisons, null
// tests and results, and the one sanitizer's quoting (escape.hpp). A sentence changed here
// changes it in every report, CSV, `gpumeter compare` and Python at once.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/growth.hpp"
#include "gpumeter/detail/row.hpp"
#include "gpumeter/detail/verdict.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

using namespace std::string_view_literals;

RelativeDifference difference(double estimate, double low, double high, double detectable) {
  RelativeDifference d;
  d.estimate = estimate;
  d.low = low;
  d.high = high;
  d.smallest_detectable = detectable;
  d.degrees_of_freedom = 6;
  return d;
}

Comparison device_time(const RelativeDifference& d) {
  Comparison c;
  c.baseline = {"copy", {}, "naive"};
  c.candidate = {"copy", {}, "tiled"};
  c.statistic = Statistic::device_busy;
  c.rule = ComparisonRule::relative_difference;
  c.difference = d;
  return c;
}

Comparison wall_clock(double base_ns, double next_ns) {
  Comparison c;
  c.baseline = {"step", {}, "a"};
  c.candidate = {"step", {}, "b"};
  c.statistic = Statistic::synchronized_wall_clock;
  c.rule = ComparisonRule::resolution;
  c.ratio = compare_times(base_ns, next_ns);
  return c;
}

NullTestOutcome null_test(double ratio) {
  NullTestOutcome n;
  n.row = {"gemm", {}, "cublas"};
  n.scale = 4;
  n.verdict = evaluate_null_test(1000, 1000 * ratio, 4);
  return n;
}

TEST(Wording, ADeviceHasOneLabelWithOrWithoutItsUuid) {
  DeviceIdentity d;
  d.kind = "cuda";
  d.index = 1;
  EXPECT_EQ(device_label(d), "cuda:1");
  EXPECT_EQ(device_label(d, true), "cuda:1");  // no uuid known: nothing to add
  d.uuid = "GPU-0123";
  EXPECT_EQ(device_label(d), "cuda:1");
  EXPECT_EQ(device_label(d, true), "cuda:1 (GPU-0123)");
  d.name = "NVIDIA H200";
  EXPECT_EQ(device_label(d), "NVIDIA H200 (cuda:1)");
  EXPECT_EQ(device_label(d, true), "NVIDIA H200 (cuda:1, GPU-0123)");
}

TEST(Wording, ADeviceTimeDifferenceIsWordedWithItsInterval) {
  const Comparison slower = device_time(difference(0.028, 0.026, 0.030, 0.004));
  EXPECT_EQ(describe(slower),
            "tiled is 2.8% slower than naive (99% interval 2.6% to 3.0%; "
            "device_busy)");
  const Comparison faster = device_time(difference(-0.2, -0.22, -0.18, 0.004));
  EXPECT_EQ(describe(faster),
            "tiled is 20% faster than naive (99% interval 18% to 22%; "
            "device_busy)");
  // From the 1.5x resolution on, a factor.
  const Comparison twice = device_time(difference(1.1, 1.0, 1.2, 0.004));
  EXPECT_EQ(describe(twice),
            "tiled is 2.1x slower than naive (99% interval 2.0x to 2.2x; "
            "device_busy)");
}

// The heading states the confidence of the record's rules: a record of version 8 or older was
// judged at 95%, a current one at 99%.
TEST(Wording, TheHeadingStatesTheConfidenceOfTheRecordsRules) {
  EXPECT_NE(comparisons_heading().find("with its 99% interval"), std::string::npos)
      << comparisons_heading();
  EXPECT_NE(comparisons_heading(8).find("with its 95% interval"), std::string::npos)
      << comparisons_heading(8);
  // Records of both rules under one table: each sentence says its own.
  EXPECT_NE(comparisons_heading(std::nullopt).find("each sentence states its confidence"),
            std::string::npos);
}

// Several records under one heading: their shared rules, else each sentence its own.
TEST(Wording, TheHeadingOfSeveralRecordsStatesTheirSharedConfidence) {
  Record v8;
  v8.schema_version = 8;
  Record v7;
  v7.schema_version = 7;
  Record current;
  EXPECT_EQ(comparisons_heading(std::vector<Record>{v8, v7}), comparisons_heading(8));
  EXPECT_EQ(comparisons_heading(std::vector<Record>{current, current}), comparisons_heading());
  EXPECT_EQ(comparisons_heading(std::vector<Record>{current, v8}),
            comparisons_heading(std::nullopt));
}

TEST(Wording, NoDifferenceDetectedSaysWhatWouldHaveBeenSeen) {
  const Comparison none = device_time(difference(0.0002, -0.0031, 0.0052, 0.0043));
  EXPECT_EQ(describe(none),
            "no difference detected between tiled and naive (a difference larger than 0.43% "
            "would have been seen; estimate +0.020%, 99% interval -0.31% to +0.52%; "
            "device_busy)");
  const CompareRowWords row = compare_row_words(none);
  EXPECT_EQ(row.change, "+0.020% [-0.31%, +0.52%]");
  EXPECT_EQ(row.finding, "no difference detected (would see 0.43%)");
}

TEST(Wording, TheWallClockIsJudgedByTheResolution) {
  EXPECT_EQ(describe(wall_clock(1000, 2000)),
            "b is 2.0x slower than a (directional difference; synchronized_wall_clock, rule: 1.5x "
            "resolution)");
  // Under 1.5x no direction was measured, and the sentence claims none.
  EXPECT_EQ(describe(wall_clock(1000, 1100)),
            "no measured difference at this precision between b and a (b took 1.1x the time of "
            "a, by their medians; the samples support nothing finer; synchronized_wall_clock, "
            "rule: 1.5x resolution)");
  const Comparison twice = wall_clock(1000, 2000);
  EXPECT_EQ(regression_words(twice), "2.0x slower (directional difference, 1.5x resolution)");
  const CompareRowWords row = compare_row_words(twice);
  EXPECT_EQ(row.change, "2.0x slower");
  EXPECT_EQ(row.finding, "directional difference (1.5x resolution)");
}

TEST(Wording, ARefusedPairSaysWhy) {
  Comparison c = device_time(difference(0, 0, 0, 0));
  c.difference.reset();
  c.refusal = "a median of zero";
  EXPECT_EQ(describe(c), "tiled and naive not compared: a median of zero");
  const CompareRowWords row = compare_row_words(c);
  EXPECT_EQ(row.change, "not compared");
  EXPECT_EQ(row.finding, "a median of zero");
}

TEST(Wording, ClocksThatDifferAreNamedAfterTheSentence) {
  Comparison c = device_time(difference(0.028, 0.026, 0.030, 0.004));
  ClockSummary a;
  a.median_mhz = 1980;
  a.samples = 200;
  ClockSummary b = a;
  b.median_mhz = 1755;
  b.flagged = 12;
  c.baseline_clock = a;
  c.candidate_clock = b;
  EXPECT_EQ(clock_difference_words(c, "base", "new"),
            "the two ran at different SM clocks (median 1755 MHz against 1980 MHz); "
            "clock-flagged samples: new 12 of 200, base 0 of 200");
  EXPECT_NE(describe(c).find("; the two ran at different SM clocks"), std::string::npos);
  EXPECT_NE(describe(c).find(", so part of the difference may be the clock's"), std::string::npos);
  EXPECT_NE(compare_row_words(c).finding.find("slower; the two ran at different SM clocks"),
            std::string::npos);
}

TEST(Wording, TheNullTestReadsOneWayWhereverItIsShown) {
  const NullTestOutcome pass = null_test(4.0);
  EXPECT_EQ(describe(pass), "4x the work took 4.0x the time: pass");
  EXPECT_EQ(null_test_cell(pass), "4.0x for 4x work: pass");
  EXPECT_EQ(null_test_cell(pass, false), "pass (4.0x)");

  const NullTestOutcome fail = null_test(1.0);
  EXPECT_EQ(describe(fail),
            "4x the work took 1.0x the time: FAIL (the harness may not be timing the work)");
  EXPECT_EQ(null_test_cell(fail), "1.0x for 4x work: FAIL");
  EXPECT_EQ(null_test_cell(fail, false), "FAIL (1.0x)");
  EXPECT_EQ(null_test_failed_words(fail),
            "FAILED its null test: 4x the work took 1.0x the time: FAIL (the harness may not be "
            "timing the work); its times are kept in the record as evidence, not shown, and it "
            "is compared with nothing");

  NullTestOutcome none;
  none.scale = 4;
  none.refusal = "no samples of the scaled work";
  EXPECT_EQ(describe(none), "null test FAILED: not evaluated: no samples of the scaled work");
  EXPECT_EQ(null_test_cell(none), "FAIL (not evaluated)");
  EXPECT_EQ(null_test_cell(std::nullopt), "not run");

  EXPECT_EQ(null_tests_heading(),
            "Null tests (the work scaled 4x, the time must scale alike within 40%):");
}

TEST(Wording, NumbersInWords) {
  EXPECT_EQ(percent_of_ceiling(103.2, true), "103% (above the measured ceiling)");
  EXPECT_EQ(percent_of_ceiling(99.94, false), "99.9%");
  EXPECT_EQ(time_text(12'345), "12.3 us");
  EXPECT_EQ(time_text(12.5e6), "12.5 ms");
  EXPECT_EQ(time_text(std::numeric_limits<double>::quiet_NaN()), kNotMeasured);
  EXPECT_EQ(mib_text(12.0 * 1024 * 1024), "12.0");
  EXPECT_EQ(mib_text(std::nullopt), kNotAvailable);
}

Result synthetic_result() {
  Result r;
  r.row = {"copy", {}, "tiled"};
  r.measurement.method = TimingMethod::kernel_records;
  r.summary.device_busy = {12'345, 12'000, 12'700};
  r.summary.latency = {12'500, 12'100, 12'900};
  r.summary.n_samples = 200;
  r.summary.tbs = 4.27;
  r.summary.pct_of_peak_bandwidth = 103.2;
  r.summary.above_bandwidth_ceiling = true;
  return r;
}

TEST(Wording, AResultInOneLine) {
  EXPECT_EQ(describe(synthetic_result()),
            "tiled: device_busy median 12.3 us [p10 12.0 us, p90 12.7 us], latency 12.5 us, 200 "
            "samples, 4.27 TB/s, 103% of the measured TB/s ceiling (above the measured ceiling)");
  // A row whose null test failed shows no times: it says why, as the table's note does.
  Result failed = synthetic_result();
  NullTestOutcome n;
  n.row = failed.row;
  n.scale = 4;
  n.verdict = evaluate_null_test(12'300, 12'345, 4);  // 1.0x the time for 4x the work
  failed.null_test_outcome = n;
  EXPECT_EQ(describe(failed), "tiled: " + null_test_failed_words(n));
}

TEST(Escape, OneSanitizerQuotesAndFlattens) {
  EXPECT_EQ(quoted_text("a\"b\\c\n"), "\"a\\\"b\\\\c\\x0a\"");
  EXPECT_EQ(quoted_text("abcdef", 3), "\"abc...\"");
  // C1 and bidirectional controls are shown, not obeyed, wherever text is quoted.
  EXPECT_EQ(quoted_text("x\xc2\x9by"), "\"x\\u009by\"");
  EXPECT_EQ(one_line("cmd\0--flag\nnext\x1b[31m  \n"sv, 100), "cmd --flag next\\x1b[31m");
  EXPECT_EQ(one_line("abcdef", 3), "abc...");
  // A param holding a control is quoted with it escaped, by the same rule.
  EXPECT_EQ(format_params({{"k", "v\xe2\x80\xaew"}}), "k=\"v\\u202ew\"");
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter

// The growth sentence is printed through markdown escaping (report, print() of a sweep): no
// character in it is markup, so it reads the same in a terminal as rendered. Its exponent has
// two decimals, as the plot labels the same fit ("n^1.02" in both, never "n^1.0" beside it).
TEST(Wording, TheGrowthSentenceHasNoMarkupAndTwoDecimals) {
  gpumeter::GrowthRegime r;
  r.low = 1000;
  r.high = 1000000;
  r.points = 4;
  r.exponent = 1.0239;
  r.r_squared = 0.999;
  r.label = "linear";
  const std::string s = gpumeter::describe(r, "n");
  EXPECT_EQ(s.rfind("time grows as n^1.02 from 1000 to ", 0), 0u) << s;
  EXPECT_EQ(gpumeter::markdown_text(s), s) << "escaped: " << gpumeter::markdown_text(s);
  r.exponent = 0.934;
  EXPECT_NE(gpumeter::describe(r, "n").find("n^0.93 "), std::string::npos);
}
