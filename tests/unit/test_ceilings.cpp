// The ceilings' rule (the fastest sample of the best run) and the flag of a row above its
// measured ceiling, on synthetic runs and rows.
#include "gpumeter/detail/ceilings.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "gpumeter/detail/summary.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

CeilingRun run_of(CeilingKind kind, double per_call, std::vector<Nanos> samples) {
  CeilingRun r;
  r.kind = kind;
  r.work = "synthetic";
  r.per_call = per_call;
  r.samples_ns = std::move(samples);
  return r;
}

std::vector<Sample> rows_of(std::vector<Nanos> busy) {
  std::vector<Sample> out;
  for (const Nanos b : busy) out.push_back(Sample(b, b, 1, 0));
  return out;
}

TEST(CeilingRule, TheRateIsTheWorkOverTheFastestSample) {
  // 1 GB in 250 us at best: 4 TB/s, whatever the slower samples.
  EXPECT_DOUBLE_EQ(ceiling_rate(run_of(CeilingKind::bytes_per_s, 1e9, {260'000, 250'000, 300'000})),
                   4e12);
  EXPECT_THROW(ceiling_rate(run_of(CeilingKind::bytes_per_s, 1e9, {})), std::invalid_argument);
  EXPECT_THROW(ceiling_rate(run_of(CeilingKind::bytes_per_s, 1e9, {0, 10})), std::invalid_argument);
  EXPECT_THROW(ceiling_rate(run_of(CeilingKind::bytes_per_s, 0, {10})), std::invalid_argument);
}

TEST(CeilingRule, EachCeilingIsTheBestOfItsRuns) {
  // The memcpy reaches 4.0 TB/s, the copy kernel 4.2: the ceiling is the kernel's. The GEMM
  // is the only matrix run.
  const Ceilings c =
      ceilings_from_runs(TimingMethod::kernel_records,
                         {run_of(CeilingKind::bytes_per_s, 1e9, {250'000, 251'000}),
                          run_of(CeilingKind::bytes_per_s, 1.05e9, {250'000, 262'000}),
                          run_of(CeilingKind::flops_per_s, 8e11, {1'000'000, 1'100'000})});
  EXPECT_EQ(c.method, TimingMethod::kernel_records);
  ASSERT_TRUE(c.bytes_per_s && c.flops_per_s);
  EXPECT_DOUBLE_EQ(*c.bytes_per_s, 4.2e12);
  EXPECT_DOUBLE_EQ(*c.flops_per_s, 8e14);
  EXPECT_EQ(c.runs.size(), 3u);

  const Ceilings copies_only = ceilings_from_runs(
      TimingMethod::device_events, {run_of(CeilingKind::bytes_per_s, 1e9, {500'000})});
  EXPECT_DOUBLE_EQ(*copies_only.bytes_per_s, 2e12);
  EXPECT_FALSE(copies_only.flops_per_s.has_value());
}

TEST(CeilingFlag, APercentOverOneHundredIsAboveTheCeiling) {
  EXPECT_FALSE(above_ceiling(99.9));
  EXPECT_FALSE(above_ceiling(100.0));
  EXPECT_TRUE(above_ceiling(100.000001));
  EXPECT_TRUE(above_ceiling(105.0));
}

// A row that moves its bytes faster than the fastest run of the ceiling's work reads above 100%
// and says so; a slower one does not.
TEST(CeilingFlag, RowsAboveAndBelowTheirCeilingAreTold) {
  const Ceilings c = ceilings_from_runs(TimingMethod::kernel_records,
                                        {run_of(CeilingKind::bytes_per_s, 1e9, {250'000}),
                                         run_of(CeilingKind::flops_per_s, 1e12, {200'000})});
  // 1 GB per call in a median of 242.7 us: 4.12 TB/s, 103% of 4 TB/s.
  const Summary above = summarize(rows_of({242'000, 242'718, 243'000}),
                                  TimingMethod::kernel_records, 0, Workload{std::nullopt, 1e9}, c);
  ASSERT_TRUE(above.pct_of_peak_bandwidth);
  EXPECT_NEAR(*above.pct_of_peak_bandwidth, 103.0, 0.01);
  EXPECT_EQ(above.above_bandwidth_ceiling, true);
  EXPECT_FALSE(above.above_flops_ceiling.has_value());  // no flops declared: no percent, no flag

  const Summary below = summarize(rows_of({260'000, 262'000, 270'000}),
                                  TimingMethod::kernel_records, 0, Workload{1e12, 1e9}, c);
  EXPECT_EQ(below.above_bandwidth_ceiling, false);
  ASSERT_TRUE(below.pct_of_peak_flops);
  EXPECT_NEAR(*below.pct_of_peak_flops, 100.0 * 200.0 / 262.0, 1e-9);
  EXPECT_EQ(below.above_flops_ceiling, false);
}

// A row of the ceiling's own work: its median is never faster than the fastest of the same
// samples, so it reads 100% at most and is not flagged.
TEST(CeilingFlag, TheCeilingsOwnWorkReadsAtMostOneHundredPercent) {
  const std::vector<Nanos> samples{251'000, 250'000, 255'000, 253'500, 250'100, 252'000};
  const Ceilings c = ceilings_from_runs(TimingMethod::kernel_records,
                                        {run_of(CeilingKind::bytes_per_s, 1e9, samples)});
  const Summary same =
      summarize(rows_of(samples), TimingMethod::kernel_records, 0, Workload{std::nullopt, 1e9}, c);
  ASSERT_TRUE(same.pct_of_peak_bandwidth);
  EXPECT_LE(*same.pct_of_peak_bandwidth, 100.0);
  EXPECT_GT(*same.pct_of_peak_bandwidth, 98.0);
  EXPECT_EQ(same.above_bandwidth_ceiling, false);
}

// A ceiling timed another way than the row divides nothing: a percent of it would be the ratio
// of two clocks.
TEST(CeilingFlag, ACeilingTimedAnotherWayGivesNoPercent) {
  const Ceilings events = ceilings_from_runs(TimingMethod::device_events,
                                             {run_of(CeilingKind::bytes_per_s, 1e9, {300'000})});
  EXPECT_FALSE(ceiling_applies(events, TimingMethod::kernel_records));
  EXPECT_TRUE(ceiling_applies(events, TimingMethod::device_events));
  const Summary s = summarize(rows_of({242'000}), TimingMethod::kernel_records, 0,
                              Workload{std::nullopt, 1e9}, events);
  EXPECT_TRUE(s.tbs.has_value());
  EXPECT_FALSE(s.pct_of_peak_bandwidth.has_value());
  EXPECT_FALSE(s.above_bandwidth_ceiling.has_value());

  // An older record's ceilings (no method recorded) divide as they did, and are flagged alike.
  const Ceilings legacy{std::nullopt, 4e12, std::nullopt, {}};
  EXPECT_TRUE(ceiling_applies(legacy, TimingMethod::kernel_records));
  const Summary old = summarize(rows_of({242'000}), TimingMethod::kernel_records, 0,
                                Workload{std::nullopt, 1e9}, legacy);
  EXPECT_EQ(old.above_bandwidth_ceiling, true);
}

// Shards of one sweep, each process with its own ceilings, join into the fastest any saw.
TEST(JoinCeilings, EachCeilingIsTheFastestRunOfAnyShard) {
  const Ceilings a = ceilings_from_runs(TimingMethod::kernel_records,
                                        {run_of(CeilingKind::bytes_per_s, 1e9, {250'000}),
                                         run_of(CeilingKind::flops_per_s, 1e12, {1'000'000})});
  const Ceilings b = ceilings_from_runs(TimingMethod::kernel_records,
                                        {run_of(CeilingKind::bytes_per_s, 1e9, {245'000}),
                                         run_of(CeilingKind::flops_per_s, 1e12, {1'020'000})});
  const std::optional<Ceilings> j = join_ceilings({a, b, Ceilings{}, a});
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->method, TimingMethod::kernel_records);
  EXPECT_EQ(j->bytes_per_s, b.bytes_per_s);
  EXPECT_EQ(j->flops_per_s, a.flops_per_s);
  EXPECT_EQ(j->runs.size(), 4u);  // a's runs once, though given twice

  // None measured: none. Timed by different methods, or without runs and different: no join.
  const std::optional<Ceilings> none = join_ceilings({Ceilings{}, Ceilings{}});
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->bytes_per_s || none->flops_per_s);
  Ceilings events = b;
  events.method = TimingMethod::device_events;
  EXPECT_FALSE(join_ceilings({a, events}).has_value());
  const Ceilings old_a{1e15, 4e12, std::nullopt, {}};
  const Ceilings old_b{1e15, 4.1e12, std::nullopt, {}};
  EXPECT_FALSE(join_ceilings({old_a, old_b}).has_value());
  EXPECT_FALSE(join_ceilings({old_a, a}).has_value());
  ASSERT_TRUE(join_ceilings({old_a, old_a}).has_value());
  EXPECT_EQ(join_ceilings({old_a, old_a})->bytes_per_s, 4e12);
}

TEST(CeilingKindNames, RoundTrip) {
  for (auto k : {CeilingKind::bytes_per_s, CeilingKind::flops_per_s}) {
    EXPECT_EQ(parse_ceiling_kind(to_string(k)), k);
  }
  EXPECT_FALSE(parse_ceiling_kind("TB/s").has_value());
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
