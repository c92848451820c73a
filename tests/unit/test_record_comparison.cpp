// Two records row by row (`gpumeter compare`) and its CI gate, on synthetic records: what is
// paired, what is missing and why, the rule each row is judged by, and a gate that fails on
// what it cannot see.
#include "gpumeter/detail/record_comparison.hpp"

#include <gtest/gtest.h>

#include <limits>

#include <string>
#include <vector>

#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/host_clock.hpp"
#include "gpumeter/row_status.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// A row of two passes of 20 samples around `ns`, each pass offset by `pass_step` (a fraction),
// with a small fixed spread.
Result row(const std::string& c, const std::string& impl, double ns,
           TimingMethod method = TimingMethod::kernel_records, double pass_step = 0) {
  Result r;
  r.row = {c, {{"n", "1024"}}, impl};
  r.measurement.method = method;
  r.measurement.timestamp_tick_ns = 1;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < 20; ++i) {
      const auto v = static_cast<Nanos>(ns * (1.0 + pass * pass_step + 0.001 * (i % 5 - 2)));
      r.measurement.samples.push_back({v, v, 1, 0});
    }
    r.measurement.pass_sizes.push_back(20);
  }
  r.summary = summarize(r.measurement.samples, method, 0);
  return r;
}

Record record(std::vector<Result> results, std::vector<Failure> failures = {}) {
  Record rec;
  rec.run_id = "run";
  rec.results = std::move(results);
  rec.failures = std::move(failures);
  return rec;
}

Failure failure(const std::string& c, const std::string& impl, const std::string& error,
                const std::string& message) {
  return Failure{{c, {{"n", "1024"}}, impl}, error, message};
}

const GateOptions kFivePercent{0.05, false};
const GateOptions kFivePercentAllowMissing{0.05, true};

TEST(CompareRecords, TheSameRowsPassTheGate) {
  const Record base = record({row("copy", "a", 10000), row("copy", "b", 20000)});
  const Record next = record({row("copy", "a", 10000), row("copy", "b", 20000)});
  const RecordComparison c = compare_records(base, next);
  ASSERT_EQ(c.pairs.size(), 2u);
  EXPECT_TRUE(c.missing.empty());
  const GateOutcome g = judge_gate(c, kFivePercent);
  EXPECT_TRUE(g.passed);
  EXPECT_TRUE(g.regressions.empty());
  EXPECT_TRUE(g.unseen.empty());
}

TEST(CompareRecords, ARowMissingFromEitherSideFailsTheGateUnlessAllowed) {
  // Rows missing from new (4 of 6 not run) printed "Only in base (4)" and passed the gate.
  const Record base = record({row("copy", "a", 10000), row("copy", "b", 20000),
                              row("gemm", "x", 5000), row("gemm", "y", 5000)});
  const Record next = record({row("copy", "a", 10000), row("softmax", "z", 7000)});
  const RecordComparison c = compare_records(base, next);
  ASSERT_EQ(c.pairs.size(), 1u);
  ASSERT_EQ(c.missing.size(), 4u);
  EXPECT_EQ(c.missing[0].row.implementation, "b");
  EXPECT_EQ(c.missing[0].missing_from, RecordSide::next);
  EXPECT_EQ(describe(c.missing[0]), "not in new");
  EXPECT_EQ(c.missing[3].row.case_name, "softmax");
  EXPECT_EQ(c.missing[3].missing_from, RecordSide::base);
  EXPECT_EQ(describe(c.missing[3]), "not in base");
  const GateOutcome g = judge_gate(c, kFivePercent);
  EXPECT_FALSE(g.passed);
  EXPECT_TRUE(g.regressions.empty());
  EXPECT_EQ(g.unseen,
            (std::vector<std::string>{"3 rows of base not in new", "1 row of new not in base"}));
  const GateOutcome allowed = judge_gate(c, kFivePercentAllowMissing);
  EXPECT_TRUE(allowed.passed);
  EXPECT_EQ(allowed.unseen, g.unseen);  // still named
}

// One conclusion for `gpumeter compare` and the pytest plugin's gate: the exit code and its line.
TEST(CompareRecords, TheConclusionIsTheGatesAndNamesWhatItCouldNotSee) {
  const Record base = record({row("copy", "a", 10000), row("copy", "b", 20000),
                              row("gemm", "x", 5000), row("gemm", "y", 5000)});
  const Record next = record({row("copy", "a", 10000), row("softmax", "z", 7000)});
  const RecordComparison c = compare_records(base, next);
  const CompareConclusion gated = conclude(c, kFivePercent);
  EXPECT_EQ(gated.exit_code, kExitFailed);
  EXPECT_EQ(gated.why, "the gate failed: 3 rows of base not in new; 1 row of new not in base");
  EXPECT_TRUE(gated.regressions.empty());
  EXPECT_EQ(conclude(c, kFivePercentAllowMissing).exit_code, kExitOk);
  const CompareConclusion plain = conclude(c, std::nullopt);
  EXPECT_EQ(plain.exit_code, kExitOk);
  EXPECT_EQ(plain.why, "");
  const Record same = record({row("copy", "a", 10000)});
  EXPECT_EQ(conclude(compare_records(same, same), kFivePercent).exit_code, kExitOk);
  // The gate, judged once, travels with the conclusion for the report to word.
  EXPECT_TRUE(gated.gate_fails());
  EXPECT_FALSE(gated.gate_passed());
  EXPECT_EQ(gated.unseen.size(), 2u);
  EXPECT_FALSE(conclude(c, kFivePercentAllowMissing).gate_fails());
  EXPECT_FALSE(plain.gate_fails());  // no gate asked: nothing to fail
  EXPECT_FALSE(plain.gate.has_value());
}

// The pytest gate's two cases with nothing to compare are concluded by the same rules: a row the
// baseline lacks is what the gate cannot see; a record that cannot be read is no pass.
TEST(CompareRecords, TheGatesThresholdIsAFractionFromZeroTo100) {
  // allow_missing without a gate is refused here, the one rule, in the front end's names (it was
  // dropped silently here, and refused by CLI11 and by the pytest plugin each by its own rule).
  try {
    (void)gate_options(std::nullopt, true, "--t", "--allow-missing");
    FAIL() << "allow_missing without a threshold taken";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--allow-missing needs --t FRACTION", 0), 0u) << e.what();
  }
  EXPECT_FALSE(gate_options(std::nullopt, false, "--t", "--allow-missing").has_value());
  const std::optional<GateOptions> gate = gate_options(0.05, true, "--t", "--allow-missing");
  ASSERT_TRUE(gate.has_value());
  EXPECT_EQ(gate->threshold, 0.05);
  EXPECT_TRUE(gate->allow_missing);
  EXPECT_EQ(gate_options(0, false, "--t", "--allow-missing")->threshold, 0);
  EXPECT_EQ(gate_options(100, false, "--t", "--allow-missing")->threshold,
            100);  // 10000%: the most a gate means
  const auto refused = [](double threshold) {
    try {
      (void)gate_options(threshold, false, "--t", "--allow-missing");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused(-0.05), "--t must be a fraction from 0% to 10000% (0 to 100), got -0.05");
  EXPECT_EQ(refused(100.5), "--t must be a fraction from 0% to 10000% (0 to 100), got 100.5");
  EXPECT_EQ(refused(std::numeric_limits<double>::quiet_NaN()),
            "--t must be a fraction from 0% to 10000% (0 to 100), written 1% or 0.01, got nan");
  EXPECT_EQ(refused(std::numeric_limits<double>::infinity()),
            "--t must be a fraction from 0% to 10000% (0 to 100), written 1% or 0.01, got inf");
}

TEST(CompareRecords, NothingToCompareConcludesByTheGatesRules) {
  const std::string what = "t: not in the baseline 'main'";
  const CompareConclusion missing = conclude_missing(kFivePercent, what);
  EXPECT_TRUE(missing.gate_fails());
  EXPECT_EQ(missing.exit_code, kExitFailed);
  EXPECT_EQ(missing.why, "the gate failed: " + what);
  EXPECT_EQ(missing.unseen, std::vector<std::string>{what});
  const CompareConclusion let_pass = conclude_missing(kFivePercentAllowMissing, what);
  EXPECT_FALSE(let_pass.gate_fails());
  EXPECT_EQ(let_pass.unseen, std::vector<std::string>{what});  // still said
  EXPECT_FALSE(conclude_missing(std::nullopt, what).gate_fails());
  EXPECT_EQ(conclude_missing(std::nullopt, what).exit_code, kExitOk);

  const std::string why = "a record cannot be read: truncated";
  const CompareConclusion unreadable = conclude_unreadable(kFivePercentAllowMissing, why);
  EXPECT_TRUE(unreadable.gate_fails());  // allow_missing lets through what is unseen, not this
  EXPECT_EQ(unreadable.exit_code, kExitUsage);
  EXPECT_EQ(unreadable.why, why);
  EXPECT_FALSE(conclude_unreadable(std::nullopt, why).gate_fails());
  EXPECT_EQ(conclude_unreadable(std::nullopt, why).exit_code, kExitUsage);
}

TEST(CompareRecords, APartialRecordFailsTheGateAndItsMissingRowsSaySo) {
  const Record base = record({row("copy", "a", 10000), row("copy", "b", 20000)});
  Record next = record({row("copy", "a", 10000)});
  next.deviations = {"device lock not taken", partial_record_deviation(1, 2)};
  const RecordComparison c = compare_records(base, next);
  EXPECT_EQ(c.base_partial, "");
  EXPECT_EQ(c.next_partial, next.deviations[1].substr(kPartialRecordMark.size()));
  ASSERT_EQ(c.missing.size(), 1u);
  EXPECT_TRUE(c.missing[0].record_partial);
  EXPECT_EQ(describe(c.missing[0]),
            "not in new, whose record is partial (its run stopped before the end)");
  const GateOutcome g = judge_gate(c, kFivePercent);
  EXPECT_FALSE(g.passed);
  ASSERT_EQ(g.unseen.size(), 2u);
  EXPECT_EQ(g.unseen[1],
            "the new record is partial: the run had finished 1 of 2 cases when this "
            "was written, and did not finish (a complete record replaces this file "
            "when it does)");
  // A partial record is a failure of the gate even when every row it holds matches.
  Record complete_rows = record({row("copy", "a", 10000), row("copy", "b", 20000)});
  complete_rows.deviations = {partial_record_deviation(2, 3)};
  EXPECT_FALSE(judge_gate(compare_records(base, complete_rows), kFivePercent).passed);
  EXPECT_TRUE(judge_gate(compare_records(base, complete_rows), kFivePercentAllowMissing).passed);
}

TEST(CompareRecords, ACrashedCaseFailsTheGateAndItsRowsSayWhy) {
  // A case that crashed in the new run showed only as "Only in base", and the gate passed.
  const Record base =
      record({row("copy", "a", 10000), row("copy", "b", 20000), row("gemm", "x", 5000)});
  const Record next =
      record({row("gemm", "x", 5000)},
             {failure("copy", "", kCrashedFailure,
                      "the case's process was killed by signal 11 (Segmentation fault)")});
  const RecordComparison c = compare_records(base, next);
  ASSERT_EQ(c.missing.size(), 2u);
  ASSERT_NE(c.missing[0].failure, nullptr);
  EXPECT_EQ(describe(c.missing[0]),
            "crashed: the case's process was killed by signal 11 (Segmentation fault) (in new)");
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_EQ(c.failures[0].side, RecordSide::next);
  const GateOutcome g = judge_gate(c, kFivePercent);
  EXPECT_FALSE(g.passed);
  EXPECT_EQ(g.unseen,
            (std::vector<std::string>{"2 rows of base not in new", "1 case of new crashed"}));
}

TEST(CompareRecords, AFailedRowOnEitherSideFailsTheGate) {
  // Verification failed for one implementation in base; timed out in both for another case.
  const Record base =
      record({row("copy", "a", 10000)},
             {failure("copy", "b", "VerificationFailed", "output 3 is 2.5, expected 2"),
              failure("scan", "", kTimeoutFailure, "ran longer than --timeout 60 s")});
  const Record next = record({row("copy", "a", 10000), row("copy", "b", 10000)},
                             {failure("scan", "", kTimeoutFailure, "ran longer")});
  const RecordComparison c = compare_records(base, next);
  ASSERT_EQ(c.missing.size(), 1u);
  EXPECT_EQ(c.missing[0].missing_from, RecordSide::base);
  EXPECT_EQ(describe(c.missing[0]),
            "failed: VerificationFailed: output 3 is 2.5, expected 2 (in base)");
  EXPECT_EQ(c.failures.size(), 3u);
  const GateOutcome g = judge_gate(c, kFivePercent);
  EXPECT_FALSE(g.passed);
  EXPECT_EQ(g.unseen,
            (std::vector<std::string>{"1 row of new not in base", "1 case of base failed",
                                      "1 case of base timed out", "1 case of new timed out"}));
}

TEST(CompareRecords, ACaseSkippedOnBothSidesIsNothingToGuard) {
  const Failure skip = failure("gemm", "", kSkippedFailure, "needs bf16");
  const Record base = record({row("copy", "a", 10000)}, {skip});
  const Record next = record({row("copy", "a", 10000)}, {skip});
  const RecordComparison c = compare_records(base, next);
  EXPECT_TRUE(c.failures.empty());
  EXPECT_TRUE(judge_gate(c, kFivePercent).passed);
  // Skipped in new only: its rows in base are missing, and say why.
  const Record measured = record({row("copy", "a", 10000), row("gemm", "x", 5000)});
  const RecordComparison c2 = compare_records(measured, next);
  ASSERT_EQ(c2.missing.size(), 1u);
  EXPECT_EQ(describe(c2.missing[0]), "skipped: needs bf16 (in new)");
  EXPECT_FALSE(judge_gate(c2, kFivePercent).passed);
}

TEST(CompareRecords, NoRowInCommonFailsTheGate) {
  // Two records with no row in common gave an empty table and exit 0.
  const RecordComparison c =
      compare_records(record({row("copy", "a", 10000)}), record({row("gemm", "x", 5000)}));
  EXPECT_TRUE(c.pairs.empty());
  const GateOutcome g = judge_gate(c, kFivePercent);
  EXPECT_FALSE(g.passed);
  EXPECT_EQ(g.unseen.at(0), "no row is in both records");
  // Even two empty records: the gate guarded nothing.
  EXPECT_FALSE(judge_gate(compare_records(record({}), record({})), kFivePercent).passed);
  EXPECT_TRUE(judge_gate(compare_records(record({}), record({})), kFivePercentAllowMissing).passed);
}

TEST(CompareRecords, ARegressionFailsTheGateEvenWithAllowMissing) {
  const RecordComparison c =
      compare_records(record({row("copy", "a", 10000)}), record({row("copy", "a", 11000)}));
  const GateOutcome g = judge_gate(c, kFivePercentAllowMissing);
  EXPECT_FALSE(g.passed);
  ASSERT_EQ(g.regressions.size(), 1u);
  EXPECT_TRUE(judge_gate(c, GateOptions{0.2, false}).passed);  // 10% is within 20%
}

TEST(CompareRecords, WallClockRowsAcrossRecordsKeepTheResolutionRule) {
  // Two host runs of the same code, 3.7% apart with tight passes, read "-3.7% [-4.8%, -2.6%]
  // faster": a percent interval the 1.5x rule does not allow for wall-clock rows.
  const Record base = record({row("sum", "a", 100000, TimingMethod::host_clock, 0.001)});
  const Record next = record({row("sum", "a", 96300, TimingMethod::host_clock, 0.001)});
  const RecordComparison c = compare_records(base, next);
  ASSERT_EQ(c.pairs.size(), 1u);
  const Comparison& w = c.pairs[0].comparison;
  EXPECT_EQ(w.rule, ComparisonRule::resolution);
  ASSERT_TRUE(w.ratio);
  EXPECT_EQ(w.ratio->resolution, Resolution::no_measured_difference);
  EXPECT_EQ(w.ratio->wording, "0.96x the time");
  // No finer statement from the passes of two runs, which were not interleaved.
  EXPECT_FALSE(w.difference.has_value());
  EXPECT_EQ(describe(w).find("finer statement:"), std::string::npos) << describe(w);
  // Inside one record the same rule, with the finer statement its interleaved passes allow.
  const Comparison inside = compare_rows(base.results[0], next.results[0]);
  EXPECT_EQ(inside.rule, ComparisonRule::resolution);
  EXPECT_EQ(inside.ratio->resolution, w.ratio->resolution);
  EXPECT_FALSE(is_regression(w, 0));  // no direction measured: no regression at any threshold
  EXPECT_FALSE(summarize_changes(c).has_value());  // and no device-time mean
  const GateOutcome g = judge_gate(c, kFivePercent);
  EXPECT_TRUE(g.passed);
  ASSERT_EQ(g.notes.size(), 1u);
  EXPECT_EQ(g.notes[0],
            "1 row timed by the wall clock without a yardstick on both sides: judged by the "
            "2.0x floor of two runs, so a "
            "slowdown under 2.0x is not a regression the gate can see, nor one wider apart "
            "than the spread of its passes bounds");
  // Across two runs 1.6x is under the host clock's floor of runs not interleaved (2x): within
  // one record, whose passes were interleaved, the same rows differ (the 1.5x floor).
  const Record bit_slower = record({row("sum", "a", 160000, TimingMethod::host_clock, 0.001)});
  const RecordComparison across = compare_records(base, bit_slower);
  EXPECT_EQ(across.pairs[0].comparison.ratio->resolution, Resolution::no_measured_difference);
  EXPECT_NE(across.pairs[0].comparison.ratio->label.find("2.0x floor"), std::string::npos)
      << across.pairs[0].comparison.ratio->label;
  EXPECT_TRUE(judge_gate(across, kFivePercent).passed);
  EXPECT_EQ(compare_rows(base.results[0], bit_slower.results[0]).ratio->wording, "1.6x slower");
  // From 2x on it is a directional difference: a regression beyond 5%, not beyond 200%.
  const Record slower = record({row("sum", "a", 250000, TimingMethod::host_clock, 0.001)});
  const RecordComparison slow = compare_records(base, slower);
  EXPECT_EQ(slow.pairs[0].comparison.ratio->wording, "2.5x slower");
  EXPECT_EQ(judge_gate(slow, kFivePercent).regressions.size(), 1u);
  EXPECT_TRUE(judge_gate(slow, GateOptions{2.0, false}).passed);
  // The conclusion names the row and the comparison's words, and carries the gate's note.
  const CompareConclusion concluded = conclude(slow, kFivePercent);
  EXPECT_EQ(concluded.exit_code, kExitFailed);
  EXPECT_EQ(concluded.why, "the gate failed: 1 regression(s)");
  ASSERT_EQ(concluded.regressions.size(), 1u);
  EXPECT_EQ(concluded.regressions[0].rfind("sum / a", 0), 0u) << concluded.regressions[0];
  EXPECT_NE(concluded.regressions[0].find("2.5x slower"), std::string::npos)
      << concluded.regressions[0];
  EXPECT_EQ(concluded.notes, g.notes);
}

TEST(CompareRecords, WallClockRowsWithYardsticksAreJudgedAgainstThemAndSaidSo) {
  // The new run's minute ran the row and its yardstick alike 1.6x slower: as measured a 1.6x
  // slowdown, read against the yardsticks none; the gate's note names the floor it applied.
  Result base_row = row("sum", "a", 100000, TimingMethod::host_clock, 0.001);
  Result next_row = row("sum", "a", 160000, TimingMethod::host_clock, 0.001);
  base_row.measurement.yardstick = YardstickReading{"python-int-loop-1000", {40000, 40000}};
  next_row.measurement.yardstick = YardstickReading{"python-int-loop-1000", {64000, 64000}};
  const RecordComparison c = compare_records(record({base_row}), record({next_row}));
  ASSERT_EQ(c.pairs.size(), 1u);
  const Comparison& w = c.pairs[0].comparison;
  ASSERT_TRUE(w.ratio);
  EXPECT_TRUE(w.ratio->against_yardstick);
  EXPECT_EQ(w.ratio->resolution, Resolution::no_measured_difference) << describe(w);
  EXPECT_EQ(w.ratio->floor, kAcrossRunsYardstickRatio);
  const GateOutcome g = judge_gate(c, kFivePercent);
  EXPECT_TRUE(g.passed);
  ASSERT_EQ(g.notes.size(), 1u);
  EXPECT_EQ(g.notes[0],
            "1 row timed by the wall clock, each read against the yardstick timed beside it: "
            "judged by the 1.5x floor, so a slowdown under 1.5x is not a regression the gate can "
            "see, nor one wider apart than the spread of its passes bounds");
  // 3x the work in the same minute as its yardstick: a regression, read so.
  Result slow_row = row("sum", "a", 300000, TimingMethod::host_clock, 0.001);
  slow_row.measurement.yardstick = base_row.measurement.yardstick;
  const RecordComparison slow = compare_records(record({base_row}), record({slow_row}));
  ASSERT_EQ(judge_gate(slow, kFivePercent).regressions.size(), 1u);
  EXPECT_EQ(regression_words(slow.pairs[0].comparison),
            "3.0x slower (directional difference, each row read against the yardstick timed "
            "beside it, 1.5x resolution)");
  // A gate at 50% or more sees what the floor sees: no note.
  EXPECT_TRUE(judge_gate(c, GateOptions{0.5, false}).notes.empty());
}

TEST(CompareRecords, TheGeometricMeanClaimsNoDirection) {
  // "Geometric mean +0.10% (slower)" where no row differed, "+0% (slower)" for an exact zero.
  const Record base = record({row("copy", "a", 10000), row("copy", "b", 20000)});
  const std::optional<ChangeSummary> same = summarize_changes(compare_records(base, base));
  ASSERT_TRUE(same);
  EXPECT_EQ(same->geometric_mean, 0);
  EXPECT_EQ(describe(*same),
            "Geometric mean of new / base over 2 device-time row(s): 0%; by row: "
            "no row differs (2 with no difference detected)");
  const Record next = record({row("copy", "a", 11000), row("copy", "b", 20000)});
  const std::optional<ChangeSummary> one = summarize_changes(compare_records(base, next));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->slower, 1);
  EXPECT_EQ(one->undetected, 1);
  EXPECT_EQ(describe(*one),
            "Geometric mean of new / base over 2 device-time row(s): +4.9%; by "
            "row: 1 slower, 1 with no difference detected");
  for (const std::string& text : {describe(*same), describe(*one)}) {
    EXPECT_EQ(text.find("(slower)"), std::string::npos) << text;
    EXPECT_EQ(text.find("(faster)"), std::string::npos) << text;
  }
}

TEST(RowStatus, EveryFailureHasItsStatus) {
  EXPECT_EQ(to_string(status_of(failure("c", "", kSkippedFailure, "why"))), "skipped");
  EXPECT_EQ(to_string(status_of(failure("c", "", kCrashedFailure, "why"))), "crashed");
  EXPECT_EQ(to_string(status_of(failure("c", "", kTimeoutFailure, "why"))), "timed out");
  EXPECT_EQ(to_string(status_of(failure("c", "", "VerificationFailed", "why"))), "failed");
  EXPECT_EQ(to_string(status_of(failure("c", "", "UserCodeError", "why"))), "failed");
  EXPECT_EQ(to_string(status_of(failure("c", "", "DeviceError", "why"))), "failed");
  EXPECT_EQ(to_string(status_of(failure("c", "", "RecordsLost", "why"))), "not measured");
  EXPECT_EQ(to_string(status_of(failure("c", "", "OffThreadLaunch", "why"))), "not measured");
  EXPECT_EQ(to_string(status_of(failure("c", "", "SomethingNew", "why"))), "failed");
  EXPECT_EQ(error_of(failure("c", "", "VerificationFailed", "output 3")),
            "VerificationFailed: output 3");
  EXPECT_EQ(describe(failure("c", "", "VerificationFailed", "output 3")),
            "failed: VerificationFailed: output 3");
  EXPECT_EQ(describe(failure("c", "", kTimeoutFailure, "ran past 60 s")),
            "timed out: ran past 60 s");
  EXPECT_EQ(to_string(status_of(row("copy", "a", 10000))), "ok");
  EXPECT_EQ(error_of(row("copy", "a", 10000)), "");
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
