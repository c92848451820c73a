// Records altered to claim what no run can give (issue 30): each field a table shows is
// re-derived or cross-checked from what it is made of, and an altered one is refused in one line
// naming the file and the field. One test per alteration.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/precision_width.hpp"
#include "sequential.hpp"
#include "synthetic_record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

using nlohmann::ordered_json;

// The reader's one line for `j` (as "file: problem"), or "(accepted)".
std::string refusal(const ordered_json& j) {
  try {
    (void)parse_record(j.dump(1), "dir/altered.json");
  } catch (const InvalidRecord& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;  // one line
    EXPECT_EQ(what.rfind("dir/altered.json: ", 0), 0u) << what;
    return what;
  }
  return "(accepted)";
}

ordered_json json_of(const Record& r) {
  return ordered_json::parse(serialize(r));
}

// Expects the record altered by `edit` refused with a message containing `words`.
void expect_refused(const Record& good, const std::function<void(ordered_json&)>& edit,
                    const std::string& words) {
  ordered_json j = json_of(good);
  ASSERT_EQ(refusal(j), "(accepted)") << "the unaltered record must read";
  edit(j);
  const std::string what = refusal(j);
  EXPECT_NE(what.find(words), std::string::npos) << what;
}

// One row run to a target precision as the stop rule runs it: 64 passes of 4 samples whose pass
// levels scatter by about 1% (a fixed LCG), replayed through run_to_precision itself, with a clock
// that advances by each pass's samples and 1 ms of overhead. With a 0.1% target it stops at the
// pass cap; its passes were within 5% after two rounds.
Record pass_cap_record() {
  Record rec = testing::full_record("20261202T080000Z-30-00000001");
  rec.results.resize(1);
  Result& row = rec.results[0];
  Measurement& m = row.measurement;
  m.null_test.reset();
  m.timestamp_tick_ns = 1;  // the step each pass below reports
  std::uint64_t state = 30;
  const auto noise = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5;
  };
  std::vector<std::vector<double>> passes;
  for (int k = 0; k < 64; ++k) {
    const double level = 40'000 * (1 + 0.02 * noise());
    std::vector<double> pass;
    for (int s = 0; s < 4; ++s) pass.push_back(std::round(level * (1 + 0.001 * noise())));
    passes.push_back(pass);
  }
  Nanos clock = 0;
  std::size_t next = 0;
  m.samples.clear();
  m.pass_sizes.clear();
  const auto run_pass = [&](std::size_t) {
    detail::PassRun run;
    run.samples = passes.at(next++);
    for (const double busy : run.samples) {
      m.samples.push_back(
          testing::sample(static_cast<Nanos>(busy), static_cast<Nanos>(busy) + 1'000, 2, 500));
      clock += static_cast<Nanos>(busy) + 1'000;
    }
    clock += 1'000'000;
    m.pass_sizes.push_back(run.samples.size());
    return run;
  };
  const detail::SequentialPasses s = detail::run_to_precision(
      1, run_pass, [&] { return clock; }, PrecisionTarget{0.001, kSecond});
  m.precision = s.outcome;
  m.measure_iterations = m.samples.size();
  // The budget that gives 4 samples a pass whatever the call's estimate, each pass warming up 4:
  // a run to a precision records the budget its passes ran with, which the reader checks the
  // counts against.
  rec.config.budget = {5 * kMillisecond, 25 * kMillisecond, 4, 4};
  m.warmup_iterations = 4 * m.pass_sizes.size();
  m.ledger = testing::ledger_of(m);
  testing::derive_summaries(rec);
  return rec;
}

TEST(ImpossibleRecords, APassCapRunIsReadAndItsTargetCannotBeRaised) {
  const Record rec = pass_cap_record();
  ASSERT_EQ(rec.results[0].measurement.precision->stopped, StopReason::pass_cap);
  ASSERT_EQ(rec.results[0].measurement.precision->passes, 64);
  // "target 5.0% reached after 64 passes": the rule would have stopped at 4.
  expect_refused(
      rec,
      [](ordered_json& j) {
        j["results"][0]["precision"]["target"] = 0.05;
        j["results"][0]["precision"]["stopped"] = "target_reached";
      },
      "results[0].precision.stopped: its passes were within the target 0.05 after 4 passes");
  // The pass cap claimed of fewer passes than the cap.
  expect_refused(
      testing::precision_record(),
      [](ordered_json& j) { j["results"][0]["precision"]["stopped"] = "pass_cap"; },
      "results[0].precision.stopped: pass_cap after 2 passes, but the cap is 64 passes");
}

TEST(ImpossibleRecords, AnElapsedTimeBelowItsSamplesIsRefused) {
  // 1 ns for the samples' own device time (about 0.4 ms over 64 passes).
  expect_refused(
      pass_cap_record(), [](ordered_json& j) { j["results"][0]["precision"]["elapsed_ns"] = 1; },
      "results[0].precision.elapsed_ns: 1e-09 s, less than its samples' own device time");
}

TEST(ImpossibleRecords, AnElapsedTimeFarAboveItsCapIsRefused) {
  // 10,000 s against a 2 s cap, samples of a few ms.
  expect_refused(
      testing::precision_record(),
      [](ordered_json& j) { j["results"][0]["precision"]["elapsed_ns"] = 10'000'000'000'000LL; },
      "results[0].precision.elapsed_ns: 10000 s, more than a run capped at 2 s");
}

TEST(ImpossibleRecords, TheTimeCapLongBeforeTheCapIsRefused) {
  // "the time cap" after 1.2 s of 5 s: another round of 1.2 s ends at 2.4 s, within the cap.
  expect_refused(
      testing::precision_record(),
      [](ordered_json& j) {
        j["results"][0]["precision"]["max_time_ns"] = 5'000'000'000LL;
        j["results"][0]["precision"]["elapsed_ns"] = 1'200'000'000LL;
      },
      "results[0].precision.stopped: the time cap after 1.2 s of 5 s");
}

TEST(ImpossibleRecords, ARowTwiceIsRefused) {
  Record rec = testing::full_record();
  expect_refused(
      rec, [](ordered_json& j) { j["results"].push_back(j["results"][0]); },
      "results[2]: the row \"gemm / cublas (dtype=bf16, m=4096)\" appears twice (also at "
      "results[0]");
}

TEST(ImpossibleRecords, AProgramGroupOutsideTheRangesWithNoKernelIsRefused) {
  Record rec = testing::program_record();
  for (Result& r : rec.results) r.count_copies = false;
  testing::derive_summaries(rec);
  expect_refused(
      rec, [](ordered_json& j) { j["program"]["outside"][0]["n_kernels"] = 0; },
      "program.outside[0].n_kernels: 0; a group outside the ranges holds at least one kernel");
}

TEST(ImpossibleRecords, AProgramWithoutItsProcessesIsRefused) {
  expect_refused(
      testing::program_record(),
      [](ordered_json& j) { j["program"]["processes"] = ordered_json::array(); },
      "program.processes: no process of run 1 of 2");
}

TEST(ImpossibleRecords, AProgramNamingAnUnknownPidIsRefused) {
  expect_refused(
      testing::program_record(), [](ordered_json& j) { j["program"]["outside"][1]["pid"] = 999; },
      "program.outside[1].pid: 999 is no process of run 2");
  expect_refused(
      testing::program_record(),
      [](ordered_json& j) { j["program"]["launches_without_work"][0]["pid"] = 4262; },
      "program.launches_without_work[0].pid: 4262 is no process of run 1");
}

TEST(ImpossibleRecords, MoreRangeInstancesThanRangeEventsIsRefused) {
  expect_refused(
      testing::program_record(),
      [](ordered_json& j) { j["program"]["ranges"][1]["instances"] = 1'000'000; },
      "program.ranges: 1000030 instances, but the processes recorded 100 range events");
}

TEST(ImpossibleRecords, AProgramRecordWithoutItsSectionIsRefused) {
  expect_refused(
      testing::program_record(), [](ordered_json& j) { j.erase("program"); },
      "dir/altered.json: program: missing from a record of schedule \"program\"");
}

TEST(ImpossibleRecords, TheL2FlushOnInAProgramRecordIsRefused) {
  expect_refused(
      testing::program_record(),
      [](ordered_json& j) {
        j["config"]["l2_flush"] = true;
        j["config"]["l2_flush_mode"] = "write+read";
      },
      "config.l2_flush: on, in the record of a program run as it is");
}

TEST(ImpossibleRecords, PhasesAndTotalsOfACandidateWithNoRowAreRefused) {
  expect_refused(
      testing::phases_record(),
      [](ordered_json& j) {
        ordered_json ghost = j["phases"][0];
        ghost["implementation"] = "ghost";
        j["phases"].insert(j["phases"].begin(), ghost);
      },
      "phases[0]: \"saxpy / ghost (n=1048576)\" is no row of the record");
  expect_refused(
      testing::phases_record(), [](ordered_json& j) { j["totals"][3]["implementation"] = "ghost"; },
      "totals[3]: \"saxpy / ghost (n=1048576)\" is no row of the record");
}

// A runtime names a candidate of the record: one added for a candidate it never ran is refused
// (the reader accepted it before).
TEST(ImpossibleRecords, ARuntimeOfNoCandidateIsRefused) {
  expect_refused(
      testing::phases_record(),
      [](ordered_json& j) {
        j["runtimes"] = ordered_json::array({ordered_json{{"implementation", "ghost"},
                                                          {"runtime", "torch"},
                                                          {"version", "2.9"},
                                                          {"device_alias", "cuda:0"},
                                                          {"arch", "sm_90"},
                                                          {"synchronized_by", "torch"},
                                                          {"notes", ordered_json::array()}}});
      },
      "runtimes[0]: \"ghost\" is no candidate of the record");
}

TEST(ImpossibleRecords, ATotalBelowItsOwnPhasesIsRefused) {
  expect_refused(
      testing::phases_record(), [](ordered_json& j) { j["totals"][0]["samples_ns"][2] = 1; },
      "totals[0].samples_ns: a total of 1 ns, below the");
  // A total of more calls below a total of fewer, in the same processes.
  expect_refused(
      testing::phases_record(),
      [](ordered_json& j) { j["totals"][1]["samples_ns"] = {960'000'000}; },
      "totals[1].samples_ns: a total of 100 calls of 960000000 ns, below the 990000000 ns");
}

// The process exit follows the synchronize a total ends at: a long exit is no part of a total.
TEST(ImpossibleRecords, AProcessExitIsNoPartOfItsTotal) {
  Record rec = testing::phases_record();
  rec.phases.push_back({rec.totals[0].row,
                        Phase::process_exit,
                        Statistic::synchronized_wall_clock,
                        PhaseSetting::fresh_cached,
                        {2'000'000'000, 2'100'000'000, 1'900'000'000},
                        {}});
  EXPECT_EQ(refusal(json_of(rec)), "(accepted)");
}

TEST(ImpossibleRecords, NAboveTheWritersCapIsRefused) {
  expect_refused(
      testing::phases_record(), [](ordered_json& j) { j["totals"][1]["calls"] = 1'000'000'000; },
      "field totals[1].calls: 1000000000 is out of range [1, 100000]");
}

TEST(ImpossibleRecords, IterationsTheWriterNeverGivesAreRefused) {
  // max_iterations=-0 read as 0 beside a minimum of 5.
  std::string text = json_of(testing::full_record()).dump(1);
  const std::string key = "\"max_iterations\": 100";
  ASSERT_NE(text.find(key), std::string::npos);
  text.replace(text.find(key), key.size(), "\"max_iterations\": -0");
  try {
    (void)parse_record(text, "dir/altered.json");
    ADD_FAILURE() << "accepted";
  } catch (const InvalidRecord& e) {
    EXPECT_NE(std::string(e.what()).find("field config.max_iterations: 0 with min_iterations 5"),
              std::string::npos)
        << e.what();
  }
  expect_refused(
      testing::full_record(), [](ordered_json& j) { j["config"]["measure_ms"] = 1e9; },
      "field config.measure_ms: 1000000000 ms, more than the 1000000 ms a budget may be");
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
