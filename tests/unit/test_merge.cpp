// Merging the shards of one sweep (`gpumeter merge`): rows joined in order, a row in two shards
// and shards of different setups refused by cause, the merged record's own identity.
#include "gpumeter/detail/merge.hpp"

#include <gtest/gtest.h>
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/program.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/option_table.hpp"
#include "gpumeter/row_checks.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

Result row(const std::string& c, const std::string& impl, Nanos ns,
           TimingMethod method = TimingMethod::kernel_records) {
  Result r;
  r.row = {c, {}, impl};
  r.measurement.method = method;
  r.measurement.timestamp_tick_ns = 1;
  for (int i = 0; i < 4; ++i) r.measurement.samples.push_back({ns + i, ns + i, 1, 0});
  r.measurement.pass_sizes = {2, 2};
  r.summary = summarize(r.measurement.samples, method, 0);
  return r;
}

Record shard(const std::string& run_id, std::vector<Result> results) {
  Record r;
  r.run_id = run_id;
  r.device.kind = "cuda";
  r.device.name = "NVIDIA H200";
  r.device.uuid = "GPU-1";
  r.results = std::move(results);
  return r;
}

MergeOptions options(bool allow_mixed = false) {
  MergeOptions o;
  o.allow_mixed = allow_mixed;
  o.run_id = "merged";
  o.created_utc = "2026-12-01T00:00:00Z";
  o.gpumeter_version = "0.1.0";
  o.argv = {"gpumeter", "merge", "a.json", "b.json"};
  return o;
}

TEST(MergeRecords, ShardsJoinInOrderUnderTheirOwnIdentity) {
  Record a = shard("a", {row("copy", "x", 100)});
  a.failures.push_back({{"scan", {}, ""}, "Crashed", "signal 11"});
  a.deviations = {"device lock not taken"};
  Record b = shard("b", {row("copy", "y", 200)});
  b.deviations = {"device lock not taken", partial_record_deviation(1, 3)};
  const Record m = merge_records({a, b}, options());
  EXPECT_EQ(m.run_id, "merged");
  EXPECT_EQ(m.device.uuid, "GPU-1");
  ASSERT_EQ(m.results.size(), 2u);
  EXPECT_EQ(m.results[1].row.implementation, "y");
  ASSERT_EQ(m.failures.size(), 1u);
  EXPECT_EQ(m.comparisons.size(), 1u);  // copy/y against copy/x, now in one record
  // Each deviation once; a partial shard makes a partial merge.
  EXPECT_EQ(m.deviations,
            (std::vector<std::string>{"device lock not taken", partial_record_deviation(1, 3),
                                      "merged from 2 records: a, b"}));
  EXPECT_FALSE(partial_record_note(m).empty());
}

TEST(MergeRecords, ProgramRunsMergeTheirRowsAndSayTheirSectionsAreNotCarried) {
  // Two runs of one program under different labels: their ranges compare in the merged record.
  Record a = shard("base", {row("optimizer", "base", 200)});
  a.program = ProgramRun{};
  a.program->command = {"python3", "train.py"};
  Record b = shard("slow", {row("optimizer", "slow", 240)});
  b.program = a.program;
  const Record m = merge_records({a, b}, options());
  EXPECT_FALSE(m.program.has_value());
  EXPECT_TRUE(m.merged_programs);  // what the reader checks the rows' origins against
  EXPECT_FALSE(merge_records({shard("c", {row("copy", "x", 100)})}, options()).merged_programs);
  ASSERT_EQ(m.comparisons.size(), 1u);
  ASSERT_EQ(m.deviations.size(), 2u);
  EXPECT_EQ(m.deviations[0],
            "merged from program runs (base, slow): their rows are here, their program sections "
            "(processes, instance counts, kernels outside every range) are in the records merged");
}

// Found by the reader's fuzz target: a merge of program runs merged again still says that its
// rows' sections are elsewhere, so its reader does not take it for a program record missing one.
TEST(MergeRecords, AMergeOfProgramRunsMergedAgainKeepsItsMark) {
  Record a = shard("base", {row("optimizer", "base", 200)});
  a.program = ProgramRun{};
  Record b = shard("slow", {row("optimizer", "slow", 240)});
  b.program = a.program;
  Record first = merge_records({a, b}, options());
  first.run_id = "first";
  const Record again =
      merge_records({first, shard("c", {row("forward", "base", 100)})}, options(true));
  EXPECT_FALSE(again.program.has_value());
  EXPECT_TRUE(again.merged_programs);
  EXPECT_NE(std::find_if(again.deviations.begin(), again.deviations.end(),
                         [](const std::string& d) {
                           return d.rfind("merged from program runs (first)", 0) == 0;
                         }),
            again.deviations.end());
  // A program record whose run id is empty still marks the merge.
  Record unnamed = a;
  unnamed.run_id = "";
  const Record m = merge_records({unnamed, shard("d", {row("forward", "x", 100)})}, options(true));
  EXPECT_NE(std::find_if(
                m.deviations.begin(), m.deviations.end(),
                [](const std::string& d) { return d.rfind("merged from program runs (", 0) == 0; }),
            m.deviations.end());
}

// The merged record names the first record's device: on the host CPU, a row of kernel records
// from another record would be one the reader refuses (no host keeps them), so the merge refuses
// it first, mixed or not.
TEST(MergeRecords, AKernelRecordsRowIntoARecordOfTheHostIsRefused) {
  Result wall = row("copy", "x", 100, TimingMethod::host_clock);
  for (Sample& s : wall.measurement.samples) s.n_kernels.reset();  // one interval: no count
  Record host = shard("host", {wall});
  host.device.kind = "host";
  host.device.name = "host CPU";
  host.device.uuid.clear();
  const Record gpu = shard("gpu", {row("copy", "y", 100)});
  try {
    merge_records({host, gpu}, options(true));
    ADD_FAILURE() << "merged";
  } catch (const MergeRefused& e) {
    EXPECT_EQ(e.record(), std::optional<std::size_t>(1));
    EXPECT_NE(
        std::string(e.what()).find("the row copy / y, timed by kernel-records, cannot be held in a "
                                   "record of host CPU (host)"),
        std::string::npos)
        << e.what();
  }
  // The other way round the host's wall-clock row is one a GPU's record can hold.
  EXPECT_NO_THROW(merge_records({gpu, host}, options(true)));
}

TEST(MergeRecords, ARowInTwoShardsIsRefusedNamingTheShard) {
  try {
    merge_records({shard("a", {row("copy", "x", 100)}), shard("b", {row("copy", "x", 100)})},
                  options(true));
    FAIL() << "merged a row twice";
  } catch (const MergeRefused& e) {
    EXPECT_EQ(e.record(), std::optional<std::size_t>(1));
    EXPECT_NE(std::string(e.what()).find("copy / x is in two of the records"), std::string::npos)
        << e.what();
  }
}

// Phases, totals and runtimes are rows too: each joined once, a phase in two shards refused by
// cause, a candidate's runtime kept once, and two runtimes for one candidate a mixed merge.
TEST(MergeRecords, PhasesTotalsAndRuntimesJoinOnce) {
  const RowKey warp{"saxpy", {{"n", "1000"}}, "warp"};
  const RowKey cupy{"saxpy", {{"n", "1000"}}, "cupy"};
  const Statistic wall = Statistic::synchronized_wall_clock;
  Record a = shard("a", {row("copy", "x", 100)});
  a.phases = {{warp, Phase::init, wall, PhaseSetting::fresh_cold, {5}, {}}};
  a.totals = {{warp, 10, PhaseSetting::fresh_cold, {50}}};
  a.runtimes = {{"warp", "warp", "1.2.2", "cuda:0", "sm_90", "warp", {}}};
  Record b = shard("b", {row("copy", "y", 200)});
  b.phases = {{cupy, Phase::init, wall, PhaseSetting::fresh_cold, {3}, {}}};
  b.totals = {{cupy, 10, PhaseSetting::fresh_cold, {30}}};
  b.runtimes = {{"warp", "warp", "1.2.2", "cuda:0", "sm_90", "warp", {}},
                {"cupy", "cupy", "13.6", "cuda:0", "sm_90", "cupy", {}}};
  const Record m = merge_records({a, b}, options());
  EXPECT_EQ(m.phases.size(), 2u);
  EXPECT_EQ(m.totals.size(), 2u);
  ASSERT_EQ(m.runtimes.size(), 2u);
  EXPECT_EQ(m.runtimes[1].implementation, "cupy");

  Record twice = b;
  twice.phases = a.phases;
  try {
    merge_records({a, twice}, options(true));
    FAIL() << "merged a phase twice";
  } catch (const MergeRefused& e) {
    EXPECT_NE(std::string(e.what()).find("the phase init of saxpy / warp (n=1000) is in two"),
              std::string::npos)
        << e.what();
  }
  Record other = b;
  other.runtimes[0].version = "1.19.0";
  EXPECT_THROW(merge_records({a, other}, options()), MergeRefused);
  const Record mixed = merge_records({a, other}, options(true));
  EXPECT_NE(mixed.deviations.front().find("the runtime of warp"), std::string::npos);
}

TEST(MergeRecords, ShardsOfDifferentSetupsAreRefusedUnlessAllowed) {
  const Record a = shard("a", {row("copy", "x", 100)});
  Record b = shard("b", {row("copy", "y", 100, TimingMethod::device_events)});
  b.device.uuid = "GPU-2";
  b.device.name = "NVIDIA A100";  // another kind of device
  try {
    merge_records({a, b}, options());
    FAIL() << "merged two devices";
  } catch (const MergeRefused& e) {
    EXPECT_FALSE(e.record().has_value());
    EXPECT_NE(std::string(e.what()).find(
                  "the records differ in devices (NVIDIA H200 (cuda) and "
                  "NVIDIA A100 (cuda)); timing methods (device-events, kernel-records)"),
              std::string::npos)
        << e.what();
  }
  const Record m = merge_records({a, b}, options(true));
  ASSERT_GE(m.deviations.size(), 2u);
  EXPECT_EQ(m.deviations[0].rfind("merged records that differ in devices", 0), 0u)
      << m.deviations[0];
}

// Records read from version 8 keep its interval rules (95%): they merge among themselves into a
// version 8 record, and never with a current one, --allow-mixed or not.
TEST(MergeRecords, RecordsOfTwoIntervalRulesAreNeverJoined) {
  Record a = shard("a", {row("copy", "x", 100)});
  Record b = shard("b", {row("copy", "y", 200)});
  a.schema_version = b.schema_version = kCalibratedIntervalsSince - 1;
  const Record old = merge_records({a, b}, options());
  EXPECT_EQ(old.schema_version, kCalibratedIntervalsSince - 1);
  ASSERT_EQ(old.comparisons.size(), 1u);
  ASSERT_TRUE(old.comparisons[0].difference.has_value());
  EXPECT_EQ(old.comparisons[0].difference->confidence, 0.95);

  b.schema_version = kRecordSchemaVersion;
  for (const bool allow : {false, true}) {
    try {
      merge_records({a, b}, options(allow));
      FAIL() << "merged two rules";
    } catch (const MergeRefused& e) {
      EXPECT_NE(std::string(e.what()).find("record 2 (b) was judged by the comparison rules of "
                                           "schema version " +
                                           std::to_string(kRecordSchemaVersion) +
                                           ", the first by those of version 8"),
                std::string::npos)
          << e.what();
    }
  }
  // Version 10's host-clock rule (held as 10) and version 11's are two rules too.
  a.schema_version = kHostClockRulesSince - 1;
  Record c = shard("c", {row("copy", "z", 300)});
  c.schema_version = kHostClockRulesSince - 1;
  EXPECT_EQ(merge_records({a, c}, options()).schema_version, kHostClockRulesSince - 1);
  EXPECT_THROW(merge_records({a, b}, options(true)), MergeRefused);
}

TEST(MergeRecords, BoardsOfOneKindMergeEachRowKeepingItsOwnAndAreNeverCompared) {
  // Two H200 boards: a and b of one case, one on each (a merge of records of two boards).
  Record one = shard("one", {row("copy", "a", 100)});
  one.device_state.sm_clock_mhz = 1980;
  Record two = shard("two", {row("copy", "b", 90), row("scan", "a", 50), row("scan", "b", 40)});
  two.device.uuid = "GPU-2";
  two.device_state.sm_clock_mhz = 1755;
  const Record m = merge_records({one, two}, options());  // no --allow-mixed: one kind
  ASSERT_EQ(m.results.size(), 4u);
  EXPECT_EQ(m.results[0].board.uuid, "GPU-1");
  EXPECT_EQ(m.results[0].board.sm_clock_mhz, 1980);
  EXPECT_EQ(m.results[1].board.uuid, "GPU-2");
  EXPECT_EQ(m.results[1].board.sm_clock_mhz, 1755);
  EXPECT_EQ(m.device.uuid, "GPU-1");  // the header is the first's
  ASSERT_EQ(m.comparisons.size(), 2u);
  // copy: a on GPU-1 against b on GPU-2, refused with the reason; scan: one board, compared.
  EXPECT_FALSE(m.comparisons[0].compared());
  EXPECT_NE(m.comparisons[0].refusal.find("the rows ran on two boards (NVIDIA H200 GPU-1 and "
                                          "NVIDIA H200 GPU-2)"),
            std::string::npos)
      << m.comparisons[0].refusal;
  EXPECT_TRUE(m.comparisons[1].compared()) << m.comparisons[1].refusal;
  // Merged again, each row still names its own board.
  const Record again = merge_records({m}, options());
  EXPECT_EQ(again.results[1].board.uuid, "GPU-2");
}

TEST(MergeRecords, OneRecordMerges) {
  const Record whole = shard("whole", {row("copy", "a", 100)});
  const Record m = merge_records({whole}, options());
  EXPECT_EQ(m.run_id, "merged");
  EXPECT_EQ(m.results.size(), 1u);
  EXPECT_THROW((void)merge_records({}, options()), MergeRefused);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter

// --- the shards of one sweep (B10) -------------------------------------------------------------

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// Shard k of n of a sweep of `cases` copy cases (param n=0..cases-1), dealt round robin, each case
// measured as one row of implementation "a"; argv as a benchmark program's.
Record sharded(std::size_t k, std::size_t n, int cases) {
  std::vector<RowKey> keys;
  for (int i = 0; i < cases; ++i) keys.push_back(RowKey{"copy", {{"n", std::to_string(i)}}, ""});
  Record r = shard("s" + std::to_string(k), {});
  r.gpumeter_version = "0.1.0";
  r.argv = {"/nodes/" + std::to_string(k) + "/bench",
            "--shard",
            std::to_string(k) + "/" + std::to_string(n),
            "--out",
            "out" + std::to_string(k),
            "--budget",
            "1,2"};
  r.shard = plan_shard(Shard{k, n, ShardSource::option, "--shard"}, keys);
  for (const DealtCase& c : r.shard->cases) {
    if (c.shard != k) continue;
    Result res = row("copy", "a", 100);
    res.row.params = c.row.params;
    r.results.push_back(res);
  }
  return r;
}

TEST(MergeShards, EveryShardOnceGivesTheWholeSweep) {
  const Record m = merge_records({sharded(2, 3, 8), sharded(0, 3, 8), sharded(1, 3, 8)}, options());
  ASSERT_EQ(m.results.size(), 8u);
  // In the sweep's order, as its whole run holds them, not in the order of the shards given.
  for (std::size_t i = 0; i < m.results.size(); ++i) {
    EXPECT_EQ(m.results[i].row.params.at("n"), std::to_string(i));
  }
  EXPECT_TRUE(m.failures.empty());
  EXPECT_FALSE(m.shard.has_value());  // a whole sweep
  EXPECT_TRUE(partial_record_note(m).empty());
  EXPECT_NE(std::find(m.deviations.begin(), m.deviations.end(),
                      "the 3 shards of one sweep of 8 cases, every shard merged"),
            m.deviations.end());
}

std::string refusal(const std::vector<Record>& in, MergeOptions o = options()) {
  try {
    (void)merge_records(in, o);
  } catch (const MergeRefused& e) {
    return e.what();
  }
  return "(merged)";
}

TEST(MergeShards, EmptyShardsAreNotNeeded) {
  // 5 cases in 7 shards: shards 5 and 6 hold none, and the merge of the other five is whole.
  std::vector<Record> five;
  for (std::size_t k = 0; k < 5; ++k) five.push_back(sharded(k, 7, 5));
  const Record m = merge_records(five, options());
  EXPECT_EQ(m.results.size(), 5u);
  EXPECT_TRUE(m.failures.empty());
  EXPECT_NE(std::find(m.deviations.begin(), m.deviations.end(),
                      "the 7 shards of one sweep of 5 cases, every shard merged (2 of them hold no "
                      "case: more shards than cases)"),
            m.deviations.end());
  // With --allow-missing-shards, a complete merge says no shard is missing.
  MergeOptions allow = options();
  allow.allow_missing_shards = true;
  const Record allowed = merge_records(five, allow);
  EXPECT_TRUE(allowed.failures.empty());
  for (const std::string& d : allowed.deviations) {
    EXPECT_EQ(d.find("missing"), std::string::npos) << d;
  }
}

TEST(MergeShards, TheOnlyShardMergesAlone) {
  // A one-task array: shard 0 of 1 is the whole sweep.
  const Record m = merge_records({sharded(0, 1, 3)}, options());
  EXPECT_EQ(m.results.size(), 3u);
  EXPECT_FALSE(m.shard.has_value());
  // The one surviving shard: the others named, or their cases failures where allowed.
  const std::string why = refusal({sharded(1, 3, 6)});
  EXPECT_NE(why.find("shard 0 of 3 is missing"), std::string::npos) << why;
  EXPECT_NE(why.find("shard 2 of 3 is missing"), std::string::npos) << why;
  MergeOptions allow = options();
  allow.allow_missing_shards = true;
  const Record survived = merge_records({sharded(1, 3, 6)}, allow);
  EXPECT_EQ(survived.results.size(), 2u);
  EXPECT_EQ(survived.failures.size(), 4u);
  // Failures and rows each in the sweep's order.
  EXPECT_EQ(survived.failures[0].row.params.at("n"), "0");
  EXPECT_EQ(survived.failures[1].row.params.at("n"), "2");
}

TEST(MergeShards, AMissingShardIsNamedAndItsCasesFailWhenAllowed) {
  const std::vector<Record> two{sharded(0, 3, 8), sharded(2, 3, 8)};
  const std::string why = refusal(two);
  EXPECT_NE(why.find("shard 1 of 3 is missing (its 3 cases, copy (n=1) first)"), std::string::npos)
      << why;
  EXPECT_NE(why.find("--allow-missing-shards"), std::string::npos) << why;
  MergeOptions allow = options();
  allow.allow_missing_shards = true;
  const Record m = merge_records(two, allow);
  EXPECT_EQ(m.results.size(), 5u);
  ASSERT_EQ(m.failures.size(), 3u);  // n=1, 4, 7: the missing shard's cases, each named
  for (const Failure& f : m.failures) {
    EXPECT_EQ(f.error, "ShardMissing");
    EXPECT_NE(f.message.find("shard 1 of 3"), std::string::npos);
  }
  EXPECT_EQ(m.failures[1].row.params.at("n"), "4");
}

TEST(MergeShards, OneCaseIsCountedInTheSingular) {
  // 4 cases in 3 shards, round robin: shard 2 holds one (n=2).
  const std::string missing = refusal({sharded(0, 3, 4), sharded(1, 3, 4)});
  EXPECT_NE(missing.find("shard 2 of 3 is missing (its 1 case, copy (n=2) first)"),
            std::string::npos)
      << missing;
  // 3 cases in 4 shards: one shard holds no case.
  std::vector<Record> three;
  for (std::size_t k = 0; k < 3; ++k) three.push_back(sharded(k, 4, 3));
  const Record m = merge_records(three, options());
  EXPECT_NE(
      std::find(m.deviations.begin(), m.deviations.end(),
                "the 4 shards of one sweep of 3 cases, every shard merged (1 of them holds no "
                "case: more shards than cases)"),
      m.deviations.end());
  EXPECT_EQ(cases_text(1), "1 case");
  EXPECT_EQ(cases_text(0), "0 cases");
}

TEST(MergeShards, APartialShardLosesOnlyTheCasesItDidNotRun) {
  Record stopped = sharded(1, 2, 6);  // n=1, 3, 5
  stopped.results.pop_back();         // n=5 never ran
  stopped.deviations.push_back(partial_record_deviation(2, 3));
  const std::vector<Record> in{sharded(0, 2, 6), stopped};
  EXPECT_NE(refusal(in).find("shard 1 of 2 is partial: 1 of its 3 cases did not run"),
            std::string::npos)
      << refusal(in);
  MergeOptions allow = options();
  allow.allow_missing_shards = true;
  const Record m = merge_records(in, allow);
  EXPECT_EQ(m.results.size(), 5u);
  ASSERT_EQ(m.failures.size(), 1u);
  EXPECT_EQ(m.failures[0].error, "ShardIncomplete");
  EXPECT_EQ(m.failures[0].row.params.at("n"), "5");
  // Every case has a row or a failure: the merge is not partial, and says what it lost.
  EXPECT_TRUE(partial_record_note(m).empty());
}

TEST(MergeShards, RecordsThatAreNotShardsOfOneSweepAreRefused) {
  // A shard twice.
  EXPECT_NE(refusal({sharded(0, 2, 4), sharded(0, 2, 4)}).find("shard 0 of 2 is in two"),
            std::string::npos);
  // Another count.
  EXPECT_NE(refusal({sharded(0, 2, 4), sharded(1, 3, 4)}).find("dealt into 3 shards"),
            std::string::npos);
  // Other cases.
  EXPECT_NE(refusal({sharded(0, 2, 4), sharded(1, 2, 6)}).find("other cases"), std::string::npos);
  // Other options (a --budget of its own), even with --allow-mixed.
  Record other = sharded(1, 2, 4);
  other.argv.back() = "5,20";
  EXPECT_NE(refusal({sharded(0, 2, 4), other}, options(true))
                .find("run one program with the "
                      "same options"),
            std::string::npos);
  // Another gpumeter.
  Record newer = sharded(1, 2, 4);
  newer.gpumeter_version = "0.2.0";
  EXPECT_NE(refusal({sharded(0, 2, 4), newer}).find("gpumeter 0.2.0"), std::string::npos);
  // A whole sweep among shards.
  EXPECT_NE(refusal({sharded(0, 2, 4), shard("whole", {row("scan", "a", 100)})})
                .find("a whole sweep's record among shards"),
            std::string::npos);
}

TEST(SweepArguments, WhatShardsOfOneSweepShare) {
  EXPECT_EQ(sweep_arguments({"/a/b/bench", "--shard", "1/4", "--out=x", "--quiet", "--filter",
                             "copy", "--shard=2/4", "--out", "y", "--csv"}),
            (std::vector<std::string>{"bench", "--filter", "copy"}));
  // Each task's or device's own: its device, --devices, what --devices tells its processes.
  EXPECT_EQ(
      sweep_arguments({"bench", "--device", "1", "--devices=0,1", "--device=3", "--budget", "1,2",
                       "--gpumeter-shard-origin=device 1 of the 2", "--devices", "all"}),
      (std::vector<std::string>{"bench", "--budget", "1,2"}));
}

// How long the program waits is no part of the sweep (shards run with different --timeout were
// refused as different sweeps while the sweep and --isolate's case processes read two lists);
// how it runs its cases is.
TEST(SweepArguments, WaitsAreNotTheSweepsIdentityConditionsAre) {
  EXPECT_EQ(sweep_arguments({"bench", "--timeout", "30", "--lock-timeout=5", "--filter", "x"}),
            sweep_arguments({"bench", "--timeout=90", "--filter", "x", "--lock-timeout", "60"}));
  EXPECT_EQ(sweep_arguments({"bench", "--timeout", "30", "--filter", "x"}),
            (std::vector<std::string>{"bench", "--filter", "x"}));
  EXPECT_EQ(sweep_arguments({"bench", "--isolate", "--no-lock", "--allow-contended"}),
            (std::vector<std::string>{"bench", "--isolate", "--no-lock", "--allow-contended"}));
  // An option's value is never read as an option: a filter of "--out" is the sweep's identity.
  EXPECT_EQ(sweep_arguments({"bench", "--filter", "--out", "--quiet"}),
            (std::vector<std::string>{"bench", "--filter", "--out"}));
}

// One table gives each option its role; a case process of --isolate is started without the
// parent's options (output, waits, conditions) and with each task's own and the identity.
TEST(OptionRoles, OneTableForTheSweepAndTheCaseProcesses) {
  EXPECT_EQ(option_role("--timeout=3"), OptionRole::wait);
  EXPECT_EQ(option_role("--out"), OptionRole::output);
  EXPECT_EQ(option_role("--device=1"), OptionRole::task);
  EXPECT_EQ(option_role("--isolate"), OptionRole::conditions);
  EXPECT_EQ(option_role("--gpumeter-child=2"), OptionRole::internal);
  EXPECT_EQ(option_role("--filter"), OptionRole::identity);
  for (const OptionRole role : {OptionRole::output, OptionRole::wait, OptionRole::conditions}) {
    EXPECT_TRUE(parent_only(role));
  }
  for (const OptionRole role : {OptionRole::identity, OptionRole::task, OptionRole::internal}) {
    EXPECT_FALSE(parent_only(role));
  }
  EXPECT_TRUE(option_takes_value("--timeout"));
  EXPECT_FALSE(option_takes_value("--timeout=3"));
  EXPECT_FALSE(option_takes_value("--quiet"));
  EXPECT_TRUE(option_takes_value("--filter"));
  EXPECT_FALSE(option_takes_value("x"));
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// A merged record keeps the first record's configuration; a row another configuration ran (a
// program's instances, merged with --allow-mixed into a budgeted sweep) would read as counts that
// configuration cannot give, which the reader refuses: merge refuses it first, naming the row
// (found by the record reader's fuzzer).
TEST(MergeRecords, ARowOfAnotherConfigurationThatTheMergedOneCannotHoldIsRefused) {
  const Record a = shard("a", {row("copy", "x", 100)});
  Result instance;
  instance.row = {"forward", {}, "train"};
  instance.measurement.method = TimingMethod::kernel_records;
  instance.measurement.timestamp_tick_ns = 1;
  for (int i = 0; i < 10; ++i) instance.measurement.samples.push_back({208000, 208000, 1, 0});
  instance.measurement.pass_sizes = {5, 5};
  instance.measurement.measure_iterations = 10;
  instance.measurement.estimate_ns = 208000;
  instance.summary = summarize(instance.measurement.samples, TimingMethod::kernel_records, 0);
  Record program = shard("p", {instance});
  program.config.schedule = "program";
  EXPECT_TRUE(iteration_count_problem(instance, program.config).empty());
  ASSERT_FALSE(iteration_count_problem(instance, a.config).empty());
  try {
    merge_records({a, program}, options(true));
    ADD_FAILURE() << "merged";
  } catch (const MergeRefused& e) {
    EXPECT_NE(std::string(e.what()).find("forward / train"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("another configuration"), std::string::npos) << e.what();
  }
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
