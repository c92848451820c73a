// The narrow table benchmark programs print (TableLayout::narrow): the columns a reader decides
// with, each left out when no row has a value, lines of at most 120 characters for ordinary
// names; the wide table, CSV and the record keep every column.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/table.hpp"
#include "synthetic_record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

using testing::derive_summaries;
using testing::full_record;
using testing::full_result;

constexpr std::size_t kWidth = 120;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The cells of a markdown row, trimmed (no escaped pipes in these tests' names).
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] != '|') {
      cell += line[i];
      continue;
    }
    const auto b = cell.find_first_not_of(' ');
    const auto e = cell.find_last_not_of(' ');
    cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    cell.clear();
  }
  return cells;
}

std::vector<std::string> header_of(const std::string& md) {
  return cells_of(lines_of(md).at(0));
}

// The table's rows, each as header -> cell.
std::vector<std::map<std::string, std::string>> rows_of(const std::string& md) {
  const std::vector<std::string> lines = lines_of(md);
  const std::vector<std::string> header = cells_of(lines.at(0));
  std::vector<std::map<std::string, std::string>> rows;
  for (std::size_t i = 2; i < lines.size() && !lines[i].empty() && lines[i][0] == '|'; ++i) {
    const std::vector<std::string> cells = cells_of(lines[i]);
    EXPECT_EQ(cells.size(), header.size()) << lines[i];
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c) row[header[c]] = cells[c];
    rows.push_back(row);
  }
  return rows;
}

std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0;
  for (const std::string& line : lines_of(text)) widest = std::max(widest, line.size());
  return widest;
}

// The records of the H200 run at ba39f1e, as committed: the main job and time-my-kernel.
std::vector<Record> h200_records() {
  const std::filesystem::path dir =
      std::filesystem::path(GPUMETER_SOURCE_DIR) / "bench/results/2026-12-01-h200-ba39f1e/records";
  std::vector<Record> records;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    records.push_back(read_record(entry.path()));
  }
  EXPECT_EQ(records.size(), 2u);
  return records;
}

Record time_my_kernel_record() {
  for (const Record& r : h200_records()) {
    if (!r.results.empty() && r.results.front().row.case_name == "scale") return r;
  }
  ADD_FAILURE() << "no time-my-kernel record (case 'scale') among the H200 records";
  return {};
}

TEST(TerminalTable, TimeMyKernelOnTheH200FitsIn120Columns) {
  const Record record = time_my_kernel_record();
  const std::string narrow = render_markdown({record}, TableLayout::narrow);
  // Every line the renderer wrote, the table's and the notes' and sources', fits a terminal of
  // 120 columns (the wide table's rows are 350 characters).
  for (const std::string& line : lines_of(narrow)) {
    EXPECT_LE(line.size(), kWidth) << line;
  }
  EXPECT_GT(widest_line(render_markdown({record}, TableLayout::wide)), 300u);

  // The columns a reader decides with, and no other: the run has one method, one device, no
  // null test and no flag.
  EXPECT_EQ(header_of(narrow),
            (std::vector<std::string>{"case", "implementation", "params",
                                      "device_busy median [p10, p90] (us)", "latency (us)",
                                      "kernels", "TB/s (% peak)"}));
  const auto rows = rows_of(narrow);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("implementation"), "naive");
  EXPECT_EQ(rows[0].at("device_busy median [p10, p90] (us)"), "54.8 [53.8, 55.1]");
  EXPECT_EQ(rows[0].at("TB/s (% peak)"), "2.45 (57.3%)");
  EXPECT_EQ(rows[1].at("implementation"), "float4");
  EXPECT_EQ(rows[1].at("device_busy median [p10, p90] (us)"), "31.4 [31.1, 32.6]");
  EXPECT_EQ(rows[1].at("latency (us)"), "31.4");
  EXPECT_EQ(rows[1].at("kernels"), "1");
  EXPECT_EQ(rows[1].at("TB/s (% peak)"), "4.27 (99.9%)");
  // The ceilings' runs, one line each, and the method the table's title does not name.
  EXPECT_NE(narrow.find("\n    - cudaMemcpyAsync device to device, 512 MiB: 4.27 TB/s (fastest of "
                        "200 samples; median 4.25 TB/s)\n"),
            std::string::npos)
      << narrow;
  EXPECT_NE(narrow.find("\n  - timing: kernel-records (device_busy)\n"), std::string::npos);
  EXPECT_NE(narrow.find("\nWith --wide: every column"), std::string::npos);

  // And the comparisons printed under it (their heading was 183 characters on the H200).
  const std::string comparisons = render_comparisons({record}, TableLayout::narrow);
  EXPECT_NE(comparisons.find("float4 is 1.7"), std::string::npos) << comparisons;
  for (const std::string& line : lines_of(comparisons)) {
    EXPECT_LE(line.size(), kWidth) << line;
  }
  EXPECT_GT(widest_line(render_comparisons({record}, TableLayout::wide)), kWidth);
}

TEST(TerminalTable, EveryH200RecordKeepsItsRowsAndTheWideTableEveryColumn) {
  for (const Record& record : h200_records()) {
    const std::string narrow = render_markdown({record}, TableLayout::narrow);
    const std::string wide = render_markdown({record}, TableLayout::wide);
    EXPECT_EQ(rows_of(narrow).size(), record.results.size() + record.failures.size());
    std::size_t cells = 0;
    for (const Column& c : result_columns()) cells += c.markdown == MarkdownPlacement::cell;
    EXPECT_EQ(header_of(wide).size(), cells);
    EXPECT_LT(header_of(narrow).size(), cells);
  }
}

// A host-clock row: no kernels, no latency of its own, no declared work, no ceiling.
Result host_row(const std::string& implementation, Nanos base) {
  Result r;
  r.row = {"sum", {{"n", "65536"}}, implementation};
  Measurement& m = r.measurement;
  m.method = TimingMethod::host_clock;
  for (Nanos i = 0; i < 5; ++i) {
    const Nanos t = base + 100 * i;
    m.samples.push_back(testing::sample(t, t, std::nullopt, 0));
  }
  m.pass_sizes = {5};
  m.timestamp_tick_ns = 1;
  m.warmup_iterations = 3;
  m.measure_iterations = 5;
  m.estimate_ns = base;
  m.drop_counter_live = true;
  return r;
}

Record host_record() {
  Record rec = full_record();
  rec.device = {};
  rec.device.kind = "host";
  rec.device.name = "host CPU";
  rec.ceilings = {};
  rec.results = {host_row("one-chain", 32'000), host_row("four-chains", 8'000)};
  derive_summaries(rec);
  return rec;
}

TEST(TerminalTable, ColumnsWithNoValueInAnyRowAreLeftOut) {
  const std::string narrow = render_markdown({host_record()}, TableLayout::narrow);
  // No kernel count, no latency apart from the wall clock, no throughput, no null test, no
  // flag: none of their columns. The title names the statistic the rows hold.
  EXPECT_EQ(header_of(narrow), (std::vector<std::string>{"case", "implementation", "params",
                                                         "wall clock median [p10, p90] (us)"}));
  EXPECT_EQ(rows_of(narrow).at(1).at("wall clock median [p10, p90] (us)"), "8.20 [8.04, 8.36]");
  EXPECT_NE(narrow.find("\n  - timing: host-clock (synchronized_wall_clock)\n"), std::string::npos);
}

TEST(TerminalTable, AHostRowsGapAndUncountedCopyReadNotMeasured) {
  // The host clock times one interval: it sees no gap between kernels and no copy. The record
  // holds 0 for both; no table shows that 0 as a measurement.
  const Record rec = host_record();
  const auto wide = rows_of(render_markdown({rec}, TableLayout::wide));
  EXPECT_EQ(wide.at(0).at("gap (us)"), "not measured");
  EXPECT_EQ(wide.at(0).at("uncounted copy (us)"), "not measured");
  EXPECT_EQ(wide.at(0).at("n_kernels (max)"), "not measured");
  const std::vector<std::string> csv = lines_of(render_csv({rec}));
  std::vector<std::string> names;
  std::vector<std::string> values;
  std::istringstream h(csv.at(0));
  std::istringstream v(csv.at(1));
  for (std::string x; std::getline(h, x, ',');) names.push_back(x);
  for (std::string x; std::getline(v, x, ',');) values.push_back(x);
  ASSERT_EQ(names.size(), values.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "gap_us" || names[i] == "uncounted_copy_us") {
      EXPECT_EQ(values[i], "") << names[i];
    }
  }
  // A CUPTI row's gap is measured, and shown.
  const auto cupti = rows_of(render_markdown({full_record()}, TableLayout::wide));
  EXPECT_EQ(cupti.at(0).at("gap (us)"), "0.855");
}

// B11: an uncounted copy longer than the row's device_busy may be the work (an answer copied in):
// flagged as such, and explained under the table.
TEST(TerminalTable, ACopyLongerThanTheWorkIsFlagged) {
  Record rec = full_record();
  for (Sample& s : rec.results[0].measurement.samples) s.uncounted_copy_ns = 40'000;
  derive_summaries(rec);
  const std::string narrow = render_markdown({rec}, TableLayout::narrow);
  EXPECT_EQ(rows_of(narrow).at(0).at("flags"), "clock 2/5, 1 retry, copy > busy");
  // The legend is wrapped to the screen: read it as one line.
  const std::string flat = std::regex_replace(narrow, std::regex("\\s+"), " ");
  EXPECT_NE(flat.find("\"copy > busy\": the call's uncounted copies"), std::string::npos) << narrow;
}

// The table words the flags and the null-test outcome the result holds (decided once, where its
// record was finished, and checked by the reader); it decides neither from the row's numbers.
TEST(TerminalTable, FlagsAndTheNullTestAreReadFromTheResultNeverDecided) {
  Record rec = full_record();
  rec.results[1].flags = RowFlags{};          // its numbers give "drops unproven"
  rec.results[1].flags.call_overhead = true;  // they do not give this
  NullTestOutcome failed = *rec.results[0].null_test_outcome;
  failed.verdict->pass = false;
  rec.results[0].null_test_outcome = failed;  // its samples pass
  const auto rows = rows_of(render_markdown({rec}, TableLayout::narrow));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].at("flags"), "call overhead");
  EXPECT_EQ(rows[0].at("null test"), "FAIL (4.0x)");
  EXPECT_EQ(rows[0].at("latency (us)"), "not shown");
  const std::string csv = render_csv({rec});
  EXPECT_NE(csv.find("null test: 4x the work took 4.0x the time: FAIL"), std::string::npos) << csv;
}

TEST(TerminalTable, MixedMethodsGetAMethodColumnAndThroughputNamesItsUnit) {
  // full_record: a CUPTI GEMM above both ceilings, clock-flagged, retried, with a null test;
  // and a CUDA-events row with no kernel count and no declared work.
  const std::string narrow = render_markdown({full_record()}, TableLayout::narrow);
  EXPECT_EQ(header_of(narrow),
            (std::vector<std::string>{"case", "implementation", "params", "method",
                                      "time median [p10, p90] (us)", "latency (us)", "kernels",
                                      "throughput (% peak)", "null test", "flags"}));
  const auto rows = rows_of(narrow);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("method"), "kernel-records");
  EXPECT_EQ(rows[0].at("time median [p10, p90] (us)"), "12.3 [12.0, 12.7]");
  EXPECT_EQ(rows[0].at("kernels"), "3");
  // Above a ceiling is said in the cell, never a bare percent.
  EXPECT_EQ(rows[0].at("throughput (% peak)"),
            "11100 TFLOP/s (1130%, above ceiling), 8.15 TB/s (170%, above ceiling)");
  EXPECT_EQ(rows[0].at("null test"), "pass (4.0x)");
  EXPECT_EQ(rows[0].at("flags"), "clock 2/5, 1 retry, uncounted copy");
  EXPECT_EQ(rows[1].at("method"), "device-events");
  EXPECT_EQ(rows[1].at("kernels"), "not measured");
  EXPECT_EQ(rows[1].at("throughput (% peak)"), "not measured");
  EXPECT_EQ(rows[1].at("null test"), "not run");
  EXPECT_EQ(rows[1].at("flags"), "drops unproven");
  // Each flag is explained once, and the mark of a percent above its ceiling too.
  EXPECT_NE(narrow.find("- flags: \"clock N/M\""), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("marked \"above ceiling\""), std::string::npos) << narrow;
}

TEST(TerminalTable, ANullTestThatFailedShowsNoTimeAndAFailedCaseNoNumber) {
  Record rec = full_record();
  rec.results.resize(1);
  rec.results[0].measurement.null_test = NullTestSamples{4, {12'000, 12'100, 12'300}};
  rec.failures.push_back(Failure{RowKey{"copy", {{"n", "1"}}, ""}, "Crashed", "signal 11"});
  derive_summaries(rec);
  const auto rows = rows_of(render_markdown({rec}, TableLayout::narrow));
  ASSERT_EQ(rows.size(), 2u);
  // Its time cell and its null test say why; its other numbers are not shown.
  EXPECT_EQ(rows[0].at("device_busy median [p10, p90] (us)"), "null test failed");
  EXPECT_EQ(rows[0].at("latency (us)"), "not shown");
  EXPECT_EQ(rows[0].at("throughput (% peak)"), "not shown");
  EXPECT_EQ(rows[0].at("null test"), "FAIL (0.98x)");
  EXPECT_EQ(rows[1].at("case"), "copy");
  EXPECT_EQ(rows[1].at("implementation"), "(every implementation)");
  EXPECT_EQ(rows[1].at("params"), "n=1");
  EXPECT_EQ(rows[1].at("device_busy median [p10, p90] (us)"), "not measured");
  EXPECT_EQ(rows[1].at("flags"), "");
}

TEST(TerminalTable, RecordsOfTwoDevicesGetADeviceColumn) {
  Record other = full_record("20261129T112651Z-4243-0badcafe");
  other.device.name = "NVIDIA B200";
  const auto header = header_of(render_markdown({full_record(), other}, TableLayout::narrow));
  EXPECT_EQ(header.back(), "device");
  const auto one = header_of(render_markdown({full_record()}, TableLayout::narrow));
  EXPECT_EQ(std::count(one.begin(), one.end(), "device"), 0);
}

TEST(TerminalTable, LongNotesAreBrokenWhereNoBlockCanOpen) {
  Record rec = full_record();
  // A message whose words, at a line's start, would open a list, a heading or an ordered list.
  std::string message = "first";
  for (int i = 0; i < 40; ++i) message += " - # 1. 2) word";
  rec.failures.push_back(Failure{RowKey{"copy", {}, "x"}, "UserCodeError", message});
  const std::string narrow = render_markdown({rec}, TableLayout::narrow);
  bool continued = false;
  for (const std::string& line : lines_of(narrow)) {
    if (line.empty() || line[0] == '|') continue;
    const std::size_t text = line.find_first_not_of(' ');
    if (text == 0 || line.compare(text, 2, "- ") == 0) continue;  // a heading or an item
    continued = true;
    // A continuation line: its first word opens nothing.
    EXPECT_EQ(std::string_view("#>-+*`~|").find(line[text]), std::string_view::npos) << line;
    EXPECT_FALSE(line.compare(text, 2, "1.") == 0 || line.compare(text, 2, "2)") == 0) << line;
  }
  EXPECT_TRUE(continued);
  // The message is kept whole: its words joined again read as it was (md escapes nothing in it).
  std::string joined;
  for (const std::string& line : lines_of(narrow)) {
    if (line.empty() || line[0] == '|') continue;
    joined += " " + line.substr(line.find_first_not_of(' '));
  }
  EXPECT_NE(joined.find(message), std::string::npos);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
