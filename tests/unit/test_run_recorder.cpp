// RunRecorder: the header once, each case appended to the run's journal, the record written once;
// and the journal read back as strictly as a record, into a record marked partial.
#include "gpumeter/run_recorder.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/errors.hpp"
#include "record_json.hpp"
#include "synthetic_record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

namespace fs = std::filesystem;
using testing::fallback_result;
using testing::full_record;
using testing::full_result;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpumeter-recorder-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

Record header(const std::string& run_id = "20261201T000000Z-1-00000001") {
  Record h = full_record(run_id);
  h.results.clear();
  h.comparisons.clear();
  return h;
}

std::string note_of(const Record& r) {
  return partial_record_note(r);
}

// A journal read back holds every case added, with the summaries the complete record has, and
// says it is partial and of how many planned cases.
TEST(RunRecorder, JournalReadsAsThePartialRecordOfTheCasesAdded) {
  TempDir dir;
  RunRecorder rec(dir.path(), 5);
  rec.begin(header());
  rec.add({full_result(), fallback_result()});
  rec.add({}, {Failure{RowKey{"gemm", {{"m", "8192"}}, ""}, "Skipped", "not here"}});
  rec.checkpoint();
  const fs::path journal = rec.journal_path();
  ASSERT_TRUE(fs::exists(journal));
  EXPECT_EQ(journal.filename().string(), "gpumeter-20261201T000000Z-1-00000001.partial.jsonl");

  const Record back = read_record(journal);
  ASSERT_EQ(back.results.size(), 2u);
  ASSERT_EQ(back.failures.size(), 1u);
  EXPECT_EQ(back.failures[0].message, "not here");
  EXPECT_EQ(back.results[0].summary.device_busy.median_ns,
            rec.record().results[0].summary.device_busy.median_ns);
  EXPECT_EQ(back.results[0].summary.pct_of_peak_flops,
            rec.record().results[0].summary.pct_of_peak_flops);
  EXPECT_EQ(back.device.name, "NVIDIA H200");
  EXPECT_EQ(note_of(back),
            "partial record: read from the run's journal, which holds 2 of 5 cases: the run was "
            "killed, or was still running, when it was read");
}

// Passes no number can bound (a host call preempted far beyond its work, or these: 10^15 ns
// against 1 ns with a 1 us step) make a comparison unresolved, never a reason to lose the run:
// the journal reads back to its rows, and the record is written and reads back.
TEST(RunRecorder, PassesNoNumberCanBoundLoseNoRecord) {
  TempDir dir;
  RunRecorder rec(dir.path(), 1);
  Record h = header();
  h.config.budget = {12'500'000, 50'000'000, 2, 2};
  rec.begin(h);
  Result slow = full_result();
  const Nanos most = 1'000'000'000'000'000;
  slow.measurement.samples = {testing::sample(most, most, 1, 0), testing::sample(most, most, 1, 0)};
  slow.measurement.pass_sizes = {1, 1};
  slow.measurement.timestamp_tick_ns = 1000;
  slow.measurement.null_test.reset();
  slow.measurement.warmup_iterations = 2;
  slow.measurement.measure_iterations = 2;
  slow.measurement.ledger = testing::ledger_of(slow.measurement);
  Result fast = slow;
  fast.row.implementation = "fast";
  fast.measurement.samples = {testing::sample(1, 1, 1, 0), testing::sample(1, 1, 1, 0)};
  fast.measurement.ledger = testing::ledger_of(fast.measurement);
  rec.add({slow, fast});
  rec.checkpoint();
  const Record journal = read_record(rec.journal_path());
  ASSERT_EQ(journal.results.size(), 2u);
  ASSERT_EQ(journal.comparisons.size(), 1u);
  EXPECT_EQ(journal.comparisons[0].refusal.rfind("unresolved: the passes of cublas and fast", 0),
            0u)
      << journal.comparisons[0].refusal;
  const fs::path path = rec.finish();
  const Record back = read_record(path);
  EXPECT_EQ(back.results.size(), 2u);
  EXPECT_EQ(back.comparisons[0].refusal, journal.comparisons[0].refusal);
}

// Issue 51: where a record is refused (a comparison no number can state: the reader would refuse
// the record), the error names the case and the journal that keeps the rows measured, so neither
// is lost with the record. The comparison rule records such passes unresolved (above), so
// finish() meets none from rows it was given: the refusal it throws is refused_record's, read
// here with the journal of a run begun.
TEST(RunRecorder, ARefusedRecordNamesTheCaseAndTheJournal) {
  TempDir dir;
  RunRecorder rec(dir.path(), 1);
  rec.begin(header());
  const std::string journal = rec.journal_path().string();
  Comparison c;
  c.baseline = {"sum-f64", {{"n", "10001"}}, "reference"};
  c.candidate = {"sum-f64", {{"n", "10001"}}, "four-chains"};
  RelativeDifference overflowed;
  overflowed.estimate = 0.3;
  overflowed.low = -0.986;
  overflowed.high = std::numeric_limits<double>::infinity();
  overflowed.smallest_detectable = 1.0;
  c.difference = overflowed;
  const std::string why = record_json::refused_record({c}, journal);
  EXPECT_EQ(why.rfind("refusing to write a record that would not read back: ", 0), 0u) << why;
  EXPECT_NE(why.find("case \"sum-f64\""), std::string::npos) << why;
  EXPECT_NE(why.find("\"reference\" and \"four-chains\""), std::string::npos) << why;
  EXPECT_NE(why.find("the rows measured are kept in the journal " + journal), std::string::npos)
      << why;
  EXPECT_TRUE(fs::exists(journal));
  // An interval a number states: nothing refused.
  c.difference->high = 1.25;
  EXPECT_EQ(record_json::refused_record({c}, journal), "");
}

// finish(): the record on disk is what the recorder holds (serialized once), and the journal
// is gone.
TEST(RunRecorder, FinishWritesTheRecordOnceAndRemovesTheJournal) {
  TempDir dir;
  RunRecorder rec(dir.path(), 2);
  rec.begin(header());
  rec.add({full_result()});
  rec.add({fallback_result()});
  rec.add_deviation("a deviation the cases found");
  rec.add_deviation("a deviation the cases found");  // kept once
  const fs::path path = rec.finish();
  EXPECT_FALSE(fs::exists(rec.journal_path()));
  EXPECT_EQ(path.filename().string(), "gpumeter-20261201T000000Z-1-00000001.json");
  const Record back = read_record(path);
  EXPECT_TRUE(note_of(back).empty());
  EXPECT_EQ(serialize(back), serialize(rec.record()));
  EXPECT_EQ(slurp(path), serialize(rec.record()));
  EXPECT_EQ(std::count(back.deviations.begin(), back.deviations.end(),
                       std::string("a deviation the cases found")),
            1);
  EXPECT_GT(rec.bytes_written(), slurp(path).size());  // the journal's lines, then the record
  // The record was written once: a second finish is an error, not a second file.
  EXPECT_THROW(rec.finish(), Error);
}

// Appended, never rewritten: every case of the same shape adds the same number of bytes, so the
// journal of N cases is linear in N (the old checkpoint rewrote the whole record per case).
TEST(RunRecorder, JournalBytesAreLinearInTheCases) {
  TempDir dir;
  RunRecorder rec(dir.path(), 1000);
  rec.begin(header());
  const std::uint64_t after_header = rec.bytes_written();
  std::vector<std::uint64_t> per_case;
  std::uint64_t last = after_header;
  for (int i = 0; i < 200; ++i) {
    rec.add({full_result()});
    rec.checkpoint();
    per_case.push_back(rec.bytes_written() - last);
    last = rec.bytes_written();
  }
  for (const std::uint64_t b : per_case) EXPECT_EQ(b, per_case.front());
  EXPECT_EQ(fs::file_size(rec.journal_path()), rec.bytes_written());
  EXPECT_EQ(rec.bytes_written(), after_header + 200 * per_case.front());
}

// The checkpoint hands each case to the kernel at once (a crash keeps it); it syncs at most once
// per interval.
// The same row at another size: another case (a record holds each row once).
Result other_size(Result r) {
  r.row.params["m"] = "8192";
  return r;
}

TEST(RunRecorder, CheckpointWritesEveryCaseButSyncsAtMostOncePerInterval) {
  TempDir dir;
  RunRecorder rec(dir.path(), 3, std::chrono::hours(1));
  rec.begin(header());
  rec.add({full_result()});
  EXPECT_FALSE(rec.checkpoint());  // begin() synced a moment ago
  EXPECT_EQ(read_record(rec.journal_path()).results.size(), 1u);
  rec.add({other_size(full_result())});
  EXPECT_TRUE(rec.checkpoint(true));
  EXPECT_EQ(read_record(rec.journal_path()).results.size(), 2u);
}

// A kill in the middle of a line leaves it without its newline: the line is left out, and said.
TEST(RunRecorder, LastLineCutShortIsLeftOutAndSaid) {
  TempDir dir;
  RunRecorder rec(dir.path(), 3);
  rec.begin(header());
  rec.add({full_result()});
  rec.add({fallback_result()});
  rec.checkpoint(true);
  const std::string text = slurp(rec.journal_path());
  const fs::path cut = dir.path() / "cut.partial.jsonl";
  spit(cut, text.substr(0, text.size() - 40));
  const Record back = read_record(cut);
  EXPECT_EQ(back.results.size(), 1u);
  EXPECT_NE(note_of(back).find("which holds 1 of 3 cases"), std::string::npos) << note_of(back);
  EXPECT_NE(note_of(back).find("bytes cut short as the process ended, is left out"),
            std::string::npos)
      << note_of(back);
}

std::string read_problem(const fs::path& p) {
  try {
    read_record(p);
  } catch (const InvalidRecord& e) {
    return e.what();
  }
  return "(no InvalidRecord thrown)";
}

// Every complete line is read as strictly as a record: an altered one refuses the whole file.
TEST(RunRecorder, JournalIsReadAsStrictlyAsARecord) {
  TempDir dir;
  RunRecorder rec(dir.path(), 3);
  rec.begin(header());
  rec.add({full_result()});
  rec.checkpoint(true);
  const std::string text = slurp(rec.journal_path());
  const fs::path bad = dir.path() / "bad.partial.jsonl";

  std::string altered = text;
  const std::string median = "\"device_busy_ms\":{\"median\":";
  const std::size_t at = altered.find(median);
  ASSERT_NE(at, std::string::npos);
  altered.replace(at, median.size(), median + "9");
  spit(bad, altered);
  EXPECT_NE(read_problem(bad).find("does not describe the raw samples"), std::string::npos)
      << read_problem(bad);

  spit(bad, text + "{\"surprise\":1}\n");
  EXPECT_NE(read_problem(bad).find("journal line 3: unknown kind of line \"surprise\""),
            std::string::npos)
      << read_problem(bad);

  spit(bad, text + "\n");
  EXPECT_NE(read_problem(bad).find("journal line 3 is empty"), std::string::npos)
      << read_problem(bad);

  spit(bad, text.substr(0, text.find('\n')));  // the first line cut short
  EXPECT_NE(read_problem(bad).find("without its first line"), std::string::npos)
      << read_problem(bad);

  std::string more = text;
  for (int i = 0; i < 3; ++i) more += text.substr(text.find('\n') + 1);
  spit(bad, more);  // four cases of a run that planned three
  EXPECT_NE(read_problem(bad).find("more than the 3 its run planned"), std::string::npos)
      << read_problem(bad);

  // One case line repeated: its row would be listed twice and counted twice by a comparison's
  // mean ("holds 2 of 3 cases" where one case ran).
  spit(bad, text + text.substr(text.find('\n') + 1));
  EXPECT_NE(read_problem(bad).find("journal line 3.case.results[0]: the row "), std::string::npos)
      << read_problem(bad);
  EXPECT_NE(read_problem(bad).find("appears twice (also at journal line 2.case.results[0]"),
            std::string::npos)
      << read_problem(bad);

  std::string version = text;
  version.replace(version.find("\"journal_version\":1"), 19, "\"journal_version\":2");
  spit(bad, version);
  EXPECT_NE(read_problem(bad).find("unsupported journal_version 2"), std::string::npos)
      << read_problem(bad);
}

// The ceilings of a sweep of isolated cases change as its cases report theirs: each row is
// checked under the ceilings in force when it was written, and every row of the record read is
// summarized with the last, as the complete record's are.
TEST(RunRecorder, CeilingsChangedMidRunSummarizeEveryRowWithTheLast) {
  TempDir dir;
  RunRecorder rec(dir.path(), 2);
  Record h = header();
  h.ceilings = Ceilings{};
  rec.begin(h);
  rec.add({full_result()});
  EXPECT_FALSE(rec.record().results[0].summary.pct_of_peak_flops.has_value());
  rec.set_ceilings(full_record().ceilings);
  rec.add({other_size(full_result())});
  rec.checkpoint(true);
  const Record back = read_record(rec.journal_path());
  ASSERT_EQ(back.results.size(), 2u);
  ASSERT_TRUE(back.results[0].summary.pct_of_peak_flops.has_value());
  EXPECT_EQ(back.results[0].summary.pct_of_peak_flops, back.results[1].summary.pct_of_peak_flops);
  const fs::path path = rec.finish();
  const Record done = read_record(path);
  EXPECT_EQ(done.results[0].summary.pct_of_peak_flops, back.results[0].summary.pct_of_peak_flops);
}

// An interruption: the partial record of the cases finished, named for the run, the journal gone.
TEST(RunRecorder, WritePartialReplacesTheJournalWithAPartialRecord) {
  TempDir dir;
  RunRecorder rec(dir.path(), 4);
  rec.begin(header());
  rec.add({full_result()});
  const fs::path path =
      rec.write_partial(std::string(kPartialRecordMark) + "interrupted by SIGINT after 1 of 4");
  EXPECT_EQ(path.filename().string(), "gpumeter-20261201T000000Z-1-00000001.partial.json");
  EXPECT_FALSE(fs::exists(rec.journal_path()));
  const Record back = read_record(path);
  EXPECT_EQ(back.results.size(), 1u);
  EXPECT_EQ(note_of(back), "partial record: interrupted by SIGINT after 1 of 4");
}

// How tests/data/journal_v1.partial.jsonl was made (GPUMETER_WRITE_JOURNAL=FILE): three cases
// of four, a deviation, and a fourth case's line cut short as a kill would leave it.
TEST(RunRecorder, WritesTheCommittedJournal) {
  const char* out = std::getenv("GPUMETER_WRITE_JOURNAL");
  if (out == nullptr) GTEST_SKIP() << "set GPUMETER_WRITE_JOURNAL=FILE to write it";
  TempDir dir;
  RunRecorder rec(dir.path(), 4);
  rec.begin(header("20261201T000000Z-1-0000cafe"));
  rec.add({full_result()});
  rec.add({fallback_result()});
  rec.add_deviation("a deviation the cases found");
  rec.add({}, {Failure{RowKey{"gemm", {{"m", "8192"}}, ""}, "Skipped", "not on this machine"}});
  rec.add({full_result()});
  rec.checkpoint(true);
  const std::string text = slurp(rec.journal_path());
  spit(out, text.substr(0, text.size() - 100));
}

// A journal committed with this version of its format reads, with the numbers it was written
// with (a change to the format that loses them fails here).
TEST(RunRecorder, CommittedJournalReads) {
  const Record r = read_record(fs::path(GPUMETER_TEST_DATA_DIR) / "journal_v1.partial.jsonl");
  ASSERT_EQ(r.results.size(), 2u);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.results[0].row.case_name, "gemm");
  EXPECT_EQ(r.results[0].summary.device_busy.median_ns, 12'345);
  EXPECT_EQ(r.results[1].summary.device_busy.median_ns, 41'000);
  EXPECT_EQ(r.failures[0].error, "Skipped");
  EXPECT_EQ(r.comparisons.size(), 0u);
  EXPECT_NE(std::find(r.deviations.begin(), r.deviations.end(), "a deviation the cases found"),
            r.deviations.end());
  EXPECT_NE(note_of(r).find("which holds 3 of 4 cases"), std::string::npos) << note_of(r);
  EXPECT_NE(note_of(r).find("cut short"), std::string::npos) << note_of(r);
}

// A journal's rows are read as strictly as a record's: a row whose iteration counts its header's
// budget cannot give, or a row that is both a result and a failure, is refused (the journal read
// back was accepted and the record written from it refused; found by the fuzzer).
TEST(RunRecorder, AJournalsRowsAreCheckedAsARecordsAre) {
  const std::string text = slurp(fs::path(GPUMETER_TEST_DATA_DIR) / "journal_v1.partial.jsonl");
  TempDir dir;
  const fs::path journal = dir.path() / "j.partial.jsonl";
  const auto refusal = [&](const std::string& lines) {
    spit(journal, lines);
    return read_problem(journal);
  };
  ASSERT_EQ(refusal(text), "(no InvalidRecord thrown)");
  const std::string budget = "\"warmup_ms\":12.5";
  ASSERT_NE(text.find(budget), std::string::npos);
  std::string changed = text;
  changed.replace(changed.find(budget), budget.size(), "\"warmup_ms\":69.5");
  EXPECT_NE(refusal(changed).find("config holds a budget this row's run cannot have used"),
            std::string::npos)
      << refusal(changed);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
