// T14: the timestamp-unit check, on synthetic probe readings with known answers.
#include "timestamp_unit.hpp"

#include <gtest/gtest.h>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include <optional>
#include <random>
#include <vector>

#include "attribute.hpp"
#include "gpumeter/backend/trace.hpp"
#include "gpumeter/detail/timestamp_check.hpp"

namespace gpumeter::detail {
namespace GPUMETER_THIS_FILE {

// What a backend reports for a probe that began at `own_start` on the GPU's clock and spun
// `own` ns, in a clock of `scale` units per ns with an arbitrary origin: the record starts
// `startup` ns before the kernel's first clock reading (0.67 to 1.86 us seen on the H200) and ends
// 100 ns after its last, both on CUPTI's 32 ns grid.
ClockProbe probe(Nanos own_start, Nanos own, double scale, Nanos startup = 670) {
  constexpr Nanos kOrigin = 1'700'000'000'000'000'000;
  constexpr Nanos kTick = 32;
  const auto reported = [&](Nanos gpu_ns) {
    const Nanos on_grid = (gpu_ns / kTick) * kTick;
    return kOrigin + static_cast<Nanos>(std::llround(static_cast<double>(on_grid) * scale));
  };
  return ClockProbe{own_start, own_start + own, reported(own_start - startup),
                    reported(own_start + own + 100)};
}

constexpr Nanos kStart = 5'000'000'000;  // the first probe's %globaltimer reading

TEST(TimestampUnit, CuptisOwnNanosecondsPassWhateverTheStartUp) {
  for (const Nanos startup_a : {670, 1200, 1860}) {
    for (const Nanos startup_b : {670, 1200, 1860}) {
      const UnitJudgement j = judge_phase_probes(
          probe(kStart, kPhaseProbeNs, 1.0, startup_a),
          probe(kStart + kMinProbeSpanNs - kPhaseProbeNs, kPhaseProbeNs, 1.0, startup_b));
      EXPECT_EQ(j.finding, UnitFinding::nanoseconds) << startup_a << " " << startup_b;
      EXPECT_NEAR(j.slope, 1.0, 0.0025) << startup_a << " " << startup_b;
    }
  }
}

TEST(TimestampUnit, ATscClockIsAnotherUnitWithItsScale) {
  // PyTorch's profiler's clock on the H200: 2.1 TSC ticks per ns, reading a 20 us spin as 43.5.
  // A measured phase of 100 ms between the probes pins the scale to a few parts per million.
  const UnitJudgement j =
      judge_phase_probes(probe(kStart, kPhaseProbeNs, 2.1, 900),
                         probe(kStart + 100 * kMillisecond, kPhaseProbeNs, 2.1, 1700));
  EXPECT_EQ(j.finding, UnitFinding::other_unit);
  EXPECT_NEAR(j.slope, 2.1, 2.1 * 1e-5);
}

TEST(TimestampUnit, MicrosecondsAndSlightlyOffClocksAreOtherUnits) {
  const Nanos later = kStart + 10 * kMillisecond;
  EXPECT_EQ(
      judge_phase_probes(probe(kStart, kPhaseProbeNs, 0.001), probe(later, kPhaseProbeNs, 0.001))
          .finding,
      UnitFinding::other_unit);
  for (const double scale : {1.0 + 1.5 * kUnitTolerance, 1.0 - 1.5 * kUnitTolerance}) {
    EXPECT_EQ(
        judge_phase_probes(probe(kStart, kPhaseProbeNs, scale), probe(later, kPhaseProbeNs, scale))
            .finding,
        UnitFinding::other_unit)
        << scale;
  }
  const double inside = 1.0 + 0.5 * kUnitTolerance;
  EXPECT_EQ(
      judge_phase_probes(probe(kStart, kPhaseProbeNs, inside), probe(later, kPhaseProbeNs, inside))
          .finding,
      UnitFinding::nanoseconds);
}

TEST(TimestampUnit, AClockChangedDuringThePhaseIsNamed) {
  // In nanoseconds at the start and TSC ticks at the end (the records' origins as one clock's),
  // and the other way round.
  const Nanos later = kStart + 10 * kMillisecond;
  ClockProbe ns_first = probe(kStart, kPhaseProbeNs, 1.0);
  ClockProbe tsc_last = probe(later, kPhaseProbeNs, 2.1);
  EXPECT_EQ(judge_phase_probes(ns_first, tsc_last).finding, UnitFinding::changed_in_phase);
  EXPECT_EQ(judge_phase_probes(probe(kStart, kPhaseProbeNs, 2.1), probe(later, kPhaseProbeNs, 1.0))
                .finding,
            UnitFinding::changed_in_phase);
}

TEST(TimestampUnit, ProbesThatDidNotRunOrRanTooCloseDecideNothing) {
  const ClockProbe good = probe(kStart + 10 * kMillisecond, kPhaseProbeNs, 1.0);
  EXPECT_EQ(judge_phase_probes(ClockProbe{}, good).finding, UnitFinding::probe_failed);
  ClockProbe unwritten = probe(kStart, kPhaseProbeNs, 1.0);
  unwritten.own_end = unwritten.own_start;
  EXPECT_EQ(judge_phase_probes(unwritten, good).finding, UnitFinding::probe_failed);
  // Back to back, without the wait: 40 us apart tells the slope to a few percent only.
  EXPECT_EQ(judge_phase_probes(probe(kStart, kPhaseProbeNs, 1.0),
                               probe(kStart + kPhaseProbeNs + 500, kPhaseProbeNs, 1.0))
                .finding,
            UnitFinding::probe_failed);
}

// Start-ups drawn anywhere in what the H200 showed, probes 1 ms apart (the shortest phase):
// nanoseconds always pass, with the slope within 0.25%, and a 2.1 GHz clock always converts
// within 0.25%.
TEST(TimestampUnit, JitteredStartUpsOverTheShortestSpanStayWithinAQuarterPercent) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<Nanos> startup(670, 1860);
  for (int trial = 0; trial < 2000; ++trial) {
    for (const double scale : {1.0, 2.1}) {
      const ClockProbe a = probe(kStart, kPhaseProbeNs, scale, startup(rng));
      const ClockProbe b =
          probe(kStart + kMinProbeSpanNs - kPhaseProbeNs, kPhaseProbeNs, scale, startup(rng));
      const UnitJudgement j = judge_phase_probes(a, b);
      ASSERT_EQ(j.finding, scale == 1.0 ? UnitFinding::nanoseconds : UnitFinding::other_unit)
          << trial;
      EXPECT_NEAR(j.slope, scale, 0.0025 * scale) << trial;
    }
  }
}

TEST(TimestampUnit, ConvertedReadingsAreTheDevicesNanoseconds) {
  // Two 20 us kernels 5 us apart and a 40 us one on another stream overlapping the first,
  // reported in 2.1 ticks per ns from an arbitrary origin.
  constexpr double kScale = 2.1;
  const Nanos origin = 123'456'789'000;
  const auto at = [&](Nanos ns) {
    return origin + static_cast<Nanos>(std::llround(static_cast<double>(ns) * kScale));
  };
  Trace t;
  t.external_id_of = {{1, 0}, {2, 0}, {3, 0}};
  t.dropped_records = 0;
  t.activities.push_back(Activity{ActivityKind::kernel, at(0), at(20'000), 1, 0, 0, 0, "a"});
  t.activities.push_back(Activity{ActivityKind::kernel, at(25'000), at(45'000), 2, 0, 0, 0, "b"});
  t.activities.push_back(Activity{ActivityKind::kernel, at(10'000), at(50'000), 3, 0, 1, 0, "c"});
  convert_timestamps(t, kScale);
  ASSERT_TRUE(t.timestamp_unit.has_value());
  EXPECT_TRUE(t.timestamp_unit->converted);
  EXPECT_DOUBLE_EQ(t.timestamp_unit->scale, kScale);
  const std::vector<Sample> s = attribute(t, 1, AttributionOptions{});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NEAR(static_cast<double>(s[0].device_busy_ns), 50'000, 1);
  EXPECT_NEAR(static_cast<double>(s[0].latency_ns), 50'000, 1);
  EXPECT_NEAR(static_cast<double>(t.activities[1].end_ns - t.activities[1].start_ns), 20'000, 1);
}

TEST(TimestampUnit, AMeasurementCountsItsPhasesAndTheirScales) {
  TimestampCheck c;
  c.add(TimestampUnit{1.0, false});
  c.add(TimestampUnit{2.1, true});
  c.add(TimestampUnit{2.05, true});
  EXPECT_EQ(c.phases, 3u);
  EXPECT_EQ(c.converted, 2u);
  EXPECT_DOUBLE_EQ(c.min_scale, 2.05);
  EXPECT_DOUBLE_EQ(c.max_scale, 2.1);

  TimestampCheck plain;
  plain.add(TimestampUnit{1.0, false});
  EXPECT_DOUBLE_EQ(plain.min_scale, 1.0);
  EXPECT_DOUBLE_EQ(plain.max_scale, 1.0);
  const std::optional<TimestampCheck> both = combine(plain, c);
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->phases, 4u);
  EXPECT_EQ(both->converted, 2u);
  EXPECT_DOUBLE_EQ(both->min_scale, 2.05);  // the unconverted phase's 1 is not a scale
  EXPECT_DOUBLE_EQ(both->max_scale, 2.1);
  EXPECT_FALSE(combine(std::nullopt, std::nullopt).has_value());
  EXPECT_EQ(combine(std::nullopt, plain)->phases, 1u);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter::detail
