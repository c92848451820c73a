#include "gpumeter/detail/table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>

#include <cctype>
#include <chrono>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/throttle_reasons.hpp"
#include "synthetic_record.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

using testing::full_record;
using testing::sparse_record;

TEST(FormatSignificant, ThreeFiguresInFixedNotation) {
  EXPECT_EQ(format_significant(12.345, 3), "12.3");
  EXPECT_EQ(format_significant(12.0, 3), "12.0");  // the zero is significant
  EXPECT_EQ(format_significant(12345, 3), "12300");
  EXPECT_EQ(format_significant(0.0012345, 3), "0.00123");
  EXPECT_EQ(format_significant(9.996, 3), "10.0");  // rounding carries into a new digit
  EXPECT_EQ(format_significant(999.6, 3), "1000");
  EXPECT_EQ(format_significant(-4.567, 3), "-4.57");
  EXPECT_EQ(format_significant(1e-7, 3), "0.000000100");
  EXPECT_EQ(format_significant(0, 3), "0");
  EXPECT_EQ(format_significant(1.5, 2), "1.5");
  EXPECT_EQ(format_significant(std::nan(""), 3), "not measured");
}

TEST(FormatShortest, ValuesReadBackTheSame) {
  EXPECT_EQ(format_shortest(600), "600");
  EXPECT_EQ(format_shortest(0.5), "0.5");
  EXPECT_EQ(format_shortest(1e20), "1e+20");
}

TEST(FormatGpuUuid, AsNvidiaToolsWriteIt) {
  const unsigned char bytes[16] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                   0x08, 0x09, 0x0a, 0x0b, 0xfc, 0xfd, 0xfe, 0xff};
  EXPECT_EQ(format_gpu_uuid(bytes), "GPU-00010203-0405-0607-0809-0a0bfcfdfeff");
}

// Splits a markdown row into trimmed cells, keeping escaped pipes inside their cell.
std::vector<std::string> markdown_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += "\\|";
      ++i;
    } else if (line[i] == '|') {
      const auto b = cell.find_first_not_of(' ');
      const auto e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The table's rows, each as header -> cell.
std::vector<std::map<std::string, std::string>> markdown_rows(const std::string& text) {
  const auto lines = lines_of(text);
  const auto header = markdown_cells(lines.at(0));
  std::vector<std::map<std::string, std::string>> rows;
  for (std::size_t i = 2; i < lines.size() && !lines[i].empty() && lines[i][0] == '|'; ++i) {
    const auto cells = markdown_cells(lines[i]);
    EXPECT_EQ(cells.size(), header.size()) << lines[i];
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c) row[header[c]] = cells[c];
    rows.push_back(row);
  }
  return rows;
}

TEST(RenderMarkdown, CellsAreTranscribedFromTheRecord) {
  const std::string md = render_markdown({full_record()});
  const auto rows = markdown_rows(md);
  ASSERT_EQ(rows.size(), 2u);

  const auto& gemm = rows[0];
  EXPECT_EQ(gemm.at("case"), "gemm");
  EXPECT_EQ(gemm.at("implementation"), "cublas");
  EXPECT_EQ(gemm.at("params"), "dtype=bf16, m=4096");
  EXPECT_EQ(gemm.at("method"), "kernel-records");
  EXPECT_EQ(gemm.at("statistic"), "device_busy");
  EXPECT_EQ(gemm.at("time median [p10, p90] (us)"), "12.3 [12.0, 12.7]");
  EXPECT_EQ(gemm.at("latency median (us)"), "13.2");
  EXPECT_EQ(gemm.at("n"), "5");
  EXPECT_EQ(gemm.at("n_kernels (max)"), "3");
  EXPECT_EQ(gemm.at("gap (us)"), "0.855");
  EXPECT_EQ(gemm.at("uncounted copy (us)"), "0.505");
  EXPECT_EQ(gemm.at("TFLOP/s"), "11100");
  EXPECT_EQ(gemm.at("TB/s"), "8.15");
  // Faster than the fastest run of the ceilings' work: said in the cell, never a bare 170%.
  EXPECT_EQ(gemm.at("% peak FLOP/s"), "1130% (above the measured ceiling)");
  EXPECT_EQ(gemm.at("% peak TB/s"), "170% (above the measured ceiling)");
  EXPECT_EQ(gemm.at("retries"), "1");
  EXPECT_EQ(gemm.at("SM clock median [min, max] (MHz)"), "1980 [1800, 1980]");
  EXPECT_EQ(gemm.at("clock-flagged"), "2");
  EXPECT_EQ(gemm.at("device"), "NVIDIA H200 (cuda:0)");

  const auto& softmax = rows[1];
  EXPECT_EQ(softmax.at("case"), "softmax, fused");
  EXPECT_EQ(softmax.at("method"), "device-events");
  EXPECT_EQ(softmax.at("statistic"), "device_event");
  EXPECT_EQ(softmax.at("time median [p10, p90] (us)"), "41.0 [40.2, 42.2]");
  // Events time one interval: no gap or copy of their own was seen, so none is shown as 0.
  EXPECT_EQ(softmax.at("gap (us)"), "not measured");
  EXPECT_EQ(softmax.at("uncounted copy (us)"), "not measured");
  // No kernel count, no declared work: "not measured", never a made-up number.
  EXPECT_EQ(softmax.at("n_kernels (max)"), "not measured");
  EXPECT_EQ(softmax.at("TFLOP/s"), "not measured");
  EXPECT_EQ(softmax.at("TB/s"), "not measured");
  EXPECT_EQ(softmax.at("% peak FLOP/s"), "not measured");
  EXPECT_EQ(softmax.at("% peak TB/s"), "not measured");
  // Events read no clock: not available, never a zero.
  EXPECT_EQ(softmax.at("SM clock median [min, max] (MHz)"), "not available");
  EXPECT_EQ(softmax.at("clock-flagged"), "not measured");
}

TEST(RenderMarkdown, DeviationsNotesAndSourcesFollowTheTable) {
  const std::string md = render_markdown({full_record(), sparse_record()});
  EXPECT_NE(md.find("Deviations:\n"
                    "- 20261129T112650Z-4242-0badcafe: device lock contended: waited 3 s\n"
                    "- 20261129T112650Z-4242-0badcafe: L2 flush disabled by --no-flush\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- softmax, fused / triton (n=\"1,024\"): timing method device-events: CUPTI "
                    "unavailable: another profiler is attached\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("the dropped-record counter was not proven live"), std::string::npos);
  // B4: a flagged row's note says what flagged it, from the row's own clocks.
  EXPECT_NE(md.find("- gemm / cublas (dtype=bf16, m=4096): 2 of 5 samples clock-flagged: 1 ran "
                    "below 95% of the row's highest SM clock (1980 MHz), down to 1800 MHz; a SW "
                    "thermal slowdown was set around 1; the SW power cap was set around 1 "
                    "(routine; not a flag by itself)\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- record 20261129T112650Z-4242-0badcafe (created 2026-11-29T11:26:50Z, "
                    "gpumeter 0.1.0, commit 3f2a9c1)\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("uuid GPU-01234567-89ab-cdef-0123-456789abcdef, arch sm_90"),
            std::string::npos);
  EXPECT_NE(md.find("driver 550.54.15, SM clock 1980 MHz of max 1980 MHz"), std::string::npos);
  EXPECT_NE(md.find("power 122 W, throttle reasons 0x8000000000000004, utilization 0%"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("config: warm-up 12.5 ms, measure 50.0 ms, iterations [5, 100], L2 flush on "
                    "(write+read), "
                    "schedule ABCCBA"),
            std::string::npos)
      << md;
  // The sparse record: whatever could not be read says so.
  EXPECT_NE(md.find("- record 20261129T112651Z-4243-00000001 (created 2026-11-29T11:26:51Z, "
                    "gpumeter 0.1.0, commit not available)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("driver not available, SM clock not available, memory clock not available, "
                    "temperature not available, power not available"),
            std::string::npos)
      << md;
  EXPECT_EQ(markdown_rows(md).size(), 3u);
  EXPECT_EQ(markdown_rows(md)[2].at("device"), "cuda:0");
}

// B4: a row held down throughout has no flags of its own (its reference is its own highest
// clock); against the highest clock of its record's rows, the note says so. Within 95% of it,
// nothing is said.
TEST(RenderMarkdown, ARowHeldDownThroughoutIsNamed) {
  Record r = full_record();
  Result capped = r.results[0];
  capped.row.implementation = "after-the-big-gemm";
  for (Sample& s : capped.measurement.samples) s.clock = ClockReading{1665, kReasonSwPowerCap};
  Result step = r.results[0];
  step.row.implementation = "a-step-down";
  for (Sample& s : step.measurement.samples) s.clock = ClockReading{1965, kReasonSwPowerCap};
  r.results = {r.results[0], capped, step};
  testing::derive_summaries(r);
  EXPECT_EQ(r.results[1].summary.clock->flagged, 0u);
  const std::string md = render_markdown({r});
  EXPECT_NE(md.find("- gemm / after-the-big-gemm (dtype=bf16, m=4096): every sample ran below 95% "
                    "of the highest SM clock of this record's rows (1980 MHz; this row at 1665 "
                    "MHz), so its times may be the clock's\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("a-step-down (dtype=bf16, m=4096):"), std::string::npos) << md;
  const auto rows = markdown_rows(md);
  EXPECT_EQ(rows[1].at("SM clock median [min, max] (MHz)"), "1665 [1665, 1665]");
  EXPECT_EQ(rows[1].at("clock-flagged"), "0");
  // The comparison of the two rows says it too.
  EXPECT_NE(render_comparisons({r}).find("the two ran at different SM clocks (median 1665 MHz "
                                         "against 1980 MHz)"),
            std::string::npos);
}

// A row within its ceiling reads a bare percent; one above it is marked, and a note says what
// that means. Sources say how the ceilings were timed and what each run of their work reached.
TEST(RenderMarkdown, APercentAboveItsCeilingIsMarkedAndTheCeilingsAreSourced) {
  Record r = full_record();
  // 1 GFLOP and 4.8 MB per call in a median of 12.345 us: 8.2% and 8.1% of the ceilings.
  r.results[0].workload = Workload{1e9, 4.8e6};
  testing::derive_summaries(r);
  std::string md = render_markdown({r});
  auto rows = markdown_rows(md);
  EXPECT_EQ(rows.at(0).at("% peak FLOP/s"), "8.19%");
  EXPECT_EQ(rows.at(0).at("% peak TB/s"), "8.10%");
  EXPECT_EQ(md.find("above the measured ceiling"), std::string::npos) << md;
  EXPECT_NE(md.find("  - ceilings: copy 4.80 TB/s, matrix 989 TFLOP/s, each the fastest sample of "
                    "the best of its runs, timed like the rows (kernel-records, device_busy); "
                    "cudaMemcpyAsync device to device, 572 MiB: 4.76 TB/s (fastest of 3 samples; "
                    "median 4.74 TB/s); float4 grid-stride copy kernel, 572 MiB: 4.80 TB/s "
                    "(fastest of 4 samples; median 4.78 TB/s); cublasGemmEx bf16: 989 TFLOP/s "
                    "(fastest of 3 samples; median 979 TFLOP/s)\n"),
            std::string::npos)
      << md;

  // 1 TB/s more than the ceiling's fastest copy: marked, and the note explains it once.
  r.results[0].workload = Workload{std::nullopt, 4.8e12 * 12.345e-6 * 1.03};
  testing::derive_summaries(r);
  md = render_markdown({r});
  rows = markdown_rows(md);
  EXPECT_EQ(rows.at(0).at("% peak TB/s"), "103% (above the measured ceiling)");
  EXPECT_EQ(rows.at(0).at("% peak FLOP/s"), "not measured");
  EXPECT_NE(md.find("- a percent marked \"above the measured ceiling\" is a row that ran faster "
                    "than the fastest run of the work its ceiling times"),
            std::string::npos)
      << md;

  // A version 3 record's ceilings: kept, flagged alike, and said to be event-timed.
  r.ceilings = Ceilings{989e12, 4.8e12, std::nullopt, {}};
  testing::derive_summaries(r);
  md = render_markdown({r});
  EXPECT_EQ(markdown_rows(md).at(0).at("% peak TB/s"), "103% (above the measured ceiling)");
  EXPECT_NE(md.find("  - ceilings: copy 4.80 TB/s, matrix 989 TFLOP/s (recorded before ceilings "
                    "were timed like the rows: the best of 10 runs timed with CUDA event pairs"),
            std::string::npos)
      << md;
  EXPECT_NE(render_markdown({sparse_record()}).find("  - ceilings: not measured\n"),
            std::string::npos);
}

// Ceilings timed another way than a row give it no percent, and the notes say why.
TEST(RenderMarkdown, CeilingsTimedAnotherWayGiveNoPercentAndSayWhy) {
  Record r = full_record();
  r.ceilings.method = TimingMethod::device_events;
  testing::derive_summaries(r);
  const std::string md = render_markdown({r});
  EXPECT_EQ(markdown_rows(md).at(0).at("% peak TB/s"), "not measured");
  EXPECT_NE(md.find("- gemm / cublas (dtype=bf16, m=4096): no percent of peak: the record's "
                    "ceilings were timed by device-events, this row by kernel-records\n"),
            std::string::npos)
      << md;
}

TEST(RenderMarkdown, NoDeviationsSaysSo) {
  Record r = full_record();
  r.deviations.clear();
  EXPECT_NE(render_markdown({r}).find("Deviations: none recorded."), std::string::npos);
}

TEST(RenderMarkdown, LongTimesSwitchTheWholeTableToMilliseconds) {
  Record r = full_record();
  r.results[1].summary.device_busy = {20'000'000, 19'500'000, 21'000'000};
  const auto rows = markdown_rows(render_markdown({r}));
  EXPECT_EQ(rows[1].at("time median [p10, p90] (ms)"), "20.0 [19.5, 21.0]");
  EXPECT_EQ(rows[0].at("time median [p10, p90] (ms)"), "0.0123 [0.0120, 0.0127]");
}

TEST(RenderMarkdown, PipesAndNewlinesCannotBreakTheTable) {
  Record r = full_record();
  r.results[0].row.implementation = "a|b";
  r.results[0].row.case_name = "two\nlines";
  const auto rows = markdown_rows(render_markdown({r}));
  EXPECT_EQ(rows[0].at("implementation"), "a\\|b");
  EXPECT_EQ(rows[0].at("case"), "two\\x0alines");  // the newline shown, never obeyed
}

TEST(RenderMarkdown, NoResults) {
  Record r = full_record();
  r.results.clear();
  const std::string md = render_markdown({r});
  EXPECT_TRUE(markdown_rows(md).empty());
  EXPECT_NE(md.find("No results in these records."), std::string::npos);
}

// RFC 4180 fields of one line.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text) {
  const auto lines = lines_of(text);
  const auto header = csv_fields(lines.at(0));
  std::vector<std::map<std::string, std::string>> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto fields = csv_fields(lines[i]);
    EXPECT_EQ(fields.size(), header.size()) << lines[i];
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < header.size() && c < fields.size(); ++c) row[header[c]] = fields[c];
    rows.push_back(row);
  }
  return rows;
}

TEST(RenderCsv, HeaderAndCells) {
  const std::string csv = render_csv({full_record()});
  EXPECT_EQ(lines_of(csv).at(0),
            "case,implementation,params,status,error,timing_method,statistic,time_median_us,"
            "time_p10_us,time_p90_us,latency_median_us,latency_p10_us,"
            "latency_p90_us,n_samples,max_n_kernels,gap_us,uncounted_copy_us,tflops,tbs,"
            "pct_of_peak_flops,above_flops_ceiling,pct_of_peak_bandwidth,"
            "above_bandwidth_ceiling,retries,null_test,median_sm_clock_mhz,"
            "min_sm_clock_mhz,max_sm_clock_mhz,clock_flagged_samples,"
            "clock_below_reference_samples,sw_power_cap_samples,hw_slowdown_samples,"
            "sw_thermal_samples,hw_thermal_samples,hw_power_brake_samples,gpu_workload_mib,"
            "gpu_context_floor_mib,host_peak_rss_mib,device,run_id");
  const auto rows = csv_rows(csv);
  ASSERT_EQ(rows.size(), 2u);
  const auto& gemm = rows[0];
  // P6, B4, P7: the null test's ratio, the clock, the memory in MiB.
  EXPECT_EQ(gemm.at("null_test"), "4.0x for 4x work: pass");
  // B4: the clock's range and the counts behind the flag, beside it.
  EXPECT_EQ(gemm.at("median_sm_clock_mhz"), "1980");
  EXPECT_EQ(gemm.at("min_sm_clock_mhz"), "1800");
  EXPECT_EQ(gemm.at("max_sm_clock_mhz"), "1980");
  EXPECT_EQ(gemm.at("clock_flagged_samples"), "2");
  EXPECT_EQ(gemm.at("clock_below_reference_samples"), "1");
  EXPECT_EQ(gemm.at("sw_power_cap_samples"), "1");
  EXPECT_EQ(gemm.at("hw_slowdown_samples"), "0");
  EXPECT_EQ(gemm.at("sw_thermal_samples"), "1");
  EXPECT_EQ(gemm.at("hw_thermal_samples"), "0");
  EXPECT_EQ(gemm.at("hw_power_brake_samples"), "0");
  EXPECT_EQ(gemm.at("gpu_workload_mib"), "1024");
  EXPECT_EQ(gemm.at("gpu_context_floor_mib"), "512");
  EXPECT_EQ(gemm.at("host_peak_rss_mib"), "117.73828125");
  // The fallback row has none of them: "not run", and empty numbers (unknown, not zero).
  EXPECT_EQ(rows[1].at("null_test"), "not run");
  for (const char* clock : {"median_sm_clock_mhz", "min_sm_clock_mhz", "clock_flagged_samples",
                            "sw_power_cap_samples", "hw_thermal_samples"}) {
    EXPECT_EQ(rows[1].at(clock), "") << clock;
  }
  EXPECT_EQ(rows[1].at("gpu_workload_mib"), "");
  EXPECT_EQ(gemm.at("case"), "gemm");
  EXPECT_EQ(gemm.at("params"), "dtype=bf16, m=4096");
  EXPECT_EQ(gemm.at("time_median_us"), "12.345");
  EXPECT_EQ(gemm.at("time_p10_us"), "12.04");
  EXPECT_EQ(gemm.at("latency_p90_us"), "13.7");
  EXPECT_EQ(gemm.at("n_samples"), "5");
  EXPECT_EQ(gemm.at("max_n_kernels"), "3");
  EXPECT_EQ(gemm.at("gap_us"), "0.855");
  EXPECT_EQ(gemm.at("tflops"), "11133.167555447548");  // full precision for machines
  EXPECT_EQ(gemm.at("pct_of_peak_flops"), "1125.6994494891353");
  EXPECT_EQ(gemm.at("above_flops_ceiling"), "true");
  EXPECT_EQ(gemm.at("above_bandwidth_ceiling"), "true");
  EXPECT_EQ(gemm.at("retries"), "1");
  EXPECT_EQ(gemm.at("device"), "NVIDIA H200 (cuda:0)");
  EXPECT_EQ(gemm.at("run_id"), "20261129T112650Z-4242-0badcafe");

  const auto& softmax = rows[1];
  EXPECT_EQ(softmax.at("case"), "softmax, fused");
  EXPECT_EQ(softmax.at("params"), "n=\"1,024\"");  // one value, not two params
  // A number column holds numbers or nothing: no value is an empty cell.
  EXPECT_EQ(softmax.at("max_n_kernels"), "");
  EXPECT_EQ(softmax.at("tflops"), "");
  EXPECT_EQ(softmax.at("tbs"), "");
  EXPECT_EQ(softmax.at("pct_of_peak_bandwidth"), "");
  EXPECT_EQ(softmax.at("above_bandwidth_ceiling"), "");  // no percent, no flag
}

// A row whose null test failed shows no percent, so no mark either.
TEST(RenderTables, ARowWhoseNullTestFailedHasNoMark) {
  Record r = full_record();
  r.results[0].measurement.null_test = NullTestSamples{4, {12'000, 12'100}};  // 1x for 4x
  testing::derive_summaries(r);
  const std::string md = render_markdown({r});
  EXPECT_EQ(markdown_rows(md).at(0).at("% peak TB/s"), "null test failed");
  EXPECT_EQ(md.find("above the measured ceiling"), std::string::npos) << md;
  EXPECT_EQ(csv_rows(render_csv({r})).at(0).at("above_bandwidth_ceiling"), "");
}

TEST(RenderCsv, QuotesCommasQuotesAndNewlines) {
  Record r = full_record();
  r.results[0].row.implementation = "say \"hi\"";
  const std::string csv = render_csv({r});
  const auto lines = lines_of(csv);
  EXPECT_EQ(
      lines.at(1).rfind("gemm,\"say \"\"hi\"\"\",\"dtype=bf16, m=4096\",ok,,kernel-records,", 0),
      0u)
      << lines.at(1);
  EXPECT_EQ(lines.at(2).rfind(
                "\"softmax, fused\",triton,\"n=\"\"1,024\"\"\",ok,,device-events,device_event,", 0),
            0u)
      << lines.at(2);
}

// Tables read records: the table of a record read back from disk is the table of the record.
TEST(RenderCsv, SameTableAfterARoundTrip) {
  const Record r = full_record();
  const Record back = parse_record(serialize(r), "x.json");
  EXPECT_EQ(render_csv({back}), render_csv({r}));
  EXPECT_EQ(render_markdown({back}), render_markdown({r}));
}

TEST(RenderTables, AFailedCaseReadsNotMeasuredAndSaysWhy) {
  Record r = testing::full_record();
  r.failures.push_back({{"attention", {{"seq", "4096"}}, "flash"},
                        "OffThreadLaunch",
                        "1 kernel(s) carry no iteration id"});
  const std::string md = render_markdown({r});
  EXPECT_NE(md.find("| attention"), std::string::npos) << md;
  EXPECT_NE(md.find("attention / flash (seq=4096): not measured: OffThreadLaunch: 1 kernel(s) "
                    "carry no iteration id"),
            std::string::npos)
      << md;
  const std::string csv = render_csv({r});
  const std::string row = csv.substr(csv.find("attention,"));
  EXPECT_EQ(row.rfind("attention,flash,seq=4096,not measured,OffThreadLaunch: 1 kernel(s) carry no "
                      "iteration id,,,",
                      0),
            0u)
      << row;
  // As many cells as the header: one more comma-separated field than commas.
  const std::string header = csv.substr(0, csv.find('\n'));
  const std::string line = row.substr(0, row.find('\n'));
  EXPECT_EQ(std::count(header.begin(), header.end(), ','),
            std::count(line.begin(), line.end(), ','));
  EXPECT_NE(line.find(r.run_id), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Record text is evidence, not markup (B7): whatever text a record holds, every output shows it
// and obeys none of it; and whatever numbers the reader accepts, every output renders whole.

// A markdown cell as a CommonMark renderer shows it: a backslash before ASCII punctuation
// stands for the punctuation.
std::string shown_markdown(const std::string& cell) {
  std::string out;
  for (std::size_t i = 0; i < cell.size(); ++i) {
    if (cell[i] == '\\' && i + 1 < cell.size() &&
        std::ispunct(static_cast<unsigned char>(cell[i + 1]))) {
      ++i;
    }
    out += cell[i];
  }
  return out;
}

Record hostile() {
  return parse_record(serialize(testing::hostile_text_record()), "hostile.json");
}

TEST(RenderTables, ZeroNanosecondRowsRenderWholeInEveryFormat) {
  // Two rows of 0 ns printed the markdown table, then failed with "internal error:
  // bootstrap_speedup_interval: non-positive times" (exit 3); as CSV they exited 0.
  for (const TimingMethod method : {TimingMethod::kernel_records, TimingMethod::host_clock}) {
    const Record r = parse_record(serialize(testing::zero_sample_record(method)), "zero.json");
    std::string md;
    std::string comparisons;
    std::string csv;
    ASSERT_NO_THROW(md = render_markdown({r}));
    ASSERT_NO_THROW(comparisons = render_comparisons({r}));
    ASSERT_NO_THROW(csv = render_csv({r}));
    const auto rows = markdown_rows(md);
    ASSERT_EQ(rows.size(), 2u);
    // The time column titled by the rows' one statistic: a wall clock is never device_busy.
    const std::string title = method == TimingMethod::kernel_records
                                  ? "device_busy median [p10, p90] (us)"
                                  : "wall clock median [p10, p90] (us)";
    EXPECT_EQ(rows[1].at(title), "0 [0, 0]");
    EXPECT_EQ(rows[1].at("TFLOP/s"), "not measured");  // no rate from a zero time
    EXPECT_NE(comparisons.find("- gemm (dtype=bf16, m=4096): other and cublas not compared: "),
              std::string::npos)
        << comparisons;
    EXPECT_EQ(csv_rows(csv).size(), 2u);
    EXPECT_EQ(csv_rows(csv)[1].at("time_median_us"), "0");
  }
}

TEST(RenderMarkdown, RecordTextAddsNoLineHeadingTableOrLink) {
  // A reason or a deviation holding "\n# heading" or "\n| a | b |" added a heading or a table.
  const std::string md = render_markdown({hostile()}) + "\n" + render_comparisons({hostile()});
  std::size_t table_lines = 0;
  for (const std::string& line : lines_of(md)) {
    EXPECT_NE(line.rfind('#', 0), 0u) << "a heading: " << line;
    if (line.rfind('|', 0) == 0) ++table_lines;
  }
  EXPECT_EQ(table_lines, 5u);  // header, separator, two results, one failure
  EXPECT_NE(md.find("\n- 20261129T112653Z-4245-00000000: \\x0a# heading\\x0a\\| a \\| b \\|\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find(": timing method device-events: CUPTI unavailable\\x0a# heading\\x0a\\| a \\| "
                    "b \\|\\x0a\\|---\\|---\\|\\x0a\\| 1 \\| 2 \\|\n"),
            std::string::npos)
      << md;
  // Record text that begins a list item opens no heading or list of its own.
  EXPECT_NE(md.find("\n- \\# case\\\\\\|x / "), std::string::npos) << md;
  EXPECT_NE(md.find("\n- \\+failed\\x0d\\x0a# heading / -impl (p=a\\|b): not measured: "
                    "OffThreadLaunch: message\\x0a## heading\n"),
            std::string::npos)
      << md;
  // Nor an ordered list ("1." or "2)" at the start of a list item's text).
  Record numbered = hostile();
  numbered.failures[0].row.case_name = "12) numbered";
  EXPECT_NE(render_markdown({numbered}).find("\n- 12\\) numbered / "), std::string::npos)
      << render_markdown({numbered});
  // Nor HTML, nor a link or an image.
  EXPECT_NE(md.find(", RLO \\u202e\\<img src=x>\\[link](http://x)\n"), std::string::npos) << md;
}

TEST(RenderTables, NoControlFromARecordReachesATerminal) {
  // ESC and NUL from a record reached the terminal raw.
  const Record r = hostile();
  for (const std::string& out : {render_markdown({r}) + render_comparisons({r}), render_csv({r})}) {
    for (const char c : out) {
      const auto u = static_cast<unsigned char>(c);
      EXPECT_TRUE(c == '\n' || (u >= 0x20 && u != 0x7f)) << "raw control 0x" << std::hex << +u;
    }
    EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos);      // C1 CSI
    EXPECT_EQ(out.find("\xe2\x80\xae"), std::string::npos);  // right-to-left override
  }
  const std::string md = render_markdown({r});
  EXPECT_NE(md.find("ESC \\x1b\\[2J\\x1b\\[31mred\\x00NUL\n"), std::string::npos) << md;
  EXPECT_NE(md.find("C1 \\u009b31m, RLO \\u202e"), std::string::npos) << md;
  EXPECT_NE(md.find("host -host\\x1b]0;title\\x07\n"), std::string::npos) << md;

  EXPECT_EQ(inert_text(std::string("a\0b\x1b[0m\x7f", 8)), "a\\x00b\\x1b[0m\\x7f");
  EXPECT_EQ(inert_text("\xc2\x80\xc2\x9f\xc2\xa0"), "\\u0080\\u009f\xc2\xa0");  // U+00A0 is text
  EXPECT_EQ(inert_text("\xe2\x80\xaa\xe2\x81\xa9\xe2\x80\x94"), "\\u202a\\u2069\xe2\x80\x94");
  EXPECT_EQ(inert_text("\xc2"), "\xc2");  // a cut sequence is not a control
}

// Zero-width and bidirectional marks, separators and the byte order mark passed raw into
// markdown and CSV: two names that look alike could not be told apart, and a mark could reorder
// the text beside it. Every output shows them escaped, by the one rule.
TEST(InertText, ZeroWidthAndBidiMarksAndSeparatorsAreShownEscaped) {
  const std::string marks =
      "a\u200b|\u200c|\u200d|\u200e|\u200f|\u061c|\u2028|\u2029|\ufeff|\u00ad|\u2060|\u2064|"
      "\u206a|\u206f|\u180e|\ufff9|\ufffb";
  const std::string shown =
      "a\\u200b|\\u200c|\\u200d|\\u200e|\\u200f|\\u061c|\\u2028|\\u2029|\\ufeff|\\u00ad|"
      "\\u2060|\\u2064|\\u206a|\\u206f|\\u180e|\\ufff9|\\ufffb";
  EXPECT_EQ(inert_text(marks), shown);
  EXPECT_EQ(csv_cell("x\u200by"), "x\\u200by");
  EXPECT_EQ(markdown_text("x\u200fy"), "x\\u200fy");
  EXPECT_EQ(html_text("x\ufeffy"), "x\\ufeffy");
  // Neighbours that are text stay text: U+200A (hair space), U+2030 (per mille), U+FEFE.
  EXPECT_EQ(inert_text("\u200a\u2030\ufefe\u00ac"), "\u200a\u2030\ufefe\u00ac");
}

// A CSV cell could begin with a fullwidth or small form of a formula lead, which spreadsheets
// fold to the ASCII one.
TEST(CsvCell, FullwidthAndSmallFormulaLeadsArePrefixed) {
  for (const std::string lead : {"\uff1d", "\uff0b", "\uff0d", "\uff20", "\ufe66", "\ufe62",
                                 "\ufe63", "\ufe6b", "=", "+", "-", "@"}) {
    EXPECT_EQ(csv_cell(lead + "1+1"), "'" + lead + "1+1") << lead;
  }
  EXPECT_EQ(csv_cell("a\uff1d1"), "a\uff1d1");  // not leading: no formula
}

TEST(RenderCsv, NoTextCellIsASpreadsheetFormula) {
  // Cells starting with = + - @ were left as they were.
  const std::string csv = render_csv({hostile()});
  const auto rows = csv_rows(csv);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].at("implementation"), "'=HYPERLINK(\"http://x\")");
  EXPECT_EQ(rows[1].at("params"), "'+k=@SUM(A1), n=\"v, z=1\"");
  EXPECT_EQ(rows[2].at("case"), "'+failed\\x0d\\x0a# heading");
  EXPECT_EQ(rows[2].at("implementation"), "'-impl");
  EXPECT_EQ(rows[0].at("device"), "'@NVIDIA (cuda:0)");
  for (const auto& row : rows) {
    for (const Column& c : result_columns()) {
      const std::string cell = row.at(std::string(c.id));
      if (c.kind == ColumnKind::text && !cell.empty()) {
        EXPECT_EQ(std::string_view("=+-@").find(cell.front()), std::string_view::npos) << cell;
      }
    }
  }
}

TEST(RenderTables, AParamValueWithCommaAndEqualsReadsAsOneParam) {
  // A param value "v, z=1" read as two params, k=v and z=1.
  Record one = full_record();
  one.results[0].row.params = {{"k", "v, z=1"}};
  Record two = full_record();
  two.results[0].row.params = {{"k", "v"}, {"z", "1"}};
  const auto md_one = markdown_rows(render_markdown({one}));
  const auto md_two = markdown_rows(render_markdown({two}));
  EXPECT_EQ(md_one[0].at("params"), "k=\"v, z=1\"");
  EXPECT_EQ(md_two[0].at("params"), "k=v, z=1");
  EXPECT_EQ(csv_rows(render_csv({one}))[0].at("params"), "k=\"v, z=1\"");
  EXPECT_EQ(csv_rows(render_csv({two}))[0].at("params"), "k=v, z=1");
}

TEST(RenderMarkdown, ABackslashBeforeAPipeIsKept) {
  // A case named a\|b showed as a|b: the backslash was lost.
  Record r = full_record();
  r.results[0].row.case_name = "a\\|b";
  const std::string md = render_markdown({r});
  const auto lines = lines_of(md);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[2].rfind("| a\\\\\\|b ", 0), 0u) << lines[2];
  const auto rows = markdown_rows(md);
  EXPECT_EQ(shown_markdown(rows.at(0).at("case")), "a\\|b");
  EXPECT_EQ(markdown_cells(lines[2]).size(), markdown_cells(lines[0]).size());
  EXPECT_EQ(csv_rows(render_csv({r}))[0].at("case"), "a\\|b");
}

TEST(MarkdownText, EveryMarkupCharacterIsShownNotObeyed) {
  // `**bold**` and backticks from a record passed through `report` as emphasis and code.
  EXPECT_EQ(markdown_text("**bold**"), "\\*\\*bold\\*\\*");
  EXPECT_EQ(markdown_text("`rm -rf`"), "\\`rm -rf\\`");
  EXPECT_EQ(markdown_text("<script>alert(1)</script>"), "\\<script>alert(1)\\</script>");
  EXPECT_EQ(markdown_text("&lt;b&gt; &#60;"), "\\&lt;b\\&gt; \\&#60;");
  EXPECT_EQ(markdown_text("~~gone~~ $x^2$"), "\\~\\~gone\\~\\~ \\$x^2\\$");
  EXPECT_EQ(markdown_text("[x](http://y) ![i](z)"), "\\[x](http://y) !\\[i](z)");
  EXPECT_EQ(markdown_text("a|b\\c"), "a\\|b\\\\c");
  // An underscore between letters or digits emphasizes nothing and keeps its look; anywhere
  // else it is escaped.
  EXPECT_EQ(markdown_text("decode_rmsnorm_v2"), "decode_rmsnorm_v2");
  EXPECT_EQ(markdown_text("_em_ __init__ a_ _a x_ y"),
            "\\_em\\_ \\_\\_init\\_\\_ a\\_ \\_a x\\_ y");
  // Block markers only where a line starts.
  EXPECT_EQ(markdown_text("- x # y > z 1. w"), "- x # y > z 1. w");
  EXPECT_EQ(markdown_text("- x", MarkdownPlace::line_start), "\\- x");
  EXPECT_EQ(markdown_text("  # x", MarkdownPlace::line_start), "  \\# x");
  EXPECT_EQ(markdown_text("> q", MarkdownPlace::line_start), "\\> q");
  EXPECT_EQ(markdown_text("12) x", MarkdownPlace::line_start), "12\\) x");
  EXPECT_EQ(markdown_text("12 x. y", MarkdownPlace::line_start), "12 x. y");
  // Controls as inert_text() shows them.
  EXPECT_EQ(markdown_text("a\nb\x1b[0m"), "a\\x0ab\\x1b\\[0m");
}

TEST(MarkdownText, TakesTimeLinearInTheText) {
  // Each '.' after a line's leading digits, and each character after its leading spaces, scanned
  // all that came before: a name of 1 MB of digits then 1 MB of dots took about 10^12 steps. The
  // bound is a hundred times what a linear pass takes under the sanitizers on a loaded machine.
  const std::string digits_then_dots = std::string(1 << 20, '7') + std::string(1 << 20, '.');
  const std::string spaces_then_text = std::string(1 << 20, ' ') + std::string(1 << 20, 'x');
  const auto start = std::chrono::steady_clock::now();
  const std::string a = markdown_text(digits_then_dots, MarkdownPlace::line_start);
  const std::string b = markdown_text(spaces_then_text, MarkdownPlace::line_start);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);
  EXPECT_EQ(a.size(), digits_then_dots.size() + 1);  // the first '.' alone opens a list item
  EXPECT_EQ(a.substr((1 << 20) - 1, 4), "7\\..");
  EXPECT_EQ(b, spaces_then_text);
}

TEST(RenderMarkdown, EmphasisCodeAndHtmlInANameAreShownNotObeyed) {
  Record r = full_record();
  r.results[0].row.case_name = "**bold** `code` <script>x</script>";
  r.results[0].row.implementation = "~~old~~ &amp; _new_";
  const std::string md = render_markdown({r});
  const auto rows = markdown_rows(md);
  EXPECT_EQ(rows.at(0).at("case"), "\\*\\*bold\\*\\* \\`code\\` \\<script>x\\</script>");
  EXPECT_EQ(rows.at(0).at("implementation"), "\\~\\~old\\~\\~ \\&amp; \\_new\\_");
  EXPECT_EQ(shown_markdown(rows.at(0).at("case")), r.results[0].row.case_name);
  for (const char* raw : {"**", "`c", "<s", "&a", "~~"}) {
    EXPECT_EQ(md.find(std::string(" ") + raw), std::string::npos) << raw << " in " << md;
  }
}

TEST(RenderCsv, EveryRowSaysWhatBecameOfItAndWhy) {
  // Skip, verification failure, exception, crash and timeout rows were empty apart from case,
  // params and device.
  Record r = full_record();
  Result held = r.results[0];
  held.row.implementation = "ignores-its-scale";
  held.measurement.null_test = NullTestSamples{4, {12'345, 12'345, 12'345}};  // 1.0x for 4x
  summarize_result(held, r.ceilings);  // its outcome decided, as a run's finish decides it
  r.results.push_back(held);
  const auto failure = [](const std::string& c, const std::string& error,
                          const std::string& message) {
    return Failure{{c, {{"n", "1"}}, ""}, error, message};
  };
  r.failures = {failure("a", "Skipped", "needs bf16"),
                failure("b", "VerificationFailed", "output 3 is 2.5, expected 2"),
                failure("c", "UserCodeError", "the benchmark's setup threw std::bad_alloc"),
                failure("d", "Crashed", "the case's process was killed by signal 11"),
                failure("e", "Timeout", "the case ran longer than --timeout 60 s"),
                failure("f", "RecordsLost", "=SUM(A1) records lost")};
  const auto rows = csv_rows(render_csv({r}));
  ASSERT_EQ(rows.size(), 9u);
  const std::vector<std::pair<std::string, std::string>> want{
      {"ok", ""},
      {"ok", ""},
      {"failed",
       "null test: 4x the work took 1.0x the time: FAIL (the harness may not be timing "
       "the work)"},
      {"skipped", "Skipped: needs bf16"},
      {"failed", "VerificationFailed: output 3 is 2.5, expected 2"},
      {"failed", "UserCodeError: the benchmark's setup threw std::bad_alloc"},
      {"crashed", "Crashed: the case's process was killed by signal 11"},
      {"timed out", "Timeout: the case ran longer than --timeout 60 s"},
      {"not measured", "RecordsLost: =SUM(A1) records lost"}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(rows[i].at("status"), want[i].first) << i;
    EXPECT_EQ(rows[i].at("error"), want[i].second) << i;
  }
  // The failed null test's times stay out of the CSV, as they stay out of the table.
  EXPECT_EQ(rows[2].at("time_median_us"), "");
}

// A program's kernels outside every range: a C++ kernel's name of hundreds of characters is cut
// in the table (every row would be that wide), never in the record.
TEST(ProgramTable, ALongKernelNameIsCutInTheTableOnly) {
  Record r = testing::program_record();
  const std::string name = "void at::native::elementwise_kernel<" + std::string(300, 'T') + ">()";
  r.program->outside[0].kernel = name;
  const std::string table = render_program({r});
  EXPECT_EQ(table.find(name), std::string::npos);
  EXPECT_NE(table.find("| void at::native::elementwise_kernel\\<TTTT"), std::string::npos);
  EXPECT_NE(table.find("TTT... |"), std::string::npos);
  for (std::size_t at = 0, end = 0; at < table.size(); at = end + 1) {
    end = std::min(table.find('\n', at), table.size());
    if (table[at] == '|') {
      EXPECT_LE(end - at, 200u) << table.substr(at, end - at);
    }
  }
  EXPECT_EQ(r.program->outside[0].kernel, name);
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
