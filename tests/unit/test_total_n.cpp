// total(N) from a record's phases (docs/phases.md): the decomposition's terms and the settings they
// are read from, "not measured" never read as zero, the measured totals beside the prediction,
// and crossovers as brackets of measured points, on synthetic phases with known medians.
#include "gpumeter/detail/total_n.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpumeter/detail/phases.hpp"
#include "gpumeter/detail/verdict.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

constexpr PhaseSetting kCold = PhaseSetting::fresh_cold;
constexpr PhaseSetting kCached = PhaseSetting::fresh_cached;
constexpr PhaseSetting kWarm = PhaseSetting::warm_process;

const RowKey kRow{"bvh", {{"n", "1000000"}}, "warp"};

PhaseReading reading(const RowKey& row, Phase phase, PhaseSetting setting,
                     std::vector<Nanos> samples,
                     Statistic statistic = Statistic::synchronized_wall_clock) {
  PhaseReading r;
  r.row = row;
  r.phase = phase;
  r.setting = setting;
  r.statistic = statistic;
  r.samples_ns = std::move(samples);
  return r;
}

MeasuredTotal total(const RowKey& row, int calls, PhaseSetting setting,
                    std::vector<Nanos> samples) {
  MeasuredTotal t;
  t.row = row;
  t.calls = calls;
  t.setting = setting;
  t.samples_ns = std::move(samples);
  return t;
}

// Samples whose median is `median` and whose mean is not (a stray slow process), so a mean read
// in place of the median shows.
std::vector<Nanos> around(Nanos median) {
  return {median - median / 10, median - median / 20, median, median + median / 20, 6 * median};
}

const TotalAtN& at(const TotalN& t, int calls) {
  for (const TotalAtN& a : t.at) {
    if (a.calls == calls) return a;
  }
  throw std::out_of_range("no entry for N = " + std::to_string(calls));
}

TEST(Phases, NamesAndTitlesRoundTrip) {
  // The record's names are the enumerators' names, in declaration order.
  const std::vector<std::string> names = {
      "process_start", "init",          "cold_compile", "cached_load", "conversion",  "first_build",
      "first_launch",  "warm_build",    "refit",        "rebuild",     "warm_call",   "kernel_call",
      "end_to_end",    "graph_capture", "graph_replay", "downstream",  "process_exit"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto phase = static_cast<Phase>(i);
    EXPECT_EQ(to_string(phase), names[i]);
    ASSERT_EQ(parse_phase(names[i]), phase) << names[i];
    EXPECT_NE(phase_title(phase), "unknown phase");
  }
  EXPECT_EQ(to_string(static_cast<Phase>(names.size())), "unknown");
  EXPECT_EQ(to_string(Phase::cold_compile), "cold_compile");
  EXPECT_EQ(to_string(Phase::end_to_end), "end_to_end");
  EXPECT_EQ(phase_title(Phase::init), "framework import and init");
  EXPECT_EQ(phase_title(Phase::cold_compile), "cold compile (empty caches)");
  EXPECT_EQ(phase_title(Phase::warm_call), "warm call (device time)");
  EXPECT_EQ(phase_title(Phase::downstream), "next stage downstream");
  EXPECT_EQ(parse_phase("cold compile"), std::nullopt);
  EXPECT_EQ(parse_phase(""), std::nullopt);
  for (const PhaseSetting s : {kCold, kCached, kWarm}) {
    EXPECT_EQ(parse_phase_setting(to_string(s)), s);
  }
  EXPECT_EQ(to_string(kCached), "fresh_cached");
  EXPECT_EQ(parse_phase_setting("cached"), std::nullopt);
}

// The brief's example: process start 50 ms, init 1 s, load 0.2 s, per call 10 us.
TEST(DecomposeTotals, SumsTheMediansOfEachTerm) {
  const std::vector<PhaseReading> phases = {
      reading(kRow, Phase::process_start, kCached, around(50 * kMillisecond)),
      reading(kRow, Phase::init, kCached, around(kSecond)),
      reading(kRow, Phase::cached_load, kCached, around(200 * kMillisecond)),
      reading(kRow, Phase::end_to_end, kWarm, around(10 * kMicrosecond)),
  };
  const std::vector<MeasuredTotal> totals = {
      total(kRow, 100, kCached, {1'300'000'000, 1'380'000'000, 1'320'000'000}),
      total(kRow, 1000, kCached, {1'255'000'000}),
  };
  const std::vector<TotalN> out = decompose_totals(phases, totals);
  ASSERT_EQ(out.size(), 1u);  // nothing cold measured: the cached decomposition only
  const TotalN& t = out[0];
  EXPECT_EQ(t.row, kRow);
  EXPECT_EQ(t.setting, kCached);
  const std::vector<Phase> order = {Phase::process_start, Phase::init,        Phase::cached_load,
                                    Phase::conversion,    Phase::first_build, Phase::graph_capture,
                                    Phase::process_exit};
  ASSERT_EQ(t.fixed.size(), order.size());
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(t.fixed[i].phase, order[i]);
  EXPECT_EQ(t.fixed[1].median_ns, 1e9);
  EXPECT_EQ(t.fixed[1].setting, kCached);
  EXPECT_EQ(t.fixed[2].median_ns, 2e8);
  EXPECT_EQ(t.per_call.phase, Phase::end_to_end);
  EXPECT_EQ(t.per_call.setting, kWarm);
  EXPECT_EQ(t.per_call.median_ns, 1e4);
  // Conversion, build and capture do not apply to this candidate: left out, said so.
  EXPECT_EQ(t.absent, (std::vector<Phase>{Phase::conversion, Phase::first_build,
                                          Phase::graph_capture, Phase::process_exit}));
  EXPECT_TRUE(t.missing.empty());
  for (std::size_t i = 3; i < t.fixed.size(); ++i) EXPECT_EQ(t.fixed[i].median_ns, std::nullopt);

  // N = 1, 10, 100 always, and every N measured, ascending.
  ASSERT_EQ(t.at.size(), 4u);
  EXPECT_EQ(t.at[0].calls, 1);
  EXPECT_EQ(t.at[1].calls, 10);
  EXPECT_EQ(t.at[2].calls, 100);
  EXPECT_EQ(t.at[3].calls, 1000);
  EXPECT_DOUBLE_EQ(*at(t, 1).predicted_ns, 1.25e9 + 1e4);
  EXPECT_DOUBLE_EQ(*at(t, 100).predicted_ns, 1.25e9 + 1e6);  // 1.25 s + 1 ms
  EXPECT_DOUBLE_EQ(*at(t, 1000).predicted_ns, 1.25e9 + 1e7);
  EXPECT_EQ(at(t, 1).measured_ns, std::nullopt);
  EXPECT_EQ(at(t, 1).measured_over_predicted, std::nullopt);
  EXPECT_EQ(at(t, 100).measured_ns, 1.32e9);
  EXPECT_EQ(at(t, 100).measured_samples, 3u);
  EXPECT_DOUBLE_EQ(*at(t, 100).measured_over_predicted, 1.32e9 / 1.251e9);
  // Below 1: the loop overlapped what the phases time one by one.
  EXPECT_LT(*at(t, 1000).measured_over_predicted, 1.0);
}

// The exit (from the last synchronize to the exit the parent sees) is a fixed term of the
// prediction, and the measured total of N calls reaches the exit: the synchronize after the N-th
// call plus the median exit, the synchronize kept beside it. Synthetic: a process start of 50 ms,
// an init of 1 s, an exit of 400 ms, 10 us a call; the processes took 1.1 s to their synchronize
// after 100 calls.
TEST(DecomposeTotals, TheProcessExitIsInThePredictionAndTheMeasuredTotal) {
  const std::vector<PhaseReading> phases = {
      reading(kRow, Phase::process_start, kCached, around(50 * kMillisecond)),
      reading(kRow, Phase::init, kCached, around(kSecond)),
      reading(kRow, Phase::process_exit, kCached, {390'000'000, 400'000'000, 430'000'000}),
      reading(kRow, Phase::end_to_end, kWarm, around(10 * kMicrosecond)),
  };
  const std::vector<MeasuredTotal> totals = {
      total(kRow, 100, kCached, {1'090'000'000, 1'100'000'000, 1'120'000'000}),
  };
  const std::vector<TotalN> out = decompose_totals(phases, totals);
  ASSERT_EQ(out.size(), 1u);
  const TotalN& t = out[0];
  EXPECT_EQ(t.fixed.back().phase, Phase::process_exit);
  EXPECT_EQ(t.fixed.back().median_ns, 4e8);
  EXPECT_EQ(t.fixed.back().setting, kCached);
  const TotalAtN& a = at(t, 100);
  EXPECT_DOUBLE_EQ(*a.predicted_ns, 5e7 + 1e9 + 4e8 + 100 * 1e4);
  EXPECT_EQ(a.measured_ns, 1.1e9);  // to the synchronize, beside
  EXPECT_DOUBLE_EQ(*a.measured_to_exit_ns, 1.1e9 + 4e8);
  EXPECT_DOUBLE_EQ(*a.measured_over_predicted, 1.5e9 / 1.451e9);
  // Not measured (a record from before the exit phase): the totals end at the synchronize, and
  // the prediction leaves the exit out, named.
  const TotalN old = decompose_totals({phases[0], phases[1], phases[3]}, totals)[0];
  EXPECT_EQ(at(old, 100).measured_to_exit_ns, std::nullopt);
  EXPECT_DOUBLE_EQ(*at(old, 100).measured_over_predicted, 1.1e9 / 1.051e9);
  EXPECT_EQ(old.absent.back(), Phase::process_exit);
}

// A process exit is a fresh process's phase, in wall clock.
TEST(Phases, TheProcessExitIsAFreshWallClockPhase) {
  EXPECT_EQ(parse_phase("process_exit"), Phase::process_exit);
  EXPECT_TRUE(phase_allows(Phase::process_exit, PhaseSetting::fresh_cold));
  EXPECT_TRUE(phase_allows(Phase::process_exit, PhaseSetting::fresh_cached));
  EXPECT_FALSE(phase_allows(Phase::process_exit, PhaseSetting::warm_process));
  EXPECT_FALSE(phase_allows(Phase::process_exit, Statistic::device_busy));
}

TEST(DecomposeTotals, ColdCompileAndCachedLoadEachInTheirOwnDecomposition) {
  const std::vector<PhaseReading> phases = {
      reading(kRow, Phase::process_start, kCached, {40 * kMillisecond}),
      reading(kRow, Phase::process_start, kCold, {60 * kMillisecond}),
      // init measured in cached processes only: the cold decomposition reads it from there.
      reading(kRow, Phase::init, kCached, {kSecond}),
      reading(kRow, Phase::cold_compile, kCold, around(3 * kSecond)),
      reading(kRow, Phase::cached_load, kCached, {200 * kMillisecond}),
      // conversion measured cold only: the cached decomposition reads it from there.
      reading(kRow, Phase::conversion, kCold, {5 * kMillisecond}),
      // A capture is read in the measuring process only; one in a fresh process is not read.
      reading(kRow, Phase::graph_capture, kCached, {999 * kMillisecond}),
      reading(kRow, Phase::end_to_end, kWarm, {10 * kMicrosecond}),
  };
  const std::vector<TotalN> out =
      decompose_totals(phases, {total(kRow, 1, kCold, {4'500'000'000})});
  ASSERT_EQ(out.size(), 2u);
  const TotalN& cached = out[0];
  const TotalN& cold = out[1];
  EXPECT_EQ(cached.setting, kCached);
  EXPECT_EQ(cold.setting, kCold);

  EXPECT_EQ(cached.fixed[0].median_ns, 4e7);
  EXPECT_EQ(cold.fixed[0].median_ns, 6e7);
  EXPECT_EQ(cold.fixed[0].setting, kCold);
  EXPECT_EQ(cold.fixed[1].median_ns, 1e9);
  EXPECT_EQ(cold.fixed[1].setting, kCached);
  EXPECT_EQ(cached.fixed[2].phase, Phase::cached_load);
  EXPECT_EQ(cached.fixed[2].median_ns, 2e8);
  EXPECT_EQ(cold.fixed[2].phase, Phase::cold_compile);
  EXPECT_EQ(cold.fixed[2].median_ns, 3e9);
  EXPECT_EQ(cached.fixed[3].median_ns, 5e6);
  EXPECT_EQ(cached.fixed[3].setting, kCold);
  EXPECT_EQ(cached.fixed[5].median_ns, std::nullopt);
  EXPECT_EQ(cached.fixed[5].setting, kWarm);

  EXPECT_DOUBLE_EQ(*at(cached, 10).predicted_ns, 4e7 + 1e9 + 2e8 + 5e6 + 1e5);
  EXPECT_DOUBLE_EQ(*at(cold, 10).predicted_ns, 6e7 + 1e9 + 3e9 + 5e6 + 1e5);
  EXPECT_EQ(at(cold, 1).measured_ns, 4.5e9);
  EXPECT_EQ(at(cached, 1).measured_ns, std::nullopt);  // the cold total is not a cached one
  EXPECT_DOUBLE_EQ(*at(cold, 1).measured_over_predicted, 4.5e9 / (4.065e9 + 1e4));
}

TEST(DecomposeTotals, ATermNotMeasuredIsNeverZero) {
  // No init and no per call: no prediction at any N, the measured totals still shown.
  const std::vector<PhaseReading> phases = {
      reading(kRow, Phase::process_start, kCached, {40 * kMillisecond}),
      reading(kRow, Phase::cached_load, kCached, {200 * kMillisecond}),
      // A device-time reading of the call is another statistic: not the per-call term.
      reading(kRow, Phase::end_to_end, kWarm, {10 * kMicrosecond}, Statistic::device_busy),
  };
  const std::vector<TotalN> out = decompose_totals(phases, {total(kRow, 10, kCached, {kSecond})});
  ASSERT_EQ(out.size(), 1u);
  const TotalN& t = out[0];
  EXPECT_EQ(t.fixed[1].phase, Phase::init);
  EXPECT_EQ(t.fixed[1].median_ns, std::nullopt);
  EXPECT_EQ(t.per_call.median_ns, std::nullopt);
  EXPECT_EQ(t.missing, (std::vector<Phase>{Phase::init, Phase::end_to_end}));
  EXPECT_EQ(t.absent, (std::vector<Phase>{Phase::conversion, Phase::first_build,
                                          Phase::graph_capture, Phase::process_exit}));
  ASSERT_EQ(t.at.size(), 3u);
  for (const TotalAtN& a : t.at) {
    EXPECT_EQ(a.predicted_ns, std::nullopt) << a.calls;
    EXPECT_EQ(a.measured_over_predicted, std::nullopt) << a.calls;
  }
  EXPECT_EQ(at(t, 10).measured_ns, 1e9);
}

TEST(DecomposeTotals, AColdTotalWithoutItsCompileIsShownBesideNoPrediction) {
  // The candidate compiles (its cached load was measured), but no cold compile was: the cold
  // prediction would be the cached one less its load.
  const std::vector<TotalN> out =
      decompose_totals({reading(kRow, Phase::process_start, kCached, {40 * kMillisecond}),
                        reading(kRow, Phase::init, kCached, {kSecond}),
                        reading(kRow, Phase::cached_load, kCached, {10 * kMillisecond}),
                        reading(kRow, Phase::end_to_end, kWarm, {kMicrosecond})},
                       {total(kRow, 1, kCold, {5 * kSecond})});
  ASSERT_EQ(out.size(), 2u);
  const TotalN& cold = out[1];
  EXPECT_EQ(cold.setting, kCold);
  EXPECT_EQ(cold.fixed[2].phase, Phase::cold_compile);
  EXPECT_EQ(cold.fixed[2].median_ns, std::nullopt);
  EXPECT_EQ(cold.missing, std::vector<Phase>{Phase::cold_compile});
  EXPECT_EQ(at(cold, 1).predicted_ns, std::nullopt);
  EXPECT_EQ(at(cold, 1).measured_ns, 5e9);
  EXPECT_DOUBLE_EQ(*at(out[0], 1).predicted_ns, 1.05e9 + 1e3);
}

// A candidate that compiles nothing (a precompiled library's kernel) has no compile to leave out
// of its cold decomposition: it is absent there, as the load is from the cached one.
TEST(DecomposeTotals, ACandidateThatCompilesNothingIsPredictedColdWithoutACompile) {
  const std::vector<TotalN> out =
      decompose_totals({reading(kRow, Phase::process_start, kCold, {40 * kMillisecond}),
                        reading(kRow, Phase::init, kCold, {kSecond}),
                        reading(kRow, Phase::end_to_end, kWarm, {kMicrosecond})},
                       {total(kRow, 1, kCold, {5 * kSecond})});
  ASSERT_EQ(out.size(), 2u);
  const TotalN& cold = out[1];
  EXPECT_TRUE(cold.missing.empty());
  EXPECT_EQ(cold.absent.front(), Phase::cold_compile);
  EXPECT_DOUBLE_EQ(*at(cold, 1).predicted_ns, 1.04e9 + 1e3);
  EXPECT_EQ(out[0].absent.front(), Phase::cached_load);
  EXPECT_DOUBLE_EQ(*at(out[0], 1).predicted_ns, 1.04e9 + 1e3);
}

TEST(DecomposeTotals, ProcessStartIsRequired) {
  const std::vector<TotalN> out =
      decompose_totals({reading(kRow, Phase::init, kCached, {kSecond}),
                        reading(kRow, Phase::end_to_end, kWarm, {kMicrosecond})},
                       {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].missing, std::vector<Phase>{Phase::process_start});
  EXPECT_EQ(at(out[0], 1).predicted_ns, std::nullopt);
}

TEST(DecomposeTotals, EveryCandidateInOrderOfFirstAppearance) {
  const RowKey other{"bvh", {{"n", "1000000"}}, "embree"};
  const RowKey only_total{"bvh", {{"n", "10"}}, "warp"};
  const std::vector<TotalN> out = decompose_totals(
      {reading(other, Phase::init, kCached, {kSecond}),
       reading(kRow, Phase::init, kCached, {2 * kSecond}),
       reading(other, Phase::init, kCached, {3 * kSecond})},
      {total(only_total, 5, kCached, {kSecond}), total(only_total, 5, kWarm, {kSecond})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].row, other);
  EXPECT_EQ(out[0].fixed[1].median_ns, 2e9);  // both readings' samples pooled
  EXPECT_EQ(out[1].row, kRow);
  EXPECT_EQ(out[2].row, only_total);
  EXPECT_EQ(at(out[2], 5).measured_ns, 1e9);  // the warm total is no fresh process's
  EXPECT_EQ(at(out[2], 5).measured_samples, 1u);
}

// find_crossovers: brackets of measured points, never an interpolated size.
const RowKey kA{"c", {}, "a"};
const RowKey kB{"c", {}, "b"};

AxisPoint point(double x, double a_ns, double b_ns, int decided) {
  return AxisPoint{x, a_ns, b_ns, decided};
}

TEST(FindCrossovers, NoneWhenOneAlwaysLeads) {
  EXPECT_TRUE(
      find_crossovers(kA, kB, {point(1, 10, 30, -1), point(10, 20, 25, 0), point(100, 30, 90, -1)})
          .empty());
  EXPECT_TRUE(find_crossovers(kA, kB, {}).empty());
  EXPECT_TRUE(find_crossovers(kA, kB, {point(1, 10, 5, 1)}).empty());
}

TEST(FindCrossovers, AResolvedBracketSpansTheUndecidedPointsBetween) {
  // Unsorted on purpose. a leads decidedly at 1, b decidedly at 1000; between them the medians
  // change order at 10..100 but nothing is decided: the bracket is [1, 1000].
  const std::vector<Crossover> out = find_crossovers(
      kA, kB,
      {point(1000, 90, 30, 1), point(10, 10, 12, 0), point(1, 10, 40, -1), point(100, 12, 11, 0)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].resolved);
  EXPECT_EQ(out[0].low, 1);
  EXPECT_EQ(out[0].high, 1000);
  EXPECT_EQ(out[0].first, kA);  // ahead at low
  EXPECT_EQ(out[0].second, kB);
  EXPECT_EQ(out[0].axis, "");
}

TEST(FindCrossovers, AFlipOfTheMediansAloneIsUnresolved) {
  const std::vector<Crossover> out =
      find_crossovers(kA, kB, {point(1, 20, 15, 0), point(10, 20, 18, 0), point(100, 20, 25, 0)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].resolved);
  EXPECT_EQ(out[0].low, 10);
  EXPECT_EQ(out[0].high, 100);
  EXPECT_EQ(out[0].first, kB);  // b's median is lower at 10
  EXPECT_EQ(out[0].second, kA);
}

TEST(FindCrossovers, EqualMediansHaveNoOrder) {
  const std::vector<Crossover> out =
      find_crossovers(kA, kB, {point(1, 10, 12, 0), point(10, 15, 15, 0), point(100, 20, 18, 0)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].resolved);
  EXPECT_EQ(out[0].low, 1);
  EXPECT_EQ(out[0].high, 100);
  EXPECT_EQ(out[0].first, kA);
}

TEST(FindCrossovers, SeveralCrossoversEachAsItsOwnBracket) {
  // Decided: a, b, a; then an undecided flip back to b past the last decided point.
  const std::vector<Crossover> out = find_crossovers(
      kA, kB,
      {point(1, 10, 30, -1), point(2, 30, 10, 1), point(3, 10, 30, -1), point(4, 20, 19, 0)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].resolved);
  EXPECT_EQ(out[0].low, 1);
  EXPECT_EQ(out[0].high, 2);
  EXPECT_EQ(out[0].first, kA);
  EXPECT_TRUE(out[1].resolved);
  EXPECT_EQ(out[1].low, 2);
  EXPECT_EQ(out[1].high, 3);
  EXPECT_EQ(out[1].first, kB);
  EXPECT_FALSE(out[2].resolved);
  EXPECT_EQ(out[2].low, 3);
  EXPECT_EQ(out[2].high, 4);
  EXPECT_EQ(out[2].first, kA);
  EXPECT_EQ(out[2].second, kB);
}

TEST(FindCrossovers, RefusesARepeatedOrNonFinitePoint) {
  EXPECT_THROW(find_crossovers(kA, kB, {point(1, 1, 2, 0), point(1, 2, 1, 0)}),
               std::invalid_argument);
  EXPECT_THROW(find_crossovers(kA, kB, {point(1, 1, 2, 0), point(2, std::nan(""), 1, 0)}),
               std::invalid_argument);
}

// A: 20 ms to set up, 10 us a call. B: 1 ms to set up, 1 ms a call. At 10 calls B is 1.8x
// faster, at 100 A is 4.8x faster: a resolved bracket [10, 100]. Each N's five processes read
// within 5% of each other: the host-clock rule takes each process for a pass, and their spread
// bounds both ends.
std::vector<Nanos> loop(Nanos fixed, Nanos per_call, int calls) {
  const Nanos m = fixed + calls * per_call;
  return {m - m / 20, m - m / 40, m, m + m / 40, m + m / 20};
}

TEST(CrossoversInCalls, AHighFixedCostLosesFewCallsAndWinsMany) {
  const RowKey a{"bvh", {{"n", "1000"}}, "a"};
  const RowKey b{"bvh", {{"n", "1000"}}, "b"};
  std::vector<MeasuredTotal> totals;
  for (const int n : {1, 10, 100, 1000}) {
    totals.push_back(total(a, n, kCached, loop(20 * kMillisecond, 10 * kMicrosecond, n)));
    totals.push_back(total(b, n, kCached, loop(kMillisecond, kMillisecond, n)));
  }
  // Cold processes, measured at one common N only: no crossover in that setting.
  totals.push_back(total(a, 1, kCold, {kSecond}));
  totals.push_back(total(b, 1, kCold, {2 * kSecond}));
  totals.push_back(total(b, 10, kCold, {2 * kSecond}));
  const std::vector<Crossover> out = crossovers_in_calls(totals);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].resolved);
  EXPECT_EQ(out[0].first, b);  // ahead at 10 calls
  // A stray process 6x the others in each N's five: the passes bound neither end, and the
  // medians' change of order is not called a crossover.
  std::vector<MeasuredTotal> stray;
  for (const int n : {10, 100}) {
    stray.push_back(total(a, n, kCached, around(20 * kMillisecond + n * 10 * kMicrosecond)));
    stray.push_back(total(b, n, kCached, around(kMillisecond + n * kMillisecond)));
  }
  const std::vector<Crossover> unresolved = crossovers_in_calls(stray);
  ASSERT_EQ(unresolved.size(), 1u);
  EXPECT_FALSE(unresolved[0].resolved);
  EXPECT_EQ(out[0].second, a);
  EXPECT_EQ(out[0].low, 10);
  EXPECT_EQ(out[0].high, 100);
  EXPECT_EQ(out[0].axis, kCallsAxis);
  EXPECT_EQ(out[0].setting, kCached);
  EXPECT_EQ(out[0].statistic, Statistic::synchronized_wall_clock);
}

TEST(CrossoversInCalls, UnderTheResolutionTheBracketIsUnresolved) {
  // 1.2x either way: the medians change order, the 1.5x rule decides nothing.
  const RowKey a{"k", {}, "a"};
  const RowKey b{"k", {}, "b"};
  const std::vector<Crossover> out = crossovers_in_calls({
      total(a, 1, kCached, {120}),
      total(b, 1, kCached, {100}),
      total(a, 10, kCached, {1000}),
      total(b, 10, kCached, {1200}),
  });
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].resolved);
  EXPECT_EQ(out[0].first, b);
  EXPECT_EQ(out[0].low, 1);
  EXPECT_EQ(out[0].high, 10);
}

TEST(CrossoversInCalls, EveryPairOfEachCaseAndParams) {
  // Three candidates: a crosses b and c; b and c never cross. Another size's candidates are
  // never set against these.
  const auto key = [](const std::string& impl, const std::string& n) {
    return RowKey{"k", {{"n", n}}, impl};
  };
  std::vector<MeasuredTotal> totals = {
      total(key("a", "1"), 1, kCached, {1000}), total(key("a", "1"), 100, kCached, {2000}),
      total(key("b", "1"), 1, kCached, {100}),  total(key("b", "1"), 100, kCached, {10000}),
      total(key("c", "1"), 1, kCached, {200}),  total(key("c", "1"), 100, kCached, {20000}),
      total(key("d", "2"), 1, kCached, {1}),    total(key("d", "2"), 100, kCached, {1}),
  };
  const std::vector<Crossover> out = crossovers_in_calls(totals);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].first, key("b", "1"));
  EXPECT_EQ(out[0].second, key("a", "1"));
  EXPECT_EQ(out[1].first, key("c", "1"));
  EXPECT_EQ(out[1].second, key("a", "1"));
}

// compare_phases: each wall-clock phase against the first candidate of its case, same phase and
// setting; the first's own, device-time phases and phases the first lacks are not compared.
TEST(ComparePhases, ReadsEachCandidateAgainstTheFirstOfItsCase) {
  const RowKey first{"bvh", {{"n", "1000"}}, "ref"};
  const RowKey second{"bvh", {{"n", "1000"}}, "fast"};
  const RowKey other_size{"bvh", {{"n", "2000"}}, "fast"};  // a case of its own: first there
  const std::vector<Nanos> tight = {1000, 1010, 1020, 1005, 1015, 1000, 1010, 1020};
  std::vector<Nanos> thrice;
  for (Nanos t : tight) thrice.push_back(3 * t);
  const std::vector<PhaseReading> phases = {
      reading(first, Phase::process_start, kCold, thrice),
      reading(second, Phase::process_start, kCold, tight),
      reading(second, Phase::init, kCold, tight),  // the first has no init: not compared
      reading(first, Phase::warm_call, kWarm, tight, Statistic::device_busy),
      reading(second, Phase::warm_call, kWarm, thrice, Statistic::device_busy),
      reading(other_size, Phase::process_start, kCold, tight),
      reading(first, Phase::first_launch, kCold, tight),
      reading(second, Phase::first_launch, kCold, {0, 1000, 1000}),
  };
  const std::vector<PhaseVersus> v = compare_phases(phases);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].reading, 1u);
  EXPECT_EQ(v[0].against, "ref");
  ASSERT_TRUE(v[0].verdict.has_value());
  EXPECT_EQ(v[0].verdict->resolution, Resolution::directional_difference);
  EXPECT_GT(v[0].verdict->speedup, 2.5);
  EXPECT_EQ(v[1].reading, 7u);
  EXPECT_FALSE(v[1].verdict.has_value());  // a sample of zero: no ratio
}

// Two candidates whose readings are the same: never a claim.
TEST(ComparePhases, TheSameReadingsClaimNothing) {
  const std::vector<Nanos> same = {1000, 1300, 900, 1100, 1000, 1200, 950, 1050};
  const std::vector<PhaseReading> phases = {
      reading({"c", {}, "a"}, Phase::process_start, kCold, same),
      reading({"c", {}, "b"}, Phase::process_start, kCold, same),
  };
  const std::vector<PhaseVersus> v = compare_phases(phases);
  ASSERT_EQ(v.size(), 1u);
  ASSERT_TRUE(v[0].verdict.has_value());
  EXPECT_NE(v[0].verdict->resolution, Resolution::directional_difference);
}

// Issue 51: two interpreter starts of the same work read as a loaded machine reads them, the
// medians 1.8x apart (105 ms against 190 ms) and each side's fresh processes up to 2x apart. The
// rule before it (the 1.5x resolution on the medians alone, compare_times) claimed "1.8x slower";
// the passes' interval includes no difference, so nothing is claimed and the spread is said.
TEST(ComparePhases, MediansApartWithinTheSpreadOfALoadedMachineClaimNothing) {
  const std::vector<Nanos> first = {100'000'000, 190'000'000, 105'000'000};
  const std::vector<Nanos> same_work = {190'000'000, 100'000'000, 200'000'000};
  // What the medians alone say: the rule this one replaced claimed a difference here.
  const RatioVerdict medians_alone =
      compare_times(spread_of(first).median_ns, spread_of(same_work).median_ns);
  ASSERT_EQ(medians_alone.resolution, Resolution::directional_difference);
  ASSERT_EQ(medians_alone.wording, "1.8x slower");

  const std::vector<PhaseReading> phases = {
      reading({"start", {}, "a"}, Phase::process_start, kCold, first),
      reading({"start", {}, "b"}, Phase::process_start, kCold, same_work),
  };
  const std::vector<PhaseVersus> v = compare_phases(phases);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].reading, 1u);
  ASSERT_TRUE(v[0].verdict.has_value());
  const RatioVerdict& verdict = *v[0].verdict;
  EXPECT_EQ(verdict.resolution, Resolution::no_measured_difference);
  EXPECT_TRUE(verdict.by_passes);
  EXPECT_NE(verdict.wording.find("the time"), std::string::npos) << verdict.wording;
  // Why, in the rule's words: the passes, and how far apart they read (200 ms over 100 ms).
  EXPECT_EQ(verdict.label.rfind("no difference this machine can resolve now (", 0), 0u)
      << verdict.label;
  EXPECT_NE(verdict.label.find("the passes' interval includes no difference"), std::string::npos)
      << verdict.label;
  EXPECT_NE(verdict.label.find("passes spread 2.0x"), std::string::npos) << verdict.label;
  ASSERT_TRUE(verdict.spread.has_value());
  EXPECT_DOUBLE_EQ(*verdict.spread, 1.0);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
