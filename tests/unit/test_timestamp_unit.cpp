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
#include "gpumeter/activity.hpp"
#include "gpumeter/timestamp_check.hpp"

namespace gpumeter::detail {
namespace {

// What CUPTI reports for a probe that spun `own` ns, in a clock of `scale` units per ns: the
// kernel's fixed start-up (about 670 ns on the H200) is inside the record, and a reading lands
// on CUPTI's 32 ns grid, here shifted by `jitter` ticks.
ClockProbe probe(Nanos own, double scale, int jitter_ticks = 0) {
  constexpr Nanos kStartup = 670;
  constexpr Nanos kTick = 32;
  const Nanos ns = own + kStartup + jitter_ticks * kTick;
  return ClockProbe{own, static_cast<Nanos>(std::llround(static_cast<double>(ns) * scale))};
}

TEST(TimestampUnit, CuptisOwnNanosecondsPass) {
  for (int a = -1; a <= 1; ++a) {
    for (int b = -1; b <= 1; ++b) {
      const UnitJudgement j =
          judge_phase_probes(probe(kPhaseProbeShortNs, 1.0, a), probe(kPhaseProbeLongNs, 1.0, b),
                             probe(kPhaseProbeLongNs, 1.0, -b));
      EXPECT_EQ(j.finding, UnitFinding::nanoseconds) << a << " " << b;
      EXPECT_NEAR(j.slope, 1.0, 0.005);
    }
  }
}

TEST(TimestampUnit, ATscClockIsAnotherUnitWithItsScale) {
  // PyTorch's profiler's clock on the H200: 2.1 TSC ticks per ns, reading a 20 us spin as 43.5.
  const UnitJudgement j =
      judge_phase_probes(probe(kPhaseProbeShortNs, 2.1), probe(kPhaseProbeLongNs, 2.1, 1),
                         probe(kPhaseProbeLongNs, 2.1));
  EXPECT_EQ(j.finding, UnitFinding::other_unit);
  EXPECT_NEAR(j.slope, 2.1, 0.01);
}

TEST(TimestampUnit, MicrosecondsAndSlightlyOffClocksAreOtherUnits) {
  EXPECT_EQ(judge_phase_probes(probe(kPhaseProbeShortNs, 0.001), probe(kPhaseProbeLongNs, 0.001),
                               probe(kPhaseProbeLongNs, 0.001))
                .finding,
            UnitFinding::other_unit);
  // Just outside the tolerance either way, and just inside.
  for (const double scale : {1.0 + 1.5 * kUnitTolerance, 1.0 - 1.5 * kUnitTolerance}) {
    EXPECT_EQ(judge_phase_probes(probe(kPhaseProbeShortNs, scale), probe(kPhaseProbeLongNs, scale),
                                 probe(kPhaseProbeLongNs, scale))
                  .finding,
              UnitFinding::other_unit)
        << scale;
  }
  const double inside = 1.0 + 0.5 * kUnitTolerance;
  EXPECT_EQ(judge_phase_probes(probe(kPhaseProbeShortNs, inside), probe(kPhaseProbeLongNs, inside),
                               probe(kPhaseProbeLongNs, inside))
                .finding,
            UnitFinding::nanoseconds);
}

TEST(TimestampUnit, AClockChangedDuringThePhaseIsNamed) {
  // In nanoseconds at the start, in TSC ticks at the end, and the other way round.
  EXPECT_EQ(judge_phase_probes(probe(kPhaseProbeShortNs, 1.0), probe(kPhaseProbeLongNs, 1.0),
                               probe(kPhaseProbeLongNs, 2.1))
                .finding,
            UnitFinding::changed_in_phase);
  EXPECT_EQ(judge_phase_probes(probe(kPhaseProbeShortNs, 2.1), probe(kPhaseProbeLongNs, 2.1),
                               probe(kPhaseProbeLongNs, 1.0))
                .finding,
            UnitFinding::changed_in_phase);
}

TEST(TimestampUnit, AProbeThatDidNotRunDecidesNothing) {
  EXPECT_EQ(judge_phase_probes(ClockProbe{0, 0}, probe(kPhaseProbeLongNs, 1.0),
                               probe(kPhaseProbeLongNs, 1.0))
                .finding,
            UnitFinding::probe_failed);
  EXPECT_EQ(judge_phase_probes(probe(kPhaseProbeShortNs, 1.0), probe(kPhaseProbeLongNs, 1.0),
                               ClockProbe{kPhaseProbeLongNs, 0})
                .finding,
            UnitFinding::probe_failed);
  // The same own duration twice: no slope.
  EXPECT_EQ(judge_phase_probes(probe(kPhaseProbeLongNs, 1.0), probe(kPhaseProbeLongNs, 1.0),
                               probe(kPhaseProbeLongNs, 1.0))
                .finding,
            UnitFinding::probe_failed);
}

TEST(TimestampUnit, AScaleIsTrustedOnlyWhenItsPairsAgree) {
  const std::vector<ClockProbe> shorts{probe(kScaleProbeShortNs, 2.1, 1),
                                       probe(kScaleProbeShortNs, 2.1, -1)};
  const std::vector<ClockProbe> longs{probe(kScaleProbeLongNs, 2.1, 0),
                                      probe(kScaleProbeLongNs, 2.1, 1)};
  const std::optional<double> scale = reliable_scale(shorts, longs, 2.11);
  ASSERT_TRUE(scale.has_value());
  EXPECT_NEAR(*scale, 2.1, 2.1 * 1e-4);
  // The two pairs disagree by 0.2% (a clock that moved between them).
  const std::vector<ClockProbe> moved{probe(kScaleProbeLongNs, 2.1),
                                      probe(kScaleProbeLongNs, 2.1 * 1.002)};
  EXPECT_FALSE(reliable_scale(shorts, moved, 2.1).has_value());
  // Consistent pairs, but not the phase's unit.
  EXPECT_FALSE(reliable_scale(shorts, longs, 1.5).has_value());
  // One pair is not enough to see a disagreement.
  EXPECT_FALSE(reliable_scale({shorts[0]}, {longs[0]}, 2.1).has_value());
}

// Pairs with readings on a 32 ns grid of a 2.1 GHz clock, jittered by up to two ticks each way:
// at worst four ticks over the pairs' 1 ms, so the trusted scale is within 0.013% of the truth
// and a converted 2 ms reading is off by at most 0.26 us.
TEST(TimestampUnit, AScaleFromJitteredPairsIsWithinFourTicksPerMillisecond) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> jitter(-2, 2);
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<ClockProbe> shorts;
    std::vector<ClockProbe> longs;
    for (int k = 0; k < 2; ++k) {
      shorts.push_back(probe(kScaleProbeShortNs, 2.1, jitter(rng)));
      longs.push_back(probe(kScaleProbeLongNs, 2.1, jitter(rng)));
    }
    const std::optional<double> scale = reliable_scale(shorts, longs, 2.1);
    ASSERT_TRUE(scale.has_value()) << trial;
    EXPECT_NEAR(*scale, 2.1, 2.1 * 1.3e-4) << trial;
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

}  // namespace
}  // namespace gpumeter::detail
