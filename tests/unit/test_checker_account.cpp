// B11, issue 50: the account of `gpumeter evaluate`'s checker (the process that checks every
// answer, where no candidate code runs) judged before a run's records.
#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/checker_account.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

Result row(const std::string& implementation, std::size_t checked) {
  Result r;
  r.row.case_name = "evaluate";
  r.row.implementation = implementation;
  r.measurement.ledger.iterations = 40;
  r.measurement.ledger.checked_iterations = checked;
  return r;
}

Record record_of(std::size_t reference_checked, std::size_t candidate_checked) {
  Record r;
  r.results = {row("reference", reference_checked), row("candidate", candidate_checked)};
  return r;
}

TEST(CheckerAccount, ARunWhoseChecksTheCheckerMadeIsJudgedByItsRecords) {
  const Record device = record_of(20, 18);
  const Record end_to_end = record_of(3, 3);
  // A phase repeated after lost records is checked again and counted once: more is fine.
  const CheckerAccount account{{{"reference", 25}, {"candidate", 21}}, "", ""};
  EXPECT_FALSE(judge_checker_account(account, {&device, &end_to_end}).has_value());
}

TEST(CheckerAccount, ChecksTheCheckerNeverMadeAreRefused) {
  const Record device = record_of(20, 18);
  const Record end_to_end = record_of(3, 3);
  // The candidate's answers were checked in its own process: the checker saw the reference's
  // only.
  const CheckerAccount account{{{"reference", 23}}, "", ""};
  const std::optional<CandidateVerdict> v = judge_checker_account(account, {&device, &end_to_end});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->verdict, Verdict::refused);
  EXPECT_FALSE(v->correct);
  EXPECT_EQ(v->why,
            "a record of a run gpumeter's checker did not see: it says 21 timed answers of "
            "candidate were checked, and the checker (where every answer is checked) checked 0");
  // One check short across the two records is as refused as all of them.
  const CheckerAccount short_by_one{{{"reference", 23}, {"candidate", 20}}, "", ""};
  const auto one = judge_checker_account(short_by_one, {&device, &end_to_end});
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->verdict, Verdict::refused);
}

TEST(CheckerAccount, AWrongAnswerTheCheckerSawStandsWhateverTheRecordSays) {
  const Record device = record_of(20, 18);
  const CheckerAccount account{
      {{"reference", 20}, {"candidate", 18}}, "candidate's checked answer 3: output differs", ""};
  const auto v = judge_checker_account(account, {&device});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->verdict, Verdict::wrong);
  EXPECT_NE(v->why.find("candidate's checked answer 3: output differs"), std::string::npos);
  // Without a record (the run's process crashed after the check), the same.
  EXPECT_EQ(judge_checker_account(account, {})->verdict, Verdict::wrong);
}

TEST(CheckerAccount, BytesGpumeterDoesNotWriteOnTheCheckersChannelAreTampering) {
  const Record device = record_of(20, 18);
  const CheckerAccount account{{{"reference", 20}, {"candidate", 18}},
                               "candidate's checked answer 1: output differs",
                               "a check of seed 7, checked already"};
  const auto v = judge_checker_account(account, {&device});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->verdict, Verdict::tampered);  // before the wrong answer
  EXPECT_NE(v->why.find("a check of seed 7, checked already"), std::string::npos);
}

// The sources of a run's verdict, in their order (judge_evaluated_run): each one decides before
// every one after it, on synthetic runs.
EvaluatedRun every_source() {
  EvaluatedRun run;
  run.channel_problems = {"a second report on gpumeter's channel",
                          "a second report on gpumeter's channel"};
  run.reported_tampered = {"torch.allclose"};
  run.watched = {"sys.setprofile"};
  run.checker =
      CheckerAccount{{{"reference", 20}}, "candidate's checked answer 2: output differs", ""};
  run.end = RunEnd::timed_out;
  run.end_why = "did not finish in 600 s and was killed";
  run.error = "VerificationFailed";
  run.error_whose = Whose::candidate;
  run.error_why = "VerificationFailed: iteration 7 differs";
  run.record_trouble = RecordTrouble::changed;
  run.record_trouble_why = "its record changed after gpumeter wrote it";
  run.record_unreadable = "not JSON";
  return run;
}

TEST(EvaluatedRun, TheReportChannelDecidesFirst) {
  const EvaluatedVerdict v = judge_evaluated_run(every_source());
  EXPECT_EQ(v.source, RunSource::channel);
  EXPECT_EQ(v.verdict.verdict, Verdict::tampered);
  EXPECT_EQ(v.verdict.why,
            "on gpumeter's report channel: a second report on gpumeter's channel; and changed: "
            "torch.allclose");
  // The problem once, then the report's own names (the compiled capture's are not its list).
  EXPECT_EQ(v.tampered,
            (std::vector<std::string>{"a second report on gpumeter's channel", "torch.allclose"}));
}

TEST(EvaluatedRun, AProcessThatEndedWithoutAReportIsJudgedByTheCheckerWhereItSawMore) {
  EvaluatedRun run = every_source();
  run.channel_problems.clear();
  EvaluatedVerdict v = judge_evaluated_run(run);
  EXPECT_EQ(v.source, RunSource::checker);
  EXPECT_EQ(v.verdict.verdict, Verdict::wrong);
  EXPECT_EQ(v.process_end, "did not finish in 600 s and was killed");
  // Without a checker's verdict, the end stands as it is.
  run.checker->mismatch.clear();
  v = judge_evaluated_run(run);
  EXPECT_EQ(v.source, RunSource::process_end);
  EXPECT_EQ(v.verdict.verdict, Verdict::timeout);
  EXPECT_EQ(v.verdict.why, "did not finish in 600 s and was killed");
  EXPECT_EQ(v.process_end, "");
  // A checker's verdict equal to the end's is no news: the end's sentence stays.
  run.end = RunEnd::tampering_seen;
  run.end_why = "ended so";
  run.checker->problem = "a check of seed 7, checked already";
  v = judge_evaluated_run(run);
  EXPECT_EQ(v.source, RunSource::process_end);
  EXPECT_EQ(v.verdict.why, "ended so");
}

TEST(EvaluatedRun, WhatTheTamperCheckFoundComesBeforeTheChecker) {
  EvaluatedRun run = every_source();
  run.channel_problems.clear();
  run.end.reset();
  run.reported_tampered = {"torch.allclose", "sys.setprofile"};
  const EvaluatedVerdict v = judge_evaluated_run(run);
  EXPECT_EQ(v.source, RunSource::tamper_check);
  EXPECT_EQ(v.verdict.verdict, Verdict::tampered);
  EXPECT_EQ(v.verdict.why,
            "changed what gpumeter's measurement, its checks or the reference call or run under: "
            "torch.allclose, sys.setprofile");
  EXPECT_EQ(v.tampered, (std::vector<std::string>{"torch.allclose", "sys.setprofile"}));
}

TEST(EvaluatedRun, TheCheckerComesBeforeTheRunsOwnErrorAndKeepsItsSentenceWhereTheyAgree) {
  EvaluatedRun run = every_source();
  run.channel_problems.clear();
  run.end.reset();
  run.reported_tampered.clear();
  run.watched.clear();
  // The run's process reported the same wrong answer: its sentence names the iteration.
  EvaluatedVerdict v = judge_evaluated_run(run);
  EXPECT_EQ(v.source, RunSource::checker);
  EXPECT_EQ(v.verdict.verdict, Verdict::wrong);
  EXPECT_EQ(v.verdict.why,
            "VerificationFailed: iteration 7 differs (checked by gpumeter's checker, a process no "
            "candidate code runs in)");
  EXPECT_EQ(v.error, "VerificationFailed");
  // A report of another verdict (a crash) is not the checker's: the checker's sentence.
  run.error = "CandidateError";
  v = judge_evaluated_run(run);
  EXPECT_EQ(v.verdict.verdict, Verdict::wrong);
  EXPECT_NE(v.verdict.why.find("gpumeter's checker (a process no candidate code runs in) found"),
            std::string::npos);
  EXPECT_EQ(v.error, "");
  // Without the checker's verdict, the run's error, by whose code raised it.
  run.checker->mismatch.clear();
  v = judge_evaluated_run(run);
  EXPECT_EQ(v.source, RunSource::error);
  EXPECT_EQ(v.verdict.verdict, verdict_of_error("CandidateError", Whose::candidate));
  EXPECT_EQ(v.verdict.why, "VerificationFailed: iteration 7 differs");
  EXPECT_EQ(v.error, "CandidateError");
}

TEST(EvaluatedRun, TroubleWithTheNamedRecordsIsTamperingUnlessTheyAreMiscounted) {
  EvaluatedRun run = every_source();
  run.channel_problems.clear();
  run.end.reset();
  run.reported_tampered.clear();
  run.watched.clear();
  run.checker->mismatch.clear();
  run.error.reset();
  for (const RecordTrouble t :
       {RecordTrouble::elsewhere, RecordTrouble::unreadable, RecordTrouble::changed}) {
    run.record_trouble = t;
    const EvaluatedVerdict v = judge_evaluated_run(run);
    EXPECT_EQ(v.source, RunSource::records);
    EXPECT_EQ(v.verdict.verdict, Verdict::tampered);
    EXPECT_EQ(v.verdict.why, "its record changed after gpumeter wrote it");
    EXPECT_EQ(v.tampered, std::vector<std::string>{"its record changed after gpumeter wrote it"});
  }
  run.record_trouble = RecordTrouble::miscounted;
  run.record_trouble_why = "its report names 2 records in its folder, not 1";
  EvaluatedVerdict v = judge_evaluated_run(run);
  EXPECT_EQ(v.verdict.verdict, verdict_of_run_end(RunEnd::runner_left_no_record, "").verdict);
  EXPECT_TRUE(v.tampered.empty());
  // Then the strict reader's refusal.
  run.record_trouble = RecordTrouble::none;
  v = judge_evaluated_run(run);
  EXPECT_EQ(v.verdict.verdict, verdict_of_run_end(RunEnd::record_unreadable, "").verdict);
  EXPECT_EQ(v.verdict.why, "its record cannot be read: not JSON");
}

TEST(EvaluatedRun, TheCheckerJudgesTheRecordsBeforeTheyAreJudged) {
  const Record device = record_of(20, 18);
  EvaluatedRun run;
  run.checker = CheckerAccount{{{"reference", 20}}, "", ""};
  run.judge.record = &device;
  run.judge.candidate = "candidate";
  EvaluatedVerdict v = judge_evaluated_run(run);
  EXPECT_EQ(v.source, RunSource::checker);
  EXPECT_EQ(v.verdict.verdict, Verdict::refused);
  // The checker saw every check: the records are judged (here, a record without a comparison).
  run.checker = CheckerAccount{{{"reference", 20}, {"candidate", 18}}, "", ""};
  v = judge_evaluated_run(run);
  EXPECT_EQ(v.source, RunSource::judged);
  VerdictInputs same;
  same.record = &device;
  same.candidate = "candidate";
  EXPECT_EQ(v.verdict.verdict, judge_candidate(same).verdict);
  EXPECT_EQ(v.verdict.why, judge_candidate(same).why);
  // Nothing read and nothing else to say: no verdict of its own.
  run.judge.record = nullptr;
  v = judge_evaluated_run(run);
  EXPECT_EQ(v.source, RunSource::judged);
  EXPECT_TRUE(v.verdict.why.empty());
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
