// Rows that hold what their measurement cannot have measured (issue 36): on a host-clock row a
// kernel count, a copy, a latency beyond the wall clock or a repeated phase; on the host CPU an
// SM clock or GPU memory; more GPU memory than the device has; and a configuration whose budget
// cannot have given the row's iteration counts ("warm-up 0.500 ms" for a run of 25 ms). Each is
// refused in one line naming the row; every record this repository holds still reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/row_checks.hpp"
#include "synthetic_record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

std::string text_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The reader's one line for `text`, or "(accepted)".
std::string refusal(const std::string& text) {
  try {
    (void)parse_record(text, "dir/altered.json");
  } catch (const InvalidRecord& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    return what;
  }
  return "(accepted)";
}

// The host example's record (gpumeter-example on a machine without a GPU, as committed): real
// host-clock rows on the host CPU.
Record host_record() {
  return parse_record(text_of(fs::path(GPUMETER_TEST_DATA_DIR) / "host_example_a.json"),
                      "host_example_a.json");
}

// `good` changed by `edit`, its summaries derived again (so only the edit can be refused),
// written and read: the reader's words.
std::string after(Record good, const std::function<void(Record&)>& edit) {
  EXPECT_EQ(refusal(serialize(good)), "(accepted)") << "the unaltered record must read";
  edit(good);
  testing::derive_summaries(good);
  return refusal(serialize(good));
}

void expect_refused(const std::string& what, const std::string& words) {
  EXPECT_NE(what.find(words), std::string::npos) << what;
  EXPECT_NE(what.find("(altered record?)"), std::string::npos) << what;
}

TEST(MeasurableRows, AKernelCountOnAHostWallRowIsRefused) {
  // The narrow table grew a "kernels 7" column from such a row.
  expect_refused(after(host_record(),
                       [](Record& r) {
                         for (Sample& s : r.results[0].measurement.samples) s.n_kernels = 7;
                       }),
                 "sample 0 counts 7 kernel(s) in a row timed by host-clock, which times one "
                 "interval around each call and counts none");
}

TEST(MeasurableRows, CopyTimeOnAHostWallRowIsRefused) {
  expect_refused(
      after(host_record(),
            [](Record& r) { r.results[1].measurement.samples[3].uncounted_copy_ns = 5; }),
      "sample 3 holds 5 ns of uncounted copy in a row timed by host-clock");
}

TEST(MeasurableRows, ALatencyBeyondTheWallClockIsRefused) {
  // Three times the wall clock: a gap that one interval around the call cannot have.
  expect_refused(after(host_record(),
                       [](Record& r) {
                         for (Sample& s : r.results[0].measurement.samples)
                           s.latency_ns = 3 * s.device_busy_ns;
                       }),
                 "has a latency of");
  expect_refused(after(host_record(),
                       [](Record& r) {
                         for (Sample& s : r.results[0].measurement.samples)
                           s.latency_ns = 3 * s.device_busy_ns;
                       }),
                 "both are that one interval");
}

TEST(MeasurableRows, RetriesOnAHostWallRowAreRefused) {
  expect_refused(after(host_record(), [](Record& r) { r.results[2].measurement.retries = 2; }),
                 "it repeated 2 phase(s) in a row timed by host-clock");
}

TEST(MeasurableRows, RetriesOnACudaEventsRowAreRefused) {
  // The events fallback reads each pair back explicitly: nothing of it is lost and retried.
  expect_refused(
      after(testing::full_record(), [](Record& r) { r.results[1].measurement.retries = 1; }),
      "it repeated 1 phase(s) in a row timed by device-events");
}

TEST(MeasurableRows, AnSmClockOnTheHostCpuIsRefused) {
  expect_refused(after(host_record(),
                       [](Record& r) {
                         for (Sample& s : r.results[0].measurement.samples)
                           s.clock = ClockReading{1980, 0};
                       }),
                 "sample 0 holds an SM clock reading on the host CPU, which has none");
}

// Issue 50: the host CPU keeps no kernel records and has no device events; only its own clock
// times work there.
TEST(MeasurableRows, AKernelRecordsOrDeviceEventsRowOnTheHostCpuIsRefused) {
  expect_refused(
      after(host_record(),
            [](Record& r) { r.results[1].measurement.method = TimingMethod::kernel_records; }),
      "results[1] (\"sum-f64 / four-chains");
  expect_refused(
      after(host_record(),
            [](Record& r) { r.results[1].measurement.method = TimingMethod::kernel_records; }),
      "it was timed by kernel-records on the host CPU, which has no kernel records or device "
      "events");
  expect_refused(
      after(host_record(),
            [](Record& r) { r.results[0].measurement.method = TimingMethod::device_events; }),
      "it was timed by device-events on the host CPU");
}

TEST(MeasurableRows, GpuMemoryOnTheHostCpuIsRefused) {
  expect_refused(
      after(host_record(), [](Record& r) { r.results[0].memory.gpu_after_case_bytes = 1 << 20; }),
      "it holds GPU memory on the host CPU, which has none");
}

// A host row's peak resident memory times 1000 still read: the host device now records the
// machine's memory, and no process's peak can exceed it.
TEST(MeasurableRows, MoreHostMemoryThanTheMachineHasIsRefused) {
  const auto on_machine = [](Record& r) {
    r.device.memory_bytes = 16'000'000'000LL;
    r.results[0].memory.host_peak_rss_bytes = 50'000'000LL;
  };
  Record fine = host_record();
  on_machine(fine);
  EXPECT_EQ(refusal(serialize(fine)), "(accepted)");
  expect_refused(after(host_record(),
                       [&](Record& r) {
                         on_machine(r);
                         r.results[0].memory.host_peak_rss_bytes = 50'000'000'000LL;
                       }),
                 "it holds a peak resident memory of 50000000000 bytes on a host of "
                 "16000000000 bytes");
}

TEST(MeasurableRows, MoreGpuMemoryThanTheDeviceHasIsRefused) {
  expect_refused(
      after(testing::full_record(),
            [](Record& r) { r.results[0].memory.gpu_after_case_bytes = 1000 * 150'000'000'000LL; }),
      "it holds 150000000000000 bytes of GPU memory on a device of 150000000000 bytes");
}

// The budget in the record's configuration is the one its rows ran with: each pass derives its
// warm-up and measured counts from its estimate of one call, so a budget edited after the run
// gives other counts.
TEST(MeasurableRows, AWarmUpBudgetTheRunDidNotUseIsRefused) {
  // "warm-up 0.500 ms" for a run of 25 ms: half a millisecond warms up a 54 us call 4 times.
  expect_refused(after(host_record(), [](Record& r) { r.config.budget.warmup_ns = 500'000; }),
                 "results[0] (\"sum-f64 / one-chain (n=65536)\"): config holds a budget this row's "
                 "run cannot have used: it ran 200 warm-up iterations, where the budget and its "
                 "measured counts give from 10 to 105");
}

TEST(MeasurableRows, AMeasureBudgetTheRunDidNotUseIsRefused) {
  expect_refused(after(host_record(), [](Record& r) { r.config.budget.measure_ns = 2'000'000; }),
                 "its first pass measured 100 iterations, where its estimate of 53820 ns per "
                 "call and the budget give 18");
}

TEST(MeasurableRows, IterationBoundsTheRunDidNotUseAreRefused) {
  expect_refused(after(host_record(), [](Record& r) { r.config.budget.max_iterations = 100; }),
                 "its first pass measured 100 iterations, where its estimate of 53820 ns per "
                 "call and the budget give 50");
  expect_refused(after(host_record(),
                       [](Record& r) {
                         r.config.budget.min_iterations = 300;
                         r.config.budget.max_iterations = 400;
                       }),
                 "give 200");
}

TEST(MeasurableRows, MeasuredIterationsThatAreNotTheSamplesAreRefused) {
  expect_refused(
      after(host_record(), [](Record& r) { r.results[0].measurement.measure_iterations = 20; }),
      "it counts 20 measured iterations and holds 200 samples");
}

// The bounds of a later pass: its measured count fixes which estimates it had, and so the
// warm-up they give (each pass calibrates afresh).
TEST(MeasurableRows, IterationCountsFollowTheBudgetRule) {
  Result r;
  Measurement& m = r.measurement;
  RunConfig c;
  c.budget = {25 * kMillisecond, 100 * kMillisecond, 10, 200};  // a pass: 12.5 ms, 50 ms, [5, 100]
  m.estimate_ns = 250'000;                                      // 50 warm-up, 100 measured
  m.pass_sizes = {100, 80};  // 80 measured: an estimate of 618 to 625 us, 20 warm-up
  m.measure_iterations = 180;
  m.warmup_iterations = 70;
  EXPECT_EQ(iteration_count_problem(r, c), "");
  m.warmup_iterations = 71;
  EXPECT_NE(iteration_count_problem(r, c).find("it ran 71 warm-up iterations, where the budget "
                                               "and its measured counts give 70"),
            std::string::npos)
      << iteration_count_problem(r, c);
  // A saturated later pass allows any estimate up to 500 us: 25 to 100 warm-up iterations.
  m.pass_sizes = {100, 100};
  m.measure_iterations = 200;
  m.warmup_iterations = 75;
  EXPECT_EQ(iteration_count_problem(r, c), "");
  m.warmup_iterations = 150;
  EXPECT_EQ(iteration_count_problem(r, c), "");
  m.warmup_iterations = 151;
  EXPECT_NE(iteration_count_problem(r, c), "");
  // A program's instances follow no budget.
  c.schedule = "program";
  EXPECT_EQ(iteration_count_problem(r, c), "");
}

// Every record the repository holds (measured on the H200 and here, and the test fixtures) still
// reads: the rules refuse only what no run gives.
TEST(MeasurableRows, EveryCommittedRecordStillReads) {
  std::size_t n = 0;
  for (const char* folder : {"bench/results", "tests/data", "tests/fuzz/corpus"}) {
    for (const auto& e : fs::recursive_directory_iterator(fs::path(GPUMETER_SOURCE_DIR) / folder)) {
      if (!e.is_regular_file() || e.path().extension() != ".json") continue;
      const std::string text = text_of(e.path());
      if (text.find("\"schema\": \"gpumeter.record\"") == std::string::npos &&
          text.find("\"schema\":\"gpumeter.record\"") == std::string::npos) {
        continue;
      }
      const std::string what = refusal(text);
      if (what.find("cannot have") != std::string::npos ||
          what.find("cannot measure") != std::string::npos) {
        ADD_FAILURE() << e.path() << ": " << what;
      }
      ++n;
    }
  }
  EXPECT_GT(n, 50u);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
