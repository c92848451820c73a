// The host-clock rule (host_clock.hpp) on synthetic passes: a claim only where the passes'
// interval, the 1.5x floor and the means agree; an unresolved comparison recorded, not refused.
#include "gpumeter/host_clock.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// A pass of `n` readings around `level` (a small fixed ripple, so no pass is all one value).
std::vector<double> pass_at(double level, int n = 20) {
  std::vector<double> p;
  for (int i = 0; i < n; ++i) p.push_back(level * (1.0 + 0.002 * (i % 5)));
  return p;
}

PassSamples passes_at(const std::vector<double>& levels) {
  PassSamples out;
  for (const double l : levels) out.push_back(pass_at(l));
  return out;
}

bool claims(const RatioVerdict& v) {
  return v.resolution == Resolution::directional_difference;
}

// Normal deviates from the standard's mt19937 (whose output is fixed by the standard; the
// libraries' normal_distribution differ), by Box-Muller: the same draws under g++ and clang.
class Noise {
 public:
  explicit Noise(std::uint32_t seed) : engine_(seed) {}
  double normal() {
    const double u1 = (static_cast<double>(engine_()) + 1.0) / 4294967297.0;
    const double u2 = static_cast<double>(engine_()) / 4294967296.0;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double uniform() { return static_cast<double>(engine_()) / 4294967296.0; }

 private:
  std::mt19937 engine_;
};

// Passes of a function of `level` on a loaded host: each pass's level moves by a lognormal of
// `sd` (the share of a core it got), and now and then (1 call in 20) a call is preempted to 2x
// to 8x its time (what calls of one function read at load 7 on the 2-core build machine).
PassSamples loaded_passes(Noise& noise, double level, int passes, double sd) {
  PassSamples out;
  for (int p = 0; p < passes; ++p) {
    const double l = level * std::exp(sd * noise.normal());
    std::vector<double> pass;
    for (int i = 0; i < 10; ++i) {
      double x = l * (1.0 + 0.02 * noise.uniform());
      if (noise.uniform() < 0.05) x *= 2.0 + 6.0 * noise.uniform();
      pass.push_back(x);
    }
    out.push_back(pass);
  }
  return out;
}

TEST(HostClock, SpreadWiderThanTheDifferenceClaimsNothing) {
  // Medians 1.6x apart, passes 4x apart on each side: the interval includes no difference.
  const PassSamples a = passes_at({100, 400, 100, 400, 100, 400});
  const PassSamples b = passes_at({160, 640, 160, 640, 160, 640});
  const RatioVerdict v = compare_host_passes(a, b, 1, 6.9);
  EXPECT_FALSE(claims(v)) << v.wording;
  EXPECT_EQ(v.label.rfind("no difference this machine can resolve now (", 0), 0u) << v.label;
  EXPECT_NE(v.label.find("passes spread 4.0x"), std::string::npos) << v.label;
  EXPECT_NE(v.label.find("load average 6.9"), std::string::npos) << v.label;
  // No direction worded: the ratio of the medians only.
  EXPECT_EQ(v.wording.find("slower"), std::string::npos);
  EXPECT_NE(v.wording.find("x the time"), std::string::npos);
}

TEST(HostClock, ThreeTimesSlowerIsClaimed) {
  const PassSamples a = passes_at({100, 130, 110, 125, 95, 120});
  const PassSamples b = passes_at({300, 330, 290, 360, 310, 280});
  const RatioVerdict v = compare_host_passes(a, b, 1);
  EXPECT_TRUE(claims(v)) << v.label;
  EXPECT_EQ(v.wording.substr(v.wording.size() - 6), "slower");
  EXPECT_LT(v.speedup, 1.0 / 2.5);
}

TEST(HostClock, AnIntervalIncludingNoDifferenceClaimsNothing) {
  HostClockSides s;
  s.baseline_median_ns = 100;
  s.candidate_median_ns = 300;  // 3x by the medians
  RelativeDifference d;
  d.estimate = 2.0;
  d.low = -0.1;  // the interval reaches below no difference
  d.high = 5.0;
  d.smallest_detectable = 3.0;
  s.interval = d;
  s.spread = 2.5;
  EXPECT_FALSE(claims(host_clock_verdict(s)));
  EXPECT_NE(host_clock_verdict(s).label.find("the passes' interval includes no difference"),
            std::string::npos);
  // The same interval clear of no difference: a claim.
  s.interval->low = 0.8;
  EXPECT_TRUE(claims(host_clock_verdict(s)));
  // On the other side of the medians' direction: no claim.
  s.interval->low = -0.9;
  s.interval->high = -0.5;
  EXPECT_FALSE(claims(host_clock_verdict(s)));
}

TEST(HostClock, UnderTheFloorClaimsNothingWhateverTheInterval) {
  // Passes tight enough to tell 1.3x apart: under the 1.5x floor, nothing is claimed.
  const PassSamples a = passes_at({100, 101, 100, 99, 100, 101});
  const PassSamples b = passes_at({130, 131, 130, 129, 130, 131});
  const HostClockSides s = host_clock_sides(a, b, 1);
  ASSERT_TRUE(s.interval);
  EXPECT_TRUE(s.interval->slower());
  const RatioVerdict v = host_clock_verdict(s);
  EXPECT_FALSE(claims(v));
  EXPECT_NE(v.label.find("under the 1.5x floor"), std::string::npos) << v.label;
  EXPECT_EQ(v.wording, "1.3x the time");
}

TEST(HostClock, OnePassASideClaimsNothing) {
  const RatioVerdict v = compare_host_passes({pass_at(100)}, {pass_at(900)}, 1);
  EXPECT_FALSE(claims(v));
  EXPECT_NE(v.label.find("one pass a side"), std::string::npos) << v.label;
}

TEST(HostClock, PassesNoNumberCanBoundAreUnresolvedNotAnError) {
  // Passes 10^15 apart: the 99% interval overflows. No claim, the spread said, no throw.
  const PassSamples a = passes_at({1, 1e15, 1});
  const PassSamples b = passes_at({1e15, 1, 1e15});
  HostClockSides s;
  ASSERT_NO_THROW(s = host_clock_sides(a, b, 1000));
  EXPECT_FALSE(s.interval);
  const RatioVerdict v = host_clock_verdict(s);
  EXPECT_FALSE(claims(v));
  EXPECT_NE(v.label.find("the passes bound no interval"), std::string::npos) << v.label;
  EXPECT_NE(v.label.find("passes over 1000x apart"), std::string::npos) << v.label;
  RelativeDifference d;
  d.low = -1;
  EXPECT_FALSE(statable(d));
  d.low = 0;
  d.high = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(statable(d));
}

TEST(HostClock, AVerdictNeverContradictsTheMeansBesideIt) {
  // The case: fast's median reads 3.3x faster, its mean 27.7 us against 21.9 us.
  HostClockSides s;
  s.baseline_median_ns = 21'900;
  s.candidate_median_ns = 6'600;
  s.baseline_mean_ns = 21'900;
  s.candidate_mean_ns = 27'700;
  RelativeDifference d;
  d.estimate = -0.7;
  d.low = -0.8;
  d.high = -0.6;
  d.smallest_detectable = 0.2;
  s.interval = d;
  s.spread = 0.4;
  const RatioVerdict v = host_clock_verdict(s);
  EXPECT_FALSE(claims(v));
  EXPECT_EQ(v.wording.find("faster"), std::string::npos) << v.wording;
  EXPECT_NE(v.label.find("the means per call point the other way"), std::string::npos);
  // Means that agree: the claim stands.
  s.candidate_mean_ns = 7'000;
  EXPECT_EQ(host_clock_verdict(s).wording, "3.3x faster");
}

TEST(HostClock, AAgainstAUnderLoadClaimsAtMostOneInAHundred) {
  // A function against itself, 6 passes a side (3 rounds of A B B A), passes moving 30% and
  // now and then preempted 2x to 8x: the rule may claim in at most 1 of 100.
  Noise noise(20261207);
  int claimed = 0;
  for (int i = 0; i < 1000; ++i) {
    const PassSamples a = loaded_passes(noise, 50'000, 6, 0.3);
    const PassSamples b = loaded_passes(noise, 50'000, 6, 0.3);
    claimed += claims(compare_host_passes(a, b, 1)) ? 1 : 0;
  }
  EXPECT_LE(claimed, 10);
}

TEST(HostClock, ThreeTimesSlowerUnderLoadIsCaughtEveryTime) {
  // The same load, one side 3x the work; preempted calls land on either side, and a claim
  // must still be made every time, with the direction right.
  Noise noise(7);
  for (int i = 0; i < 1000; ++i) {
    const PassSamples a = loaded_passes(noise, 50'000, 6, 0.2);
    const PassSamples b = loaded_passes(noise, 150'000, 6, 0.2);
    const RatioVerdict v = compare_host_passes(a, b, 1);
    ASSERT_TRUE(claims(v)) << i << ": " << v.label;
    ASSERT_LT(v.speedup, 1.0);
  }
}

TEST(HostClock, APreemptedCallInAShortPassDoesNotHideADifference) {
  // Passes of 5 calls (a small budget's): one call of the slower side preempted to 170x its
  // work. The trimmed mean trims none of 5 and that pass's level is 35x the others'; each pass's
  // median is its work's, and 3x is caught. (Preempted on the faster side, the means beside
  // would point the other way, and no claim is made: HostClock.AVerdictNever...)
  PassSamples a;
  PassSamples b;
  for (int p = 0; p < 6; ++p) {
    a.push_back({5'000, 5'100, 4'900, 5'050, 4'950});
    b.push_back({15'000, 15'300, 14'700, 15'150, 14'850});
  }
  b[2][1] = 2'500'000;
  const RatioVerdict v = compare_host_passes(a, b, 1);
  EXPECT_TRUE(claims(v)) << v.label;
  EXPECT_EQ(v.wording, "3.0x slower");
  // The device-time rule (trimmed means) cannot bound it: the pass reads 35x.
  EXPECT_FALSE(relative_difference(a, b, 1).slower());
  EXPECT_EQ(pass_level({1, 9, 2}, kHostClockIntervalRules), 2);
  EXPECT_EQ(pass_level({1, 9, 2, 4}, kHostClockIntervalRules), 3);
}

TEST(HostClock, SpreadWords) {
  EXPECT_EQ(spread_words(0.43, 6.93), "passes spread 43%; load average 6.9");
  EXPECT_EQ(spread_words(3.8, std::nullopt), "passes spread 4.8x");
  EXPECT_EQ(spread_words(1e15, std::nullopt), "passes over 1000x apart");
  EXPECT_EQ(spread_words(std::nullopt, std::nullopt),
            "one pass a side: no spread to judge a difference by");
  EXPECT_NEAR(pass_spread(passes_at({100, 150}), passes_at({100, 110})).value(), 0.5, 1e-12);
}

// compare_rows, which every front end reads: two wall-clock rows of one record.
Result wall_row(const std::string& implementation, const std::vector<std::vector<Nanos>>& passes) {
  Result r;
  r.row = {"sum", {{"n", "1001"}}, implementation};
  Measurement& m = r.measurement;
  m.method = TimingMethod::host_clock;
  m.timestamp_tick_ns = 1;
  for (const std::vector<Nanos>& p : passes) {
    for (const Nanos x : p) {
      Sample s;
      s.device_busy_ns = x;
      s.latency_ns = x;
      m.samples.push_back(s);
    }
    m.pass_sizes.push_back(p.size());
  }
  m.measure_iterations = m.samples.size();
  r.summary = summarize(m.samples, m.method, 0, r.workload, Ceilings{});
  return r;
}

TEST(HostClockRows, AnUnchangedFunctionUnderLoadIsNotCalledSlower) {
  // The pytest gate's case: the same function, one pass of its candidate preempted. Medians
  // 1.9x apart; the passes spread wider than that.
  const Result base = wall_row("a", {{100, 101, 99}, {100, 102, 98}});
  const Result next = wall_row("b", {{190, 191, 189}, {100, 101, 99}, {190, 192, 188}});
  const Comparison c = compare_rows(base, next);
  ASSERT_TRUE(c.compared()) << c.refusal;
  ASSERT_TRUE(c.ratio);
  EXPECT_EQ(c.ratio->resolution, Resolution::no_measured_difference) << describe(c);
  EXPECT_EQ(describe(c).find("slower"), std::string::npos) << describe(c);
}

TEST(HostClockRows, MeansAgainstMediansAreNotCalledFaster) {
  // fast: most calls quick, a few very slow (mean 27.7 us); reference steady at 21.9 us.
  std::vector<Nanos> fast;
  for (int i = 0; i < 8; ++i) fast.push_back(6'600);
  fast.push_back(100'000);
  fast.push_back(120'000);
  const Result reference = wall_row("reference", {{21'900, 21'900, 21'900}, {21'900, 21'900}});
  const Result candidate = wall_row("fast", {fast, fast});
  const Comparison c = compare_rows(reference, candidate);
  ASSERT_TRUE(c.ratio);
  EXPECT_GT(c.candidate_mean_ns, c.baseline_mean_ns);
  EXPECT_EQ(describe(c).find("faster"), std::string::npos) << describe(c);
}

TEST(HostClockRows, PassesNoNumberCanBoundAreRecordedUnresolved) {
  // A wall-clock row whose passes overflow the interval: compared, no claim, no refusal (the
  // record is written); a device-time row likewise is not compared, and says why.
  const Result a = wall_row("a", {{1}, {1'000'000'000'000'000}, {1}});
  const Result b = wall_row("b", {{1'000'000'000'000'000}, {1}, {1'000'000'000'000'000}});
  const Comparison c = compare_rows(a, b);
  EXPECT_TRUE(c.compared()) << c.refusal;
  EXPECT_FALSE(c.difference);
  ASSERT_TRUE(c.ratio);
  EXPECT_EQ(c.ratio->resolution, Resolution::no_measured_difference);
  EXPECT_NE(c.ratio->label.find("the passes bound no interval"), std::string::npos)
      << c.ratio->label;
}

TEST(HostClockRows, RecordsBeforeVersion11KeepTheirRule) {
  // A version 10 record's comparison is recomputed as it was made: the 1.5x rule on the medians.
  const Result base = wall_row("a", {{100, 101, 99}, {100, 102, 98}});
  const Result next = wall_row("b", {{190, 191, 189}, {100, 101, 99}, {190, 192, 188}});
  const Comparison c = compare_rows(base, next, kHostClockRulesSince - 1);
  ASSERT_TRUE(c.ratio);
  EXPECT_EQ(c.ratio->resolution, Resolution::directional_difference);
  EXPECT_FALSE(c.ratio->by_passes);
  EXPECT_EQ(records_rules_version(10), 10);
  EXPECT_EQ(records_rules_version(9), 10);
  EXPECT_EQ(records_rules_version(8), 8);
  EXPECT_EQ(records_rules_version(kRecordSchemaVersion), kRecordSchemaVersion);
}

TEST(HostClock, ACallAtTheClocksFloorMeasuresItsOverhead) {
  // lambda: None read 0.32 us (issue 51): flagged; the floor itself too; above it, or on device
  // time, not.
  EXPECT_TRUE(measures_call_overhead(Statistic::synchronized_wall_clock, 320));
  EXPECT_TRUE(measures_call_overhead(Statistic::synchronized_wall_clock, kHostCallOverheadFloorNs));
  EXPECT_FALSE(measures_call_overhead(Statistic::synchronized_wall_clock, 1001));
  EXPECT_FALSE(measures_call_overhead(Statistic::device_busy, 320));
  EXPECT_FALSE(measures_call_overhead(Statistic::device_event, 320));
  EXPECT_EQ(call_overhead_words(320),
            "measures the call's overhead, not work (median 0.32 us, at or under the host "
            "clock's 1.0 us floor)");
}

TEST(HostClockRows, TwoCallsAtTheClocksFloorAreNeverSaidToDiffer) {
  // 6x apart by tight passes, both under the floor: the difference is the path into the calls.
  const Result a = wall_row("empty", {{100, 101, 99}, {100, 102, 98}, {101, 100, 99}});
  const Result b = wall_row("args", {{600, 601, 599}, {600, 602, 598}, {601, 600, 599}});
  const Comparison c = compare_rows(a, b);
  ASSERT_TRUE(c.compared()) << c.refusal;
  ASSERT_TRUE(c.ratio);
  ASSERT_TRUE(c.difference);
  EXPECT_TRUE(c.difference->slower());  // the interval alone would claim it
  EXPECT_EQ(c.ratio->resolution, Resolution::no_measured_difference) << describe(c);
  EXPECT_NE(c.ratio->label.find("they measure the call's overhead, not work"), std::string::npos)
      << c.ratio->label;
  EXPECT_EQ(describe(c).find("slower"), std::string::npos) << describe(c);
  // One side above the floor: the 6x is work, and claimed.
  const Result work =
      wall_row("work", {{6000, 6010, 5990}, {6000, 6020, 5980}, {6010, 6000, 5990}});
  const Comparison w = compare_rows(a, work);
  ASSERT_TRUE(w.ratio);
  EXPECT_EQ(w.ratio->resolution, Resolution::directional_difference) << describe(w);
  // Each row says it of itself, as its record's finish decided; a row above the floor says
  // nothing of it.
  Record record;
  record.results = {a, work};
  finish_record(record);
  EXPECT_TRUE(record.results[0].flags.call_overhead);
  EXPECT_NE(
      describe(record.results[0]).find("measures the call's overhead, not work (median 0.10 us"),
      std::string::npos)
      << describe(record.results[0]);
  EXPECT_EQ(describe(record.results[1]).find("overhead"), std::string::npos)
      << describe(record.results[1]);
}

// --- Across two runs, each row read against the yardstick timed beside it ---------------------

YardstickReading yardstick_at(const std::vector<double>& levels,
                              const std::string& work = "python-int-loop-1000") {
  return YardstickReading{work, levels};
}

TEST(HostClockAcrossRuns, EachPassIsReadAgainstTheYardstickPassBesideIt) {
  const PassSamples read =
      read_against_yardstick({{100, 200}, {300}}, {50, 150}, 100);  // scale 100 ns
  ASSERT_EQ(read.size(), 2u);
  EXPECT_DOUBLE_EQ(read[0][0], 200);
  EXPECT_DOUBLE_EQ(read[0][1], 400);
  EXPECT_DOUBLE_EQ(read[1][0], 200);
  EXPECT_THROW((void)read_against_yardstick({{100}, {100}}, {50}, 100), std::invalid_argument);
  EXPECT_THROW((void)read_against_yardstick({{100}}, {0}, 100), std::invalid_argument);
  EXPECT_THROW((void)read_against_yardstick({{100}}, {50}, 0), std::invalid_argument);
}

TEST(HostClockAcrossRuns, ASlowerRowWhoseBaselineRanUnderLoadIsCaught) {
  // The row the 2x floor missed: the baseline's minute ran it (and its yardstick) 1.6x slower,
  // so a 3x slower function read under 2x of it. Read against the yardsticks: 3x slower.
  const PassSamples base = passes_at({160, 165, 158, 162, 160, 159});
  const PassSamples next = passes_at({300, 305, 298, 302, 300, 299});
  const YardstickReading base_y = yardstick_at({64, 66, 63, 65, 64, 64});
  const YardstickReading next_y = yardstick_at({40, 41, 39, 40, 40, 40});
  const RatioVerdict fallback = host_clock_verdict(
      host_clock_sides_across_runs(base, std::nullopt, next, std::nullopt, 1, 6.9));
  EXPECT_FALSE(claims(fallback)) << fallback.label;
  EXPECT_EQ(fallback.floor, kAcrossRunsResolutionRatio);
  EXPECT_NE(fallback.label.find("under the 2.0x floor of what the host clock claims across two "
                                "runs, whose passes were not interleaved (neither row has a "
                                "yardstick)"),
            std::string::npos)
      << fallback.label;
  const HostClockSides sides = host_clock_sides_across_runs(base, base_y, next, next_y, 1, 6.9);
  EXPECT_TRUE(sides.against_yardstick);
  const RatioVerdict v = host_clock_verdict(sides);
  EXPECT_TRUE(claims(v)) << v.label;
  EXPECT_EQ(v.wording, "3.0x slower");
  EXPECT_EQ(v.floor, kAcrossRunsYardstickRatio);
  EXPECT_TRUE(v.against_yardstick);
  EXPECT_EQ(v.label, "directional difference, each row read against the yardstick timed beside it");
}

TEST(HostClockAcrossRuns, AnUnchangedRowWhoseRunRanUnderLoadIsNotCalledSlower) {
  // The new run's minute ran everything 2.2x slower, the row and its yardstick alike: by the
  // floor of rows never interleaved that is a claim; read against the yardsticks, no difference.
  const PassSamples base = passes_at({100, 101, 99, 100, 102, 100});
  const PassSamples next = passes_at({220, 222, 218, 221, 220, 219});
  const YardstickReading base_y = yardstick_at({40, 40, 41, 40, 39, 40});
  const YardstickReading next_y = yardstick_at({88, 88, 90, 88, 86, 88});
  EXPECT_TRUE(claims(
      host_clock_verdict(host_clock_sides_across_runs(base, std::nullopt, next, std::nullopt, 1))));
  const RatioVerdict v =
      host_clock_verdict(host_clock_sides_across_runs(base, base_y, next, next_y, 1, 7.5));
  EXPECT_FALSE(claims(v)) << v.label;
  EXPECT_NE(v.label.find("under the 1.5x floor of what the host clock claims across two runs, "
                         "each row read against the yardstick timed beside it; passes spread"),
            std::string::npos)
      << v.label;
  EXPECT_NE(v.label.find("load average 7.5"), std::string::npos) << v.label;
}

TEST(HostClockAcrossRuns, RowsWithoutOneYardstickFallBackToTheFloorOfRunsNotInterleaved) {
  const PassSamples base = passes_at({100, 101, 99, 100, 102, 100});
  const PassSamples next = passes_at({160, 162, 158, 161, 160, 159});
  const YardstickReading y = yardstick_at({40, 40, 40, 40, 40, 40});
  const auto why = [&](const std::optional<YardstickReading>& b,
                       const std::optional<YardstickReading>& n) {
    const HostClockSides s = host_clock_sides_across_runs(base, b, next, n, 1);
    EXPECT_FALSE(s.against_yardstick);
    EXPECT_TRUE(s.across_runs);
    const RatioVerdict v = host_clock_verdict(s);
    EXPECT_FALSE(claims(v)) << v.label;  // 1.6x: under the 2x floor
    EXPECT_EQ(v.floor, kAcrossRunsResolutionRatio);
    return s.no_yardstick;
  };
  EXPECT_EQ(why(std::nullopt, y), "the base row has no yardstick");
  EXPECT_EQ(why(y, std::nullopt), "the new row has no yardstick");
  EXPECT_EQ(why(y, yardstick_at(y.pass_ns, "cxx-loop")),
            "the two rows' yardsticks are different work");
  EXPECT_EQ(why(y, yardstick_at({40, 40})), "a yardstick's passes are not the row's");
  // With one yardstick on both sides, the same 1.6x is judged by the 1.5x floor: a claim.
  EXPECT_TRUE(claims(host_clock_verdict(host_clock_sides_across_runs(base, y, next, y, 1))));
}

TEST(HostClockAcrossRuns, AVerdictNeverContradictsTheMeansPrintedBesideIt) {
  // Read against the yardsticks the new row is 2x slower, but its minute ran everything at a
  // third of the time, so the means as measured (which a front end prints) say it is faster:
  // nothing is claimed.
  const PassSamples base = passes_at({300, 300, 300, 300, 300, 300});
  const PassSamples next = passes_at({200, 200, 200, 200, 200, 200});
  const YardstickReading base_y = yardstick_at({90, 90, 90, 90, 90, 90});
  const YardstickReading next_y = yardstick_at({30, 30, 30, 30, 30, 30});
  const HostClockSides s = host_clock_sides_across_runs(base, base_y, next, next_y, 1);
  ASSERT_TRUE(s.against_yardstick);
  EXPECT_GT(s.candidate_median_ns, s.baseline_median_ns);              // read: slower
  EXPECT_LT(s.printed_candidate_mean_ns, s.printed_baseline_mean_ns);  // measured: faster
  const RatioVerdict v = host_clock_verdict(s);
  EXPECT_FALSE(claims(v)) << v.label;
  EXPECT_NE(v.label.find("the means per call point the other way"), std::string::npos) << v.label;
}

// A row and its yardstick in one run on a loaded host: the run's own load (`run_sd`, what moves
// between two runs of a minute apart), each pass's local load, shared by the row's pass and the
// yardstick's beside it (`local_sd`), and each one's own noise (`own_sd`), with now and then a
// preempted call in the row's passes (loaded_passes).
struct RowAndYardstick {
  PassSamples row;
  YardstickReading yardstick;
};
RowAndYardstick loaded_run(Noise& noise, double level, double run_sd, double local_sd,
                           double own_sd) {
  RowAndYardstick out;
  out.yardstick.work = "python-int-loop-1000";
  const double run = std::exp(run_sd * noise.normal());
  for (int p = 0; p < 6; ++p) {
    const double local = run * std::exp(local_sd * noise.normal());
    PassSamples one = loaded_passes(noise, level * local, 1, own_sd);
    out.row.push_back(one.front());
    out.yardstick.pass_ns.push_back(40'000 * local * std::exp(own_sd * noise.normal()));
  }
  return out;
}

TEST(HostClockAcrossRuns, AAgainstAAcrossLoadedRunsClaimsAtMostOneInAHundred) {
  // Runs whose load, shared by a row and its yardstick, moves both about 0.55x to 1.8x between
  // them: read against the yardsticks, at most 1 in 100. (This is the drift a yardstick can
  // cancel; at load 13 the gate's rows on the build machine drifted by a state of their own,
  // which no yardstick shares: bench/results/2026-12-07-gate-calibration/.)
  Noise noise(2026120751);
  int claimed = 0;
  for (int i = 0; i < 1000; ++i) {
    const RowAndYardstick a = loaded_run(noise, 60'000, 0.2, 0.25, 0.1);
    const RowAndYardstick b = loaded_run(noise, 60'000, 0.2, 0.25, 0.1);
    claimed += claims(host_clock_verdict(
                   host_clock_sides_across_runs(a.row, a.yardstick, b.row, b.yardstick, 1)))
                   ? 1
                   : 0;
  }
  EXPECT_LE(claimed, 10);
}

TEST(HostClockAcrossRuns, ThreeTimesSlowerAcrossLoadedRunsIsCaughtEveryTime) {
  Noise noise(51);
  for (int i = 0; i < 1000; ++i) {
    // The same shared drift: a 3x slower row is called slower every time (the means as measured,
    // 3x apart less the drift, still agree).
    const RowAndYardstick a = loaded_run(noise, 60'000, 0.2, 0.25, 0.1);
    const RowAndYardstick b = loaded_run(noise, 180'000, 0.2, 0.25, 0.1);
    const RatioVerdict v =
        host_clock_verdict(host_clock_sides_across_runs(a.row, a.yardstick, b.row, b.yardstick, 1));
    ASSERT_TRUE(claims(v)) << i << ": " << v.label;
    ASSERT_LT(v.speedup, 1.0);
  }
}

// compare_across_runs reads the rows' yardsticks from their measurements.
TEST(HostClockRows, RowsOfTwoRunsAreReadAgainstTheirYardsticks) {
  Result base = wall_row("a", {{150'000, 151'000}, {149'000, 150'000}, {150'000, 152'000}});
  Result next = wall_row("a", {{300'000, 301'000}, {299'000, 300'000}, {300'000, 302'000}});
  // Without yardsticks: 2.0x by the medians, judged by the 2x floor of runs not interleaved.
  const Comparison before = compare_across_runs(base, next);
  ASSERT_TRUE(before.ratio);
  EXPECT_EQ(before.ratio->floor, kAcrossRunsResolutionRatio);
  EXPECT_FALSE(before.ratio->against_yardstick);
  base.measurement.yardstick = yardstick_at({60'000, 60'000, 60'000});
  next.measurement.yardstick = yardstick_at({40'000, 40'000, 40'000});
  const Comparison c = compare_across_runs(base, next);
  ASSERT_TRUE(c.ratio);
  EXPECT_TRUE(c.ratio->against_yardstick);
  EXPECT_EQ(c.ratio->resolution, Resolution::directional_difference) << describe(c);
  EXPECT_EQ(c.ratio->wording, "3.0x slower");
  // The means printed are those measured.
  EXPECT_NEAR(c.baseline_mean_ns, 150'333, 1);
  EXPECT_NE(describe(c).find("each row read against the yardstick timed beside it"),
            std::string::npos)
      << describe(c);
  // Within one run (compare_rows, not across runs) the yardsticks change nothing.
  const Comparison within = compare_rows(base, next);
  ASSERT_TRUE(within.ratio);
  EXPECT_FALSE(within.ratio->against_yardstick);
  EXPECT_EQ(within.ratio->wording, "2.0x slower");
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
