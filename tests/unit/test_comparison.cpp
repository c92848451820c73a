// Comparisons of a case's implementations from results only: which rule applies to which
// statistic, the words a reader sees first, and what is refused.
#include "gpumeter/detail/comparison.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/record.hpp"
#include "gpumeter/throttle_reasons.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

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
  const std::vector<Result> rs{row("copy", "naive", TimingMethod::kernel_records,
                                   {{20000, 20010, 19990}, {20020, 20030, 20010}}),
                               row("copy", "tiled", TimingMethod::kernel_records,
                                   {{20560, 20570, 20550}, {20580, 20590, 20570}})};
  const std::vector<Comparison> c = compare_results(rs);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].rule, ComparisonRule::relative_difference);
  EXPECT_EQ(c[0].baseline.implementation, "naive");
  EXPECT_EQ(c[0].candidate.implementation, "tiled");
  ASSERT_TRUE(c[0].difference);
  EXPECT_TRUE(c[0].difference->slower());
  EXPECT_FALSE(c[0].ratio.has_value());
  const std::string text = describe(c[0]);
  EXPECT_EQ(text.rfind("tiled is 2.8% slower than naive (99% interval ", 0), 0u) << text;
  EXPECT_NE(text.find("; device_busy)"), std::string::npos) << text;
}

TEST(Comparison, NoDifferenceSaysHowLargeOneWouldHaveBeenSeen) {
  const std::vector<Result> rs{
      row("k", "a", TimingMethod::kernel_records, {{1000, 1001}, {1003, 1002}}),
      row("k", "b", TimingMethod::kernel_records, {{1002, 1001}, {1001, 1003}})};
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
  const std::vector<Result> rs{
      row("gemm", "naive", TimingMethod::kernel_records, {{300, 301}, {302, 300}}),
      row("gemm", "tiled", TimingMethod::kernel_records, {{100, 101}, {100, 102}})};
  const std::string text = describe(compare_results(rs).at(0));
  // A factor, the interval's ends in factors too.
  EXPECT_EQ(text.rfind("tiled is 3.0x faster than naive (99% interval 2.9x to 3.1x", 0), 0u)
      << text;
}

TEST(Comparison, WallClockKeepsTheResolutionRuleAndSaysSo) {
  const std::vector<Result> rs{
      // Above the host clock's 1 us floor (host_clock.hpp): work, not the call's overhead.
      row("sum", "one-chain", TimingMethod::host_clock, {{3000, 3100}, {2900, 3050}}),
      row("sum", "four-chains", TimingMethod::host_clock, {{1000, 1050}, {950, 1010}}),
      row("sum", "tuned", TimingMethod::host_clock, {{2500, 2520}, {2510, 2490}})};
  const std::vector<Comparison> c = compare_results(rs);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].rule, ComparisonRule::resolution);
  ASSERT_TRUE(c[0].ratio);
  EXPECT_EQ(c[0].ratio->resolution, Resolution::directional_difference);
  EXPECT_EQ(describe(c[0]).rfind("four-chains is 3.0x faster than one-chain (directional "
                                 "difference; the passes' 99% interval ",
                                 0),
            0u)
      << describe(c[0]);
  EXPECT_NE(describe(c[0]).find("; synchronized_wall_clock, rule: 1.5x resolution)"),
            std::string::npos);
  // Under 1.5x: no difference claimed, the floor named, the passes' spread said.
  EXPECT_EQ(c[1].ratio->resolution, Resolution::no_measured_difference);
  EXPECT_EQ(describe(c[1]).rfind("no difference this machine can resolve now (under the 1.5x floor "
                                 "of what the host clock claims; passes spread ",
                                 0),
            0u)
      << describe(c[1]);
  EXPECT_NE(describe(c[1]).find("between tuned and one-chain (tuned took 0.83x the time of "
                                "one-chain, by their medians"),
            std::string::npos)
      << describe(c[1]);
  // A record before schema version 11: the 1.5x rule on the medians, and the passes' finer
  // statement under it.
  const std::vector<Comparison> old = compare_results(rs, kHostClockRulesSince - 1);
  EXPECT_EQ(describe(old[0]).rfind("four-chains is 3.0x faster than one-chain (directional "
                                   "difference; synchronized_wall_clock, rule: 1.5x resolution)",
                                   0),
            0u)
      << describe(old[0]);
  const std::string finer = describe(old[1]);
  EXPECT_EQ(finer.rfind("no measured difference at this precision between tuned and one-chain "
                        "(tuned took 0.83x the time of one-chain, by their medians; the passes "
                        "support a finer statement: ",
                        0),
            0u)
      << finer;
}

TEST(Comparison, UnderTheResolutionTheSentenceClaimsNoDirection) {
  // "b is 1.0x slower than a (no measured difference at this precision; the samples support
  // nothing finer; ...)": a direction nothing measured.
  const std::vector<Result> rs{
      row("op", "a", TimingMethod::host_clock, {{1000, 1400}, {990, 600}}),
      row("op", "b", TimingMethod::host_clock, {{1400, 600}, {1000, 1000}})};
  const Comparison c = compare_results(rs).at(0);
  ASSERT_TRUE(c.ratio);
  ASSERT_TRUE(c.difference);
  EXPECT_FALSE(c.difference->found());
  EXPECT_EQ(describe(c),
            "no difference this machine can resolve now (under the 1.5x floor of what the host "
            "clock claims; passes spread 51%) between b and a (b took 1.0x the time of a, by "
            "their medians; synchronized_wall_clock, rule: 1.5x resolution and the passes' "
            "interval); mean per call b 1.00 us, a 0.998 us");
  // Before schema version 11, as it was worded.
  EXPECT_EQ(describe(compare_results(rs, kHostClockRulesSince - 1).at(0)),
            "no measured difference at this precision between b and a (b took 1.0x the time of "
            "a, by their medians; the samples support nothing finer; synchronized_wall_clock, "
            "rule: 1.5x resolution); mean per call b 1.00 us, a 0.998 us");
}

TEST(Comparison, DifferentStatisticsAreNeverCompared) {
  const std::vector<Result> rs{
      row("op", "a", TimingMethod::kernel_records, {{100, 100}, {100, 100}}),
      row("op", "b", TimingMethod::device_events, {{50, 50}, {50, 50}})};
  const Comparison c = compare_results(rs).at(0);
  EXPECT_FALSE(c.compared());
  EXPECT_NE(c.refusal.find("never compared"), std::string::npos);
  EXPECT_EQ(describe(c).rfind("b and a not compared: ", 0), 0u);
}

TEST(Comparison, RowsOfTwoBoardsAreNeverCompared) {
  // Two H200 boards: one kind, two uuids. A clear difference, still refused, both named.
  Result a = row("op", "a", TimingMethod::kernel_records, {{100, 100}, {100, 100}});
  Result b = row("op", "b", TimingMethod::kernel_records, {{150, 151}, {150, 151}});
  a.board = Board{"GPU-1", "NVIDIA H200", 1980, 1980, 2619};
  b.board = Board{"GPU-2", "NVIDIA H200", 1980, 1980, 2619};
  Comparison c = compare_rows(a, b);
  EXPECT_FALSE(c.compared());
  EXPECT_FALSE(c.difference.has_value());
  EXPECT_NE(c.refusal.find("the rows ran on two boards (NVIDIA H200 GPU-1 and NVIDIA H200 GPU-2)"),
            std::string::npos)
      << c.refusal;
  // The clocks are readings, not the board: one uuid at two clocks is one board.
  b.board = Board{"GPU-1", "NVIDIA H200", 1755, 1980, 2619};
  EXPECT_TRUE(compare_rows(a, b).compared());
  // A board with a uuid and one without (the host CPU's) are two.
  b.board = Board{"", "NVIDIA H200", {}, {}, {}};
  EXPECT_FALSE(compare_rows(a, b).compared());
  EXPECT_TRUE(same_board(Board{"", "host CPU", {}, {}, {}}, Board{"", "host CPU", 1, {}, {}}));
}

TEST(Comparison, OnePassGivesNoIntervalAndIsRefusedNotGuessed) {
  std::vector<Result> rs{row("op", "a", TimingMethod::kernel_records, {{100, 101, 102, 100}}),
                         row("op", "b", TimingMethod::kernel_records, {{200, 201, 202, 200}})};
  const Comparison c = compare_results(rs).at(0);
  EXPECT_FALSE(c.compared());
  EXPECT_NE(c.refusal.find("two passes"), std::string::npos) << c.refusal;
}

TEST(Comparison, ZeroTimesAreRefusedNotAnInternalError) {
  const std::vector<Result> rs{row("op", "a", TimingMethod::kernel_records, {{0, 0}, {0, 0}}),
                               row("op", "b", TimingMethod::kernel_records, {{5, 5}, {5, 5}})};
  const Comparison c = compare_results(rs).at(0);
  EXPECT_FALSE(c.compared());
  const std::vector<Result> wall{row("op", "a", TimingMethod::host_clock, {{0, 0}, {0, 0}}),
                                 row("op", "b", TimingMethod::host_clock, {{5, 5}, {5, 5}})};
  EXPECT_FALSE(compare_results(wall).at(0).compared());
}

TEST(Comparison, DifferentParamsAreDifferentCases) {
  const std::vector<Result> rs{
      row("op", "a", TimingMethod::kernel_records, {{100, 100}, {100, 100}}, {{"n", "1"}}),
      row("op", "a", TimingMethod::kernel_records, {{400, 400}, {400, 400}}, {{"n", "2"}})};
  EXPECT_TRUE(compare_results(rs).empty());
}

// A result finished with its null test's samples: its outcome decided, as every path decides it.
Result with_null_test(Result r, std::vector<Nanos> scaled) {
  r.measurement.null_test = NullTestSamples{kNullTestScale, std::move(scaled)};
  summarize_result(r, Ceilings{});
  return r;
}

TEST(Comparison, NullTestJudgedFromTheRowsOwnSamples) {
  const Result base = row("copy", "a", TimingMethod::kernel_records, {{100, 100}, {100, 100}});
  EXPECT_FALSE(null_test_of(base).has_value());  // no hook, no null test

  // 4x the work in 390 to 410 ns: ratio 4.0, pass.
  const Result good = with_null_test(base, {390, 400, 410});
  const std::optional<NullTestOutcome> n = null_test_of(good);
  ASSERT_TRUE(n && n->verdict);
  EXPECT_FALSE(n->failed());
  EXPECT_DOUBLE_EQ(n->verdict->observed_ratio, 4.0);
  EXPECT_EQ(describe(*n), "4x the work took 4.0x the time: pass");

  // The boundary: |ratio - 4| / 4 <= 0.4 passes (ratio 2.4 and 5.6), just outside fails.
  EXPECT_FALSE(null_test_of(with_null_test(base, {240}))->failed());
  EXPECT_FALSE(null_test_of(with_null_test(base, {560}))->failed());
  EXPECT_TRUE(null_test_of(with_null_test(base, {239}))->failed());
  EXPECT_TRUE(null_test_of(with_null_test(base, {561}))->failed());

  // A harness that ignores the scale: the same time at 4x, a failed row.
  const Result ignored = with_null_test(base, {100, 101, 99});
  EXPECT_TRUE(null_test_of(ignored)->failed());
  EXPECT_EQ(describe(*null_test_of(ignored)),
            "4x the work took 1.0x the time: FAIL (the harness may not be timing the work)");

  // No scaled samples, or zero times: no verdict, which counts as failed.
  EXPECT_TRUE(null_test_of(with_null_test(base, {}))->failed());
  EXPECT_TRUE(null_test_of(with_null_test(base, {0, 0}))->failed());
}

TEST(Comparison, ARowWhoseNullTestFailedIsComparedWithNothing) {
  Result a = row("copy", "a", TimingMethod::kernel_records, {{100, 100}, {100, 100}});
  Result b = row("copy", "b", TimingMethod::kernel_records, {{50, 50}, {50, 50}});
  ASSERT_TRUE(compare_results({a, b}).at(0).compared());
  b = with_null_test(b, {50, 50});  // "2x faster" because it did not do the work
  const Comparison c = compare_results({a, b}).at(0);
  EXPECT_FALSE(c.compared());
  EXPECT_NE(c.refusal.find("b's null test failed (4x the work took 1.0x the time"),
            std::string::npos)
      << c.refusal;
  a = with_null_test(a, {400});
  b = with_null_test(b, {200});  // both pass: compared as usual
  EXPECT_TRUE(compare_results({a, b}).at(0).compared());
  EXPECT_EQ(null_tests({a, b}).size(), 2u);
}

// The comparison's clock statement follows the rule that flags a sample: the routine power cap
// a step down says nothing; 70% of the other side's clock, or a thermal slowdown at full clock,
// is said.
TEST(Comparison, SidesAtDifferentClocksAreSaidSo) {
  auto clocked = [](Result r, int mhz, std::uint64_t reasons = 0) {
    for (Sample& s : r.measurement.samples) s.clock = ClockReading{mhz, reasons};
    r.summary = summarize(r.measurement.samples, r.measurement.method, 0);
    return r;
  };
  const Result a = row("gemm", "a", TimingMethod::kernel_records, {{1000, 1001}, {1000, 1001}});
  const Result b = row("gemm", "b", TimingMethod::kernel_records, {{900, 901}, {900, 901}});
  const auto said = [](const Result& x, const Result& y) {
    return describe(compare_results({x, y}).at(0));
  };
  // The power cap at 99% of the other side's clock, and one step (1965 of 1980): nothing said.
  EXPECT_EQ(said(clocked(a, 1980), clocked(b, 1960, kReasonSwPowerCap)).find("clock"),
            std::string::npos);
  EXPECT_EQ(
      said(clocked(a, 1980, kReasonSwPowerCap), clocked(b, 1965, kReasonSwPowerCap)).find("clock"),
      std::string::npos);
  // 70%: said, with both medians.
  const std::string slow = said(clocked(a, 1980), clocked(b, 1386, kReasonSwPowerCap));
  EXPECT_NE(slow.find("; the two ran at different SM clocks (median 1386 MHz against 1980 MHz), "
                      "so part of the difference may be the clock's"),
            std::string::npos)
      << slow;
  // A thermal slowdown at full clock flags every sample of b: said, with the counts.
  const std::string hot = said(clocked(a, 1980), clocked(b, 1980, kReasonHwThermal));
  EXPECT_NE(hot.find("; clock-flagged samples: b 4 of 4, a 0 of 4, so part of the difference may "
                     "be the clock's"),
            std::string::npos)
      << hot;
  EXPECT_EQ(hot.find("different SM clocks"), std::string::npos) << hot;
  // Unread on one side: nothing can be said, and nothing is.
  EXPECT_EQ(said(a, clocked(b, 1386)).find("clock"), std::string::npos);
  // `gpumeter compare` names the sides base and new.
  const Comparison c = compare_rows(clocked(a, 1980), clocked(b, 1386, kReasonHwSlowdown));
  EXPECT_EQ(clock_difference_words(c, "base", "new"),
            "the two ran at different SM clocks (median 1386 MHz against 1980 MHz); "
            "clock-flagged samples: new 4 of 4, base 0 of 4");
}

// The numbers of an estimate and its interval as a sentence printed them, read back.
struct Printed {
  double estimate = 0;
  double low = 0;
  double high = 0;
};

double number(const std::string& text) {
  return std::strtod(text.c_str(), nullptr);
}

// "b is 1.97x slower than a (99% interval 1.96x to 1.98x; ...)" and the finer statement under
// the 1.5x resolution ("...: 2.8% slower, 99% interval 2.6% to 3.0%"): the change's number and
// its interval's, in the change's units.
std::optional<Printed> found_numbers(const std::string& text) {
  static const std::regex words(
      R"(([0-9.]+)(x|%) (slower|faster)[^;]*interval ([0-9.]+)(x|%) to ([0-9.]+)(x|%))");
  std::smatch m;
  if (!std::regex_search(text, m, words)) return std::nullopt;
  if (m[2] != m[5] || m[2] != m[7]) return std::nullopt;  // one unit for all three
  return Printed{number(m[1]), number(m[4]), number(m[6])};
}

// "...; estimate +0.020%, 99% interval -0.30% to +0.34%; ...".
std::optional<Printed> signed_numbers(const std::string& text) {
  static const std::regex words(
      R"(estimate ([-+][0-9.]+)%, [0-9.]+% interval ([-+][0-9.]+)% to ([-+][0-9.]+)%)");
  std::smatch m;
  if (!std::regex_search(text, m, words)) return std::nullopt;
  return Printed{number(m[1]), number(m[2]), number(m[3])};
}

// How far apart the three true numbers are in the units printed: the estimate's distance to
// the nearer end over the largest magnitude. Rounding to 5 figures moves a number by at most
// 5e-5 of itself, so from a margin of 2e-4 on, kMaxIntervalDigits (6) figures part the three.
double margin(double estimate, double a, double b) {
  const double largest = std::max({std::fabs(estimate), std::fabs(a), std::fabs(b)});
  return std::min(std::fabs(estimate - a), std::fabs(b - estimate)) / largest;
}

// The printed estimate lies within its printed interval, and strictly inside wherever the
// figures allowed can part them.
void expect_inside(const Printed& p, double true_margin, const std::string& text) {
  const double lo = std::min(p.low, p.high);
  const double hi = std::max(p.low, p.high);
  EXPECT_TRUE(lo <= p.estimate && p.estimate <= hi) << text;
  if (true_margin > 2e-4) {
    EXPECT_TRUE(lo < p.estimate && p.estimate < hi) << text;
  }
}

// The numbers a found difference's words print: factors from the 1.5x resolution on, else the
// percent of time added or saved.
double shown(double difference, bool factor) {
  if (!factor) return 100 * std::fabs(difference);
  return difference >= 0 ? 1 + difference : 1 / (1 + difference);
}

// A sentence agrees with its own numbers. Random intervals over what a comparison can
// state: estimates from a millionth to a factor of 3000 either way, half-widths from 10^-9 to
// 4 on the log scale (so found and not found, percents and factors, faster and slower), through
// every sentence that prints an interval: the device-time rule, the finer statement under the
// 1.5x resolution, the signed percents of `gpumeter compare`, and the words of its gate.
TEST(Comparison, EveryPrintedEstimateLiesInsideItsPrintedInterval) {
  std::mt19937_64 rng(20261130);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto log_uniform = [&](double a, double b) {
    return std::exp(std::log(a) + (std::log(b) - std::log(a)) * unit(rng));
  };
  int found_factor = 0, found_percent = 0, not_found = 0, slower = 0, faster = 0;
  constexpr int kIntervals = 20000;
  for (int i = 0; i < kIntervals; ++i) {
    const double m = (unit(rng) < 0.5 ? -1 : 1) * log_uniform(1e-6, 8.0);  // log of the ratio
    const double h = log_uniform(1e-9, 4.0);
    RelativeDifference d;
    d.estimate = std::expm1(m);
    d.low = std::expm1(m - h);
    d.high = std::expm1(m + h);
    d.smallest_detectable = 0.01;
    Comparison c;
    c.baseline = {"k", {}, "a"};
    c.candidate = {"k", {}, "b"};
    c.difference = d;
    const std::string text = describe(c);
    const PercentText t = percent_text(d);
    const std::string table = t.estimate + " [" + t.low + ", " + t.high + "]";
    expect_inside({number(t.estimate), number(t.low), number(t.high)},
                  margin(100 * d.estimate, 100 * d.low, 100 * d.high), table);
    if (d.found()) {
      (d.slower() ? slower : faster)++;
      const bool factor = std::exp(std::fabs(m)) >= kResolutionRatio;
      (factor ? found_factor : found_percent)++;
      const double words_margin =
          margin(shown(d.estimate, factor), shown(d.low, factor), shown(d.high, factor));
      const std::optional<Printed> p = found_numbers(text);
      ASSERT_TRUE(p) << text;
      expect_inside(*p, words_margin, text);
      const DifferenceWords w = difference_words(d);
      const std::optional<Printed> gate = found_numbers(w.change + " (" + w.interval + ")");
      ASSERT_TRUE(gate) << w.change << " " << w.interval;
      expect_inside(*gate, words_margin, w.change + " (" + w.interval + ")");
      // Wall clock: the finer statement under the 1.5x resolution words it the same way.
      c.rule = ComparisonRule::resolution;
      c.statistic = Statistic::synchronized_wall_clock;
      c.ratio = compare_times(1.0, 1.2);
      const std::string finer = describe(c);
      const std::optional<Printed> q = found_numbers(finer.substr(finer.find("finer statement")));
      ASSERT_TRUE(q) << finer;
      expect_inside(*q, words_margin, finer);
    } else {
      ++not_found;
      const std::optional<Printed> p = signed_numbers(text);
      ASSERT_TRUE(p) << text;
      expect_inside(*p, margin(100 * d.estimate, 100 * d.low, 100 * d.high), text);
    }
    if (::testing::Test::HasFailure()) break;  // one sentence shown, not thousands
  }
  // Every kind of sentence was tried many times.
  EXPECT_GT(found_factor, 1000);
  EXPECT_GT(found_percent, 1000);
  EXPECT_GT(not_found, 1000);
  EXPECT_GT(slower, 1000);
  EXPECT_GT(faster, 1000);
}

TEST(Comparison, DigitsWidenOnlyAsFarAsTheEstimateNeeds) {
  // The issue's sentence: two figures would print "2.0x" outside "1.96x to 1.98x".
  RelativeDifference d;
  d.estimate = 0.97;
  d.low = 0.96;
  d.high = 0.98;
  EXPECT_EQ(difference_words(d).change, "1.97x slower");
  EXPECT_EQ(difference_words(d).interval, "99% interval 1.96x to 1.98x");
  // Where two figures already put the estimate inside, two it is.
  d = {0.028, 0.026, 0.030};
  EXPECT_EQ(difference_words(d).change, "2.8% slower");
  EXPECT_EQ(difference_words(d).interval, "99% interval 2.6% to 3.0%");
  // An end that two figures print like the estimate widens all three.
  d = {0.0281, 0.0279, 0.0301};
  EXPECT_EQ(difference_words(d).change, "2.81% slower");
  EXPECT_EQ(difference_words(d).interval, "99% interval 2.79% to 3.01%");
  // Faster, as the share of time saved.
  d = {-0.2, -0.25, -0.15};
  EXPECT_EQ(difference_words(d).change, "20% faster");
  EXPECT_EQ(difference_words(d).interval, "99% interval 15% to 25%");
  // No difference found: signed, the same figures for the three.
  d = {0.0002, -0.0030, 0.0034};
  EXPECT_EQ(percent_text(d).estimate, "+0.020%");
  EXPECT_EQ(percent_text(d).low, "-0.30%");
  EXPECT_EQ(percent_text(d).high, "+0.34%");
  // No interval printed: P5's two figures stand (compare_times, null tests).
  EXPECT_EQ(compare_times(1.0, 1.97).wording, "2.0x slower");
}

TEST(Comparison, RenderedUnderTheTableWithTheCaseAndNoRequirementIds) {
  Record rec;
  rec.results = {row("copy", "naive", TimingMethod::kernel_records,
                     {{20000, 20010}, {20020, 20030}}, {{"n", "8"}}),
                 row("copy", "tiled", TimingMethod::kernel_records,
                     {{20560, 20570}, {20580, 20590}}, {{"n", "8"}})};
  // Reporters read what finish() derived; they compute no comparison of their own.
  EXPECT_EQ(render_comparisons({rec}).find("tiled is"), std::string::npos);
  finish(rec);
  const std::string text = render_comparisons({rec});
  EXPECT_NE(text.find("- copy (n=8): tiled is 2.8% slower than naive"), std::string::npos) << text;
  for (const char* id : {"P5", "P6", "T9", "B5"}) {
    EXPECT_EQ(text.find(id), std::string::npos) << id << " in: " << text;
  }
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
