// Records over commits (build_history): the order of commits and records, what is left out and
// why, lines by board and timing method, and the moves the comparison of two runs finds between
// commits, on synthetic records whose truth is known.
#include "gpumeter/history.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/board.hpp"
#include "gpumeter/detail/record_comparison.hpp"
#include "history_records.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

using testing::history_record;
using testing::history_row;

std::vector<HistoryInput> inputs(const std::vector<Record>& records) {
  std::vector<HistoryInput> in;
  for (const Record& r : records) in.push_back({&r, "dir/" + r.run_id + ".json"});
  return in;
}

// The commits and run ids of the placed records, in order.
std::vector<std::string> order(const History& h) {
  std::vector<std::string> out;
  for (const HistoryRecord& r : h.records) {
    out.push_back(h.commits[r.commit].commit + ":" + r.record->run_id);
  }
  return out;
}

TEST(History, CommitsInTheOrderOfTheirFirstRecordThenRecordsByTime) {
  const std::vector<Record> records = {
      history_record("r3", "bbb", "2026-12-02T00:00:00Z", {history_row("a", 1000)}),
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 1000)}),
      history_record("r4", "aaa", "2026-12-03T00:00:00Z", {history_row("a", 1000)}),
      history_record("r2", "ccc", "2026-12-02T12:00:00Z", {history_row("a", 1000)}),
  };
  const History h = build_history(inputs(records));
  // aaa first seen on the 1st, bbb on the 2nd, ccc later on the 2nd; aaa's rerun on the 3rd stays
  // with aaa.
  EXPECT_EQ(order(h), (std::vector<std::string>{"aaa:r1", "aaa:r4", "bbb:r3", "ccc:r2"}));
  ASSERT_EQ(h.commits.size(), 3u);
  EXPECT_EQ(h.commits[0].records, 2u);
  EXPECT_TRUE(h.left_out.empty());
}

TEST(History, Rfc3339TimesAreReadAsMomentsAndNothingElseIs) {
  const std::optional<UtcInstant> epoch = rfc3339_instant("1970-01-01T00:00:00Z");
  ASSERT_TRUE(epoch);
  EXPECT_EQ(epoch->seconds, 0);
  EXPECT_EQ(rfc3339_instant("2026-12-03T10:00:00Z")->seconds, 1796292000);
  // An offset is the same moment in UTC; a fraction is kept to the nanosecond.
  EXPECT_EQ(rfc3339_instant("2026-12-03T11:30:00+01:30")->seconds, 1796292000);
  EXPECT_EQ(rfc3339_instant("2026-12-03T10:00:00.25z")->nanos, 250000000);
  EXPECT_EQ(rfc3339_instant("2024-02-29T00:00:00Z")->seconds, 1709164800);  // a leap day
  for (const char* bad :
       {"", "yesterday", "9999-99-99T99:99:99Z", "2026-02-29T00:00:00Z", "2026-12-03 10:00:00Z",
        "2026-12-03T10:00:00", "2026-12-03T24:00:00Z", "2026-12-03T10:00:00.Z",
        "2026-12-03T10:00:00Z ", "2026-12-03T10:00:00+1:00", "+2026-12-03T10:00:00Z"}) {
    EXPECT_FALSE(rfc3339_instant(bad)) << bad;
  }
}

// One planted copy of the first commit's record with an empty time sorted first as text and
// reversed the two commits, turning a 2.8x regression into "2.2x faster". Every record without a
// time it can read, or with one after the build, is left out now, saying why.
TEST(History, ARecordWithoutABelievableTimeIsLeftOutAndTheOrderStands) {
  const std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 1000)}),
      history_record("r2", "bbb", "2026-12-02T00:00:00Z", {history_row("a", 2800)}),
      history_record("planted1", "bbb", "", {history_row("a", 2800)}),
      history_record("planted2", "bbb", "yesterday", {history_row("a", 2800)}),
      history_record("planted3", "bbb", "2999-01-01T00:00:00Z", {history_row("a", 2800)}),
  };
  HistoryOptions o;
  o.now_utc = "2026-12-07T00:00:00Z";
  const History h = build_history(inputs(records), o);
  EXPECT_EQ(order(h), (std::vector<std::string>{"aaa:r1", "bbb:r2"}));
  ASSERT_EQ(h.left_out.size(), 3u);
  EXPECT_NE(h.left_out[0].reason.find("\"\" is not an RFC 3339 time"), std::string::npos)
      << h.left_out[0].reason;
  EXPECT_NE(h.left_out[1].reason.find("\"yesterday\" is not an RFC 3339 time"), std::string::npos);
  EXPECT_NE(h.left_out[2].reason.find("is after this build"), std::string::npos);
  ASSERT_EQ(h.regressions.size(), 1u);
  EXPECT_TRUE(h.improvements.empty());
  // Times are compared as moments: 01:00+02:00 is 23:00 the day before, earlier than aaa's.
  const std::vector<Record> offsets = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 1000)}),
      history_record("r2", "bbb", "2026-12-01T01:00:00+02:00", {history_row("a", 1000)}),
  };
  EXPECT_EQ(order(build_history(inputs(offsets), o)),
            (std::vector<std::string>{"bbb:r2", "aaa:r1"}));
}

// One record of 100,000 rows wrote 100,004 pages: series beyond the bound are left out, counted
// in one entry naming the first.
TEST(History, SeriesBeyondTheBoundAreLeftOutInOneEntry) {
  std::vector<Result> rows;
  for (std::size_t i = 0; i < kMaxHistorySeries + 7; ++i) {
    rows.push_back(history_row("impl", 1000, TimingMethod::kernel_records, 1, 0.002,
                               "case" + std::to_string(100000 + i)));
  }
  const std::vector<Record> records = {history_record("r1", "aaa", "2026-12-01T00:00:00Z", rows)};
  const History h = build_history(inputs(records));
  EXPECT_EQ(h.series.size(), kMaxHistorySeries);
  ASSERT_EQ(h.left_out.size(), 1u);
  EXPECT_EQ(h.left_out[0].source, "7 series");
  EXPECT_NE(h.left_out[0].reason.find("case105000 / impl"), std::string::npos)
      << h.left_out[0].reason;
}

TEST(History, AGivenCommitOrderWinsOverTimeAndLeavesOutOtherCommits) {
  const std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-03T00:00:00Z", {history_row("a", 1000)}),
      history_record("r2", "bbb", "2026-12-01T00:00:00Z", {history_row("a", 1000)}),
      history_record("r3", "zzz", "2026-12-02T00:00:00Z", {history_row("a", 1000)}),
  };
  HistoryOptions o;
  o.commit_order = {"aaa", "bbb"};
  const History h = build_history(inputs(records), o);
  EXPECT_EQ(order(h), (std::vector<std::string>{"aaa:r1", "bbb:r2"}));
  ASSERT_EQ(h.left_out.size(), 1u);
  EXPECT_EQ(h.left_out[0].source, "dir/r3.json");
  EXPECT_NE(h.left_out[0].reason.find("not in the commit order"), std::string::npos);
}

TEST(History, ARecordWithoutACommitOrGivenTwiceIsLeftOutSayingWhy) {
  std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 1000)}),
      history_record("r2", "", "2026-12-01T00:00:00Z", {history_row("a", 1000)}),
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 1000)}),
  };
  std::vector<HistoryInput> in = inputs(records);
  in[2].source = "copy/r1.json";
  const History h = build_history(in);
  EXPECT_EQ(h.records.size(), 1u);
  ASSERT_EQ(h.left_out.size(), 2u);
  EXPECT_NE(h.left_out[0].reason.find("names no project commit"), std::string::npos);
  EXPECT_NE(h.left_out[1].reason.find("same record (run id r1) as dir/r1.json"), std::string::npos);
}

TEST(History, ASlowdownBetweenTwoCommitsIsARegressionBetweenThem) {
  const std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 10000, {}, 1)}),
      history_record("r2", "aaa", "2026-12-01T01:00:00Z", {history_row("a", 10000, {}, 2)}),
      history_record("r3", "bbb", "2026-12-02T00:00:00Z", {history_row("a", 10000, {}, 3)}),
      history_record("r4", "ccc", "2026-12-03T00:00:00Z", {history_row("a", 11000, {}, 4)}),
      history_record("r5", "ddd", "2026-12-04T00:00:00Z", {history_row("a", 11000, {}, 5)}),
      history_record("r6", "eee", "2026-12-05T00:00:00Z", {history_row("a", 10000, {}, 6)}),
  };
  const History h = build_history(inputs(records));
  ASSERT_EQ(h.series.size(), 1u);
  const HistorySeries& s = h.series[0];
  ASSERT_EQ(s.points.size(), 6u);
  EXPECT_FALSE(s.points[0].previous);  // the first point of its line
  for (std::size_t i = 1; i < 6; ++i) {
    ASSERT_TRUE(s.points[i].previous) << i;
    EXPECT_EQ(*s.points[i].previous, i - 1);
    ASSERT_TRUE(s.points[i].comparison);
    EXPECT_TRUE(s.points[i].comparison->compared()) << s.points[i].comparison->refusal;
  }
  EXPECT_EQ(s.points[1].movement, Movement::none);
  EXPECT_EQ(s.points[2].movement, Movement::none);
  EXPECT_EQ(s.points[3].movement, Movement::slower);
  EXPECT_EQ(s.points[4].movement, Movement::none);
  EXPECT_EQ(s.points[5].movement, Movement::faster);
  ASSERT_EQ(h.regressions.size(), 1u);
  EXPECT_EQ(h.regressions[0].point, 3u);
  const Comparison& c = *s.points[3].comparison;
  EXPECT_NEAR(c.difference->estimate, 0.10, 0.005);
  EXPECT_GT(c.difference->low, 0.08);
  ASSERT_EQ(h.improvements.size(), 1u);
  EXPECT_EQ(h.improvements[0].point, 5u);
}

TEST(History, AMoveBetweenTwoRecordsOfOneCommitIsShownButIsNoRegression) {
  const std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 10000, {}, 1)}),
      history_record("r2", "aaa", "2026-12-01T01:00:00Z", {history_row("a", 12000, {}, 2)}),
  };
  const History h = build_history(inputs(records));
  EXPECT_EQ(h.series[0].points[1].movement, Movement::slower);
  EXPECT_TRUE(h.regressions.empty());
  EXPECT_TRUE(h.improvements.empty());
}

TEST(History, PointsOfAnotherBoardAreNeverComparedAndTheLineBreaksSayingSo) {
  const std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 10000, {}, 1)},
                     "GPU-A"),
      // Another board, twice as slow: a break, not a regression.
      history_record("r2", "bbb", "2026-12-02T00:00:00Z", {history_row("a", 20000, {}, 2)},
                     "GPU-B"),
      // Back on the first board, 10% slower than its last point there: a regression from aaa.
      history_record("r3", "ccc", "2026-12-03T00:00:00Z", {history_row("a", 11000, {}, 3)},
                     "GPU-A"),
  };
  const History h = build_history(inputs(records));
  const HistorySeries& s = h.series[0];
  EXPECT_FALSE(s.points[1].previous);
  EXPECT_EQ(s.points[1].line_break,
            "board changed from NVIDIA H200 (cuda:0, GPU-A) to NVIDIA H200 (cuda:0, GPU-B)");
  ASSERT_TRUE(s.points[2].previous);
  EXPECT_EQ(*s.points[2].previous, 0u);
  EXPECT_FALSE(s.points[2].line_break.empty());
  EXPECT_EQ(s.points[2].movement, Movement::slower);
  ASSERT_EQ(h.regressions.size(), 1u);
  EXPECT_EQ(h.regressions[0].point, 2u);
}

TEST(History, BoardsWithoutAUuidAreTheirHostsDevices) {
  Record a = history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 1000)}, "");
  Record b = a;
  b.host.hostname = "node2";
  EXPECT_FALSE(history_board_of(a, a.results[0]) == history_board_of(b, b.results[0]));
  EXPECT_EQ(history_board_of(a, a.results[0]).label, "NVIDIA H200 (cuda:0) on node1");
  Record c = a;
  c.device.uuid = "GPU-1";
  Record d = c;
  d.host.hostname = "node2";  // a uuid names one board wherever it is read
  EXPECT_TRUE(history_board_of(c, c.results[0]) == history_board_of(d, d.results[0]));
  // A row of a record merged from runs on two boards names its own board: that is its board.
  Record e = c;
  e.results[0].board.uuid = "GPU-2";
  e.results[0].board.name = "NVIDIA H200";
  EXPECT_EQ(history_board_of(e, e.results[0]).key, "uuid GPU-2");
  EXPECT_FALSE(history_board_of(e, e.results[0]) == history_board_of(c, c.results[0]));
  // A row naming its record's own board is the record's device, as before.
  Record f = c;
  f.results[0].board = board_of(f.device, f.device_state);
  EXPECT_TRUE(history_board_of(f, f.results[0]) == history_board_of(c, c.results[0]));
}

TEST(History, AnotherTimingMethodBreaksTheLine) {
  const std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 10000, {}, 1)}),
      history_record("r2", "bbb", "2026-12-02T00:00:00Z",
                     {history_row("a", 20000, TimingMethod::device_events, 2)}),
  };
  const History h = build_history(inputs(records));
  const HistoryPoint& p = h.series[0].points[1];
  EXPECT_FALSE(p.previous);
  EXPECT_EQ(p.line_break, "timing method changed from kernel-records to device-events");
  EXPECT_TRUE(h.regressions.empty());
}

TEST(History, TheWallClockIsJudgedByTheResolutionAcrossRuns) {
  const auto wall = [](double ns, int seed) {
    return history_row("a", ns, TimingMethod::host_clock, seed);
  };
  const std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {wall(10000, 1)}),
      // 1.7x: over the 1.5x resolution, but under the 2x floor of two runs whose passes were
      // not interleaved: no direction, whatever the passes say.
      history_record("r2", "bbb", "2026-12-02T00:00:00Z", {wall(17000, 2)}),
      // 2.5x the time of the one before: a directional difference.
      history_record("r3", "ccc", "2026-12-03T00:00:00Z", {wall(42500, 3)}),
  };
  const History h = build_history(inputs(records));
  const HistorySeries& s = h.series[0];
  EXPECT_EQ(s.points[1].movement, Movement::none);
  EXPECT_FALSE(s.points[1].comparison->difference);  // no finer statement across runs
  EXPECT_EQ(s.points[2].movement, Movement::slower);
  ASSERT_EQ(h.regressions.size(), 1u);
  EXPECT_EQ(h.regressions[0].point, 2u);
}

TEST(History, APointWhoseNullTestFailedIsNoBaseline) {
  Result failed = history_row("a", 20000, {}, 2);
  failed.measurement.null_test = NullTestSamples{4, {20000, 20000, 20000}};  // 4x work, 1x time
  summarize_result(failed, Ceilings{});  // its outcome decided, as a run's finish decides it
  const std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z", {history_row("a", 10000, {}, 1)}),
      history_record("r2", "bbb", "2026-12-02T00:00:00Z", {failed}),
      history_record("r3", "ccc", "2026-12-03T00:00:00Z", {history_row("a", 10000, {}, 3)}),
  };
  const History h = build_history(inputs(records));
  const HistorySeries& s = h.series[0];
  ASSERT_TRUE(s.points[1].comparison);
  EXPECT_FALSE(s.points[1].comparison->compared());  // refused: its time may not be its work's
  EXPECT_TRUE(s.points[1].null_test_failed);
  EXPECT_FALSE(s.points[0].null_test_failed);
  EXPECT_EQ(s.points[1].movement, Movement::none);
  ASSERT_TRUE(s.points[2].previous);
  EXPECT_EQ(*s.points[2].previous, 0u);
  EXPECT_TRUE(h.regressions.empty());
}

TEST(History, TheSameMeasurementInAShardAndItsMergeIsOnePoint) {
  const Result a = history_row("a", 10000, {}, 1);
  const Result b = history_row("b", 20000, {}, 1);
  const std::vector<Record> records = {
      history_record("shard0", "aaa", "2026-12-01T00:00:00Z", {a}),
      history_record("shard1", "aaa", "2026-12-01T00:00:01Z", {b}),
      history_record("merged", "aaa", "2026-12-01T00:00:02Z", {a, b}),
      // The same samples at another commit are another measurement (a record copied forward
      // would be a lie, but not one this can tell): a point of its own.
      history_record("later", "bbb", "2026-12-02T00:00:00Z", {a}),
  };
  const History h = build_history(inputs(records));
  ASSERT_EQ(h.series.size(), 2u);
  ASSERT_EQ(h.series[0].points.size(), 2u);
  EXPECT_EQ(h.series[0].points[0].also_in, (std::vector<std::string>{"dir/merged.json"}));
  ASSERT_EQ(h.series[1].points.size(), 1u);
  EXPECT_EQ(h.series[1].points[0].also_in, (std::vector<std::string>{"dir/merged.json"}));
}

TEST(History, FailuresArePointsWithoutATimeAndACaseFailureReachesEachImplementation) {
  const Failure whole{{"copy", {{"n", "1024"}}, ""}, "Crashed", "killed by signal 9"};
  const Failure one{{"copy", {{"n", "1024"}}, "b"}, "VerificationFailed", "output 3 differs"};
  const std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z",
                     {history_row("a", 10000, {}, 1), history_row("b", 10000, {}, 1)}),
      history_record("r2", "bbb", "2026-12-02T00:00:00Z", {}, "GPU-0000", {whole}),
      history_record("r3", "ccc", "2026-12-03T00:00:00Z", {history_row("a", 10000, {}, 3)},
                     "GPU-0000", {one}),
      history_record("r4", "ddd", "2026-12-04T00:00:00Z", {history_row("a", 10000, {}, 4)},
                     "GPU-0000", {{{"other", {}, ""}, "Skipped", "needs bf16"}}),
  };
  const History h = build_history(inputs(records));
  ASSERT_EQ(h.series.size(), 3u);  // copy/a, copy/b, other (the whole case: no implementation ran)
  const HistorySeries& a = h.series[0];
  const HistorySeries& b = h.series[1];
  ASSERT_EQ(a.points.size(), 4u);
  EXPECT_EQ(a.points[1].failure, &records[1].failures[0]);
  EXPECT_EQ(a.points[1].result, nullptr);
  ASSERT_TRUE(a.points[2].previous);
  EXPECT_EQ(*a.points[2].previous, 0u);  // across the failure, to the last time
  ASSERT_EQ(b.points.size(), 3u);
  EXPECT_EQ(b.points[1].failure, &records[1].failures[0]);
  EXPECT_EQ(b.points[2].failure, &records[2].failures[0]);
  EXPECT_EQ(h.series[2].row.case_name, "other");
  EXPECT_EQ(h.series[2].row.implementation, "");
}

TEST(History, SeriesAreInRowOrderWithEveryPointOfTheirRow) {
  const std::vector<Record> records = {
      history_record("r1", "aaa", "2026-12-01T00:00:00Z",
                     {history_row("z", 1000, {}, 1, 0.002, "b"), history_row("y", 1000, {}, 1),
                      history_row("x", 1000, {}, 1)}),
  };
  const History h = build_history(inputs(records));
  ASSERT_EQ(h.series.size(), 3u);
  EXPECT_EQ(h.series[0].row.case_name, "b");  // by case, then params, then implementation
  EXPECT_EQ(h.series[1].row.implementation, "x");
  EXPECT_EQ(h.series[2].row.implementation, "y");
}

TEST(CompareAcrossRuns, IsHowCompareRecordsJudgesEachPair) {
  for (const TimingMethod m : {TimingMethod::kernel_records, TimingMethod::host_clock}) {
    const Record base = history_record("r1", "aaa", "t", {history_row("a", 10000, m, 1)});
    const Record next = history_record("r2", "bbb", "t", {history_row("a", 11000, m, 2)});
    const Comparison pair = compare_records(base, next).pairs.at(0).comparison;
    const Comparison alone = compare_across_runs(base.results[0], next.results[0]);
    EXPECT_EQ(pair.difference.has_value(), alone.difference.has_value());
    EXPECT_EQ(pair.ratio.has_value(), alone.ratio.has_value());
    EXPECT_EQ(movement_of(pair), movement_of(alone));
  }
}

TEST(MovementOf, FollowsTheRuleOfTheStatistic) {
  Comparison c;
  c.rule = ComparisonRule::relative_difference;
  c.difference = RelativeDifference{};
  c.difference->low = 0.01;
  c.difference->high = 0.03;
  EXPECT_EQ(movement_of(c), Movement::slower);
  c.difference->low = -0.03;
  c.difference->high = -0.01;
  EXPECT_EQ(movement_of(c), Movement::faster);
  c.difference->high = 0.01;
  EXPECT_EQ(movement_of(c), Movement::none);
  c.refusal = "refused";
  c.difference->high = -0.01;
  EXPECT_EQ(movement_of(c), Movement::none);

  Comparison w;
  w.rule = ComparisonRule::resolution;
  w.ratio = compare_times(10000, 20000);  // the candidate took 2x
  EXPECT_EQ(movement_of(w), Movement::slower);
  w.ratio = compare_times(20000, 10000);
  EXPECT_EQ(movement_of(w), Movement::faster);
  w.ratio = compare_times(10000, 14000);  // under 1.5x: no direction
  EXPECT_EQ(movement_of(w), Movement::none);
  // A finer interval a wall-clock row may carry within one run gives no direction here.
  w.difference = RelativeDifference{};
  w.difference->low = 0.2;
  w.difference->high = 0.5;
  EXPECT_EQ(movement_of(w), Movement::none);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
