// B11, issue 50: the account of `gpumeter evaluate`'s checker (the process that checks every
// answer, where no candidate code runs) judged before a run's records.
#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/detail/checker_account.hpp"

namespace gpumeter {
namespace {

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

}  // namespace
}  // namespace gpumeter
