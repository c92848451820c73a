#include "gpumeter/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpumeter/ceilings.hpp"
#include "gpumeter/clock_state.hpp"
#include "gpumeter/columns.hpp"
#include "gpumeter/comparison.hpp"
#include "gpumeter/duration.hpp"
#include "gpumeter/escape.hpp"
#include "gpumeter/format.hpp"
#include "gpumeter/row_status.hpp"
#include "gpumeter/summary.hpp"
#include "gpumeter/timing_method.hpp"

namespace gpumeter {
namespace {

// Counters that could not be read when the record was made (P2).
constexpr const char* kNotAvailable = "not available";
// The cell of a time or rate of a row whose null test failed.
constexpr const char* kNullTestFailedCell = "null test failed";
constexpr double kBytesPerMiB = 1024.0 * 1024.0;

bool shows_no_numbers(const Result& r) {
  const std::optional<NullTestOutcome> n = null_test_of(r);
  return n && n->failed();
}

// Above this median device_busy the table switches from us to ms, so a long op does not read
// as 123000 us; below it, kernel times stay in the unit they are usually quoted in.
constexpr double kMillisecondColumnsFromNs = 10.0 * static_cast<double>(kMillisecond);

struct TimeUnit {
  const char* name;
  double ns_per_unit;
};

TimeUnit table_unit(const std::vector<Record>& records) {
  double largest = 0;
  for (const Record& record : records) {
    for (const Result& result : record.results) {
      largest = std::max(largest, result.summary.device_busy.median_ns);
    }
  }
  if (largest >= kMillisecondColumnsFromNs) return {"ms", static_cast<double>(kMillisecond)};
  return {"us", static_cast<double>(kMicrosecond)};
}

std::string sig3(double value) {
  return format_significant(value, kTableTimeDigits);
}

// Record text made inert for markdown (escape.hpp); `place` says whether it starts a line.
using MdPlace = MarkdownPlace;
std::string md(std::string_view text, MdPlace place = MdPlace::within_line) {
  return markdown_text(text, place);
}

std::string device_text(const DeviceIdentity& device) {
  const std::string where = fmt::format("{}:{}", device.kind, device.index);
  if (device.name.empty()) return where;
  return fmt::format("{} ({})", device.name, where);
}

template <typename T>
std::string available(const std::optional<T>& value, std::string_view unit = {}) {
  if (!value) return kNotAvailable;
  return fmt::format("{}{}", *value, unit);
}

std::string available_real(const std::optional<double>& value, std::string_view unit) {
  if (!value || !std::isfinite(*value)) return kNotAvailable;
  return sig3(*value) + std::string(unit);
}

std::string state_line(const DeviceState& s) {
  std::string clocks = kNotAvailable;
  if (s.sm_clock_mhz || s.sm_clock_max_mhz) {
    clocks = fmt::format("{} of max {}", available(s.sm_clock_mhz, " MHz"),
                         available(s.sm_clock_max_mhz, " MHz"));
  }
  return fmt::format(
      "driver {}, SM clock {}, memory clock {}, temperature {}, power {}, throttle reasons {}, "
      "utilization {}, compute processes {}",
      s.driver_version ? md(*s.driver_version) : std::string(kNotAvailable), clocks,
      available(s.memory_clock_mhz, " MHz"), available(s.temperature_c, " C"),
      available_real(s.power_w, " W"),
      s.throttle_reasons ? fmt::format("{:#x}", *s.throttle_reasons) : std::string(kNotAvailable),
      available(s.utilization_pct, "%"), available(s.compute_processes));
}

std::string config_line(const RunConfig& c) {
  return fmt::format("warm-up {} ms, measure {} ms, iterations [{}, {}], L2 flush {}, schedule {}",
                     sig3(to_ms(c.budget.warmup_ns)), sig3(to_ms(c.budget.measure_ns)),
                     c.budget.min_iterations, c.budget.max_iterations,
                     !c.l2_flush               ? std::string("off")
                     : c.l2_flush_mode.empty() ? std::string("on")
                                               : "on (" + md(c.l2_flush_mode) + ")",
                     md(c.schedule));
}

std::string rate_text(CeilingKind kind, double per_s) {
  return sig3(per_s / 1e12) + (kind == CeilingKind::bytes_per_s ? " TB/s" : " TFLOP/s");
}

// How the record's ceilings were timed, and what each run of their work reached.
std::string ceilings_line(const Ceilings& c) {
  if (!c.flops_per_s && !c.bytes_per_s) return kNotMeasured;
  std::string values;
  if (c.bytes_per_s) values = "copy " + rate_text(CeilingKind::bytes_per_s, *c.bytes_per_s);
  if (c.flops_per_s) {
    values += (values.empty() ? "matrix " : ", matrix ") +
              rate_text(CeilingKind::flops_per_s, *c.flops_per_s);
  }
  if (!c.method) {
    return values +
           " (recorded before ceilings were timed like the rows: the best of 10 runs timed with "
           "CUDA event pairs, so a percent near 100 may be the difference between two clocks)";
  }
  std::string runs;
  for (const CeilingRun& run : c.runs) {
    const std::vector<double> ns(run.samples_ns.begin(), run.samples_ns.end());
    const double median_rate = run.per_call / (quantile(ns, 0.5) * 1e-9);
    runs += fmt::format("; {}: {} (fastest of {} samples; median {})", md(run.work),
                        rate_text(run.kind, ceiling_rate(run)), run.samples_ns.size(),
                        rate_text(run.kind, median_rate));
  }
  return fmt::format(
      "{}, each the fastest sample of the best of its runs, timed like the rows ({}, {}){}", values,
      to_string(*c.method), to_string(statistic_of(*c.method)), runs);
}

// ---------------------------------------------------------------------------------------------
// Markdown

// A markdown cell of a column for one result; record text made inert.
// `no_numbers`: shows_no_numbers(r), found once per row by the caller.
std::string markdown_value(const Column& c, const Record& rec, const Result& r,
                           const TimeUnit& unit, bool no_numbers) {
  if (c.kind == ColumnKind::text) return md(text_of(c, rec, r));
  // With count_copies the copies are inside device_busy: nothing is left uncounted.
  if (c.id == "uncounted_copy_us" && r.count_copies) return "counted in busy";
  const std::optional<double> v = number_of(c, r);
  if (c.kind == ColumnKind::memory) {
    return v && std::isfinite(*v) ? sig3(*v / kBytesPerMiB) : std::string(kNotAvailable);
  }
  // As NVML read it, in whole MHz (a median between two readings ends in .5).
  if (c.kind == ColumnKind::clock) {
    return v && std::isfinite(*v) ? format_shortest(*v) : std::string(kNotAvailable);
  }
  // P6: a row whose null test failed shows no time (its time may not be its work's).
  if (no_numbers && c.kind != ColumnKind::count) return kNullTestFailedCell;
  if (!v || !std::isfinite(*v)) return kNotMeasured;
  switch (c.kind) {
    case ColumnKind::time:
      return sig3(*v / unit.ns_per_unit);
    case ColumnKind::count:
      return fmt::format("{}", static_cast<long long>(*v));
    case ColumnKind::flag:
      return *v != 0 ? "yes" : "no";
    default:
      return sig3(*v) + (c.title.rfind("% ", 0) == 0 ? "%" : "");
  }
}

std::string markdown_title(const Column& c, const TimeUnit& unit) {
  std::string title(c.title);
  if (c.kind == ColumnKind::time) title += fmt::format(" ({})", unit.name);
  if (c.kind == ColumnKind::memory) title += " (MiB)";
  if (c.kind == ColumnKind::clock) title += " (MHz)";
  return title;
}

// The markdown row of one result: bracketed columns join the cell before them.
std::vector<std::string> markdown_row(const Record& rec, const Result& r, const TimeUnit& unit) {
  std::vector<std::string> cells;
  std::vector<std::string> bracket;
  auto flush_bracket = [&] {
    if (bracket.empty()) return;
    // A cell with no value takes no bracket of more values it does not have.
    if (cells.back() == kNotAvailable) bracket.clear();
    if (bracket.empty()) return;
    std::string joined;
    for (const std::string& b : bracket) joined += (joined.empty() ? "" : ", ") + b;
    cells.back() += " [" + joined + "]";
    bracket.clear();
  };
  const bool failed = shows_no_numbers(r);
  for (const Column& c : result_columns()) {
    if (c.markdown == MarkdownPlacement::hidden) continue;
    if (c.markdown == MarkdownPlacement::bracket_previous) {
      // One "null test failed" per cell, no bracket of them; a clock is not the row's time.
      if (failed && c.kind != ColumnKind::clock) continue;
      bracket.push_back(markdown_value(c, rec, r, unit, failed));
      continue;
    }
    if (c.markdown == MarkdownPlacement::annotate_previous) {
      flush_bracket();
      const std::optional<double> set = number_of(c, r);
      if (!failed && set && *set != 0) cells.back() += fmt::format(" ({})", c.title);
      continue;
    }
    flush_bracket();
    cells.push_back(markdown_value(c, rec, r, unit, failed));
  }
  flush_bracket();
  return cells;
}

std::vector<std::string> markdown_header(const TimeUnit& unit) {
  std::vector<std::string> cells;
  for (const Column& c : result_columns()) {
    if (c.markdown == MarkdownPlacement::cell) cells.push_back(markdown_title(c, unit));
  }
  return cells;
}

// A failed case's row: its identity, and "not measured" in every cell that would hold a number.
// Record text is left as it is: the caller makes it inert for its format.
std::vector<std::string> failure_cells(const Failure& f, const Record& rec, bool markdown) {
  std::vector<std::string> cells;
  for (const Column& c : result_columns()) {
    if (markdown && c.markdown != MarkdownPlacement::cell) continue;
    std::string cell = markdown ? std::string(kNotMeasured) : std::string();
    if (c.id == "case") cell = f.row.case_name;
    if (c.id == "implementation") {
      cell = f.row.implementation.empty() ? "(every implementation)" : f.row.implementation;
    }
    if (c.id == "params") cell = format_params(f.row.params);
    if (c.id == "status") cell = to_string(status_of(f));
    if (c.id == "error") cell = error_of(f);
    if (c.id == "device") cell = device_text(rec.device);
    if (c.id == "run_id") cell = rec.run_id;
    cells.push_back(std::move(cell));
  }
  return cells;
}

void append_markdown_row(std::string& out, const std::vector<std::string>& cells,
                         const std::vector<std::size_t>& widths) {
  out += '|';
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out += ' ';
    out += cells[i];
    out.append(widths[i] - cells[i].size(), ' ');
    out += " |";
  }
  out += '\n';
}

// ---------------------------------------------------------------------------------------------
// CSV

// A text cell that came from a record, made inert for CSV (escape.hpp).
std::string csv_text(const std::string& text) {
  return csv_cell(text);
}

// A number cell: times in us, twelve significant digits (every digit a record holds that means
// anything, without the last-bit noise of the ms <-> ns conversion); flags as true or false;
// other numbers in full. Empty when there is no value: a number column holds numbers or
// nothing.
std::string csv_number(const Column& c, const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return "";
  if (c.kind == ColumnKind::time) {
    return fmt::format("{:.12g}", *v / static_cast<double>(kMicrosecond));
  }
  if (c.kind == ColumnKind::memory) return fmt::format("{:.12g}", *v / kBytesPerMiB);
  if (c.kind == ColumnKind::count) return fmt::format("{}", static_cast<long long>(*v));
  if (c.kind == ColumnKind::flag) return *v != 0 ? "true" : "false";
  return fmt::format("{}", *v);
}

void append_csv_row(std::string& out, const std::vector<std::string>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out += ',';
    out += cells[i];
  }
  out += '\n';
}

std::string case_label(const RowKey& row) {
  std::string label = row.case_name;
  if (!row.params.empty()) label += " (" + format_params(row.params) + ")";
  return label;
}

}  // namespace

std::string render_markdown(const std::vector<Record>& records) {
  const TimeUnit unit = table_unit(records);
  std::vector<std::vector<std::string>> rows;
  rows.push_back(markdown_header(unit));
  std::vector<std::string> notes;
  bool any_above_ceiling = false;
  for (const Record& record : records) {
    // B4: a row's flags are judged against its own highest clock, so a row that ran held down
    // throughout (a small case after a power-capped GEMM) has none; the same rule against the
    // highest clock of the record's rows says so.
    int record_mhz = 0;
    for (const Result& result : record.results) {
      if (result.summary.clock) record_mhz = std::max(record_mhz, result.summary.clock->max_mhz);
    }
    for (const Result& result : record.results) {
      rows.push_back(markdown_row(record, result, unit));
      if (const std::optional<ClockSummary>& clock = result.summary.clock;
          clock && clock_below_reference(clock->max_mhz, record_mhz)) {
        const std::string range = clock->min_mhz == clock->max_mhz
                                      ? fmt::format("at {} MHz", clock->max_mhz)
                                      : fmt::format("{} to {} MHz", clock->min_mhz, clock->max_mhz);
        notes.push_back(fmt::format(
            "{}: every sample ran below {}% of the highest SM clock of this record's rows ({} "
            "MHz; this row {}), so its times may be the clock's",
            md(row_label(result.row), MdPlace::line_start),
            format_significant(100 * kClockFlagFraction, 2), record_mhz, range));
      }
      const Measurement& m = result.measurement;
      const Summary& s = result.summary;
      // A row whose null test failed shows no percent, so no mark to explain.
      any_above_ceiling =
          any_above_ceiling ||
          (!shows_no_numbers(result) &&
           (s.above_flops_ceiling.value_or(false) || s.above_bandwidth_ceiling.value_or(false)));
      const bool has_ceiling = (result.workload.flops && record.ceilings.flops_per_s) ||
                               (result.workload.bytes && record.ceilings.bytes_per_s);
      if (has_ceiling && !ceiling_applies(record.ceilings, m.method)) {
        notes.push_back(fmt::format(
            "{}: no percent of peak: the record's ceilings were timed by {}, this row by {}",
            md(row_label(result.row), MdPlace::line_start), to_string(*record.ceilings.method),
            to_string(m.method)));
      }
      if (!m.reason.empty()) {
        notes.push_back(fmt::format("{}: timing method {}: {}",
                                    md(row_label(result.row), MdPlace::line_start),
                                    to_string(m.method), md(m.reason)));
      }
      if (const std::optional<NullTestOutcome> n = null_test_of(result); n && n->failed()) {
        notes.push_back(fmt::format(
            "{}: FAILED its null test: {}; its times are kept in the record as evidence, not "
            "shown, and it is compared with nothing",
            md(row_label(result.row), MdPlace::line_start), md(describe(*n))));
      }
      if (const std::optional<ClockSummary>& clock = result.summary.clock;
          clock && clock->flagged > 0) {
        notes.push_back(fmt::format("{}: {}", md(row_label(result.row), MdPlace::line_start),
                                    md(describe_clock_flags(*clock, result.summary.n_samples))));
      }
      if (!m.drop_counter_live) {
        notes.push_back(fmt::format(
            "{}: the dropped-record counter was not proven live; a lost record could have gone "
            "unseen",
            md(row_label(result.row), MdPlace::line_start)));
      }
    }
    for (const Failure& f : record.failures) {
      rows.push_back(failure_cells(f, record, true));
      for (std::string& cell : rows.back()) cell = md(cell);
      notes.push_back(fmt::format("{}: not measured: {}: {}",
                                  md(row_label(f.row), MdPlace::line_start), md(f.error),
                                  md(f.message)));
    }
  }

  std::vector<std::size_t> widths(rows.front().size(), 3);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }

  std::string out;
  append_markdown_row(out, rows.front(), widths);
  out += '|';
  for (std::size_t width : widths) out += std::string(width + 2, '-') + '|';
  out += '\n';
  for (std::size_t i = 1; i < rows.size(); ++i) append_markdown_row(out, rows[i], widths);
  if (rows.size() == 1) out += "\nNo results in these records.\n";

  out += "\nDeviations:";
  bool any_deviation = false;
  for (const Record& record : records) {
    for (const std::string& deviation : record.deviations) {
      out += fmt::format("\n- {}: {}", md(record.run_id, MdPlace::line_start), md(deviation));
      any_deviation = true;
    }
  }
  out += any_deviation ? "\n" : " none recorded.\n";

  if (any_above_ceiling) {
    notes.push_back(
        "a percent marked \"above the measured ceiling\" is a row that ran faster than the "
        "fastest run of the work its ceiling times (the ceilings under Sources name it): a "
        "finding about the row or about that work, not a device beyond itself");
  }
  if (!notes.empty()) {
    out += "\nNotes:\n";
    for (const std::string& note : notes) out += "- " + note + "\n";
  }

  out += "\nSources:\n";
  for (const Record& record : records) {
    const DeviceIdentity& d = record.device;
    out += fmt::format("- record {} (created {}, gpumeter {}, commit {})\n", md(record.run_id),
                       md(record.created_utc), md(record.gpumeter_version),
                       record.project_commit.empty() ? kNotAvailable : md(record.project_commit));
    out += fmt::format("  - device {}, uuid {}, arch {}, host {}\n", md(device_text(d)),
                       d.uuid.empty() ? kNotAvailable : md(d.uuid), md(d.arch),
                       md(record.host.hostname));
    out += "  - state: " + state_line(record.device_state) + "\n";
    out += "  - config: " + config_line(record.config) + "\n";
    out += "  - ceilings: " + ceilings_line(record.ceilings) + "\n";
  }
  return out;
}

std::string render_csv(const std::vector<Record>& records) {
  std::string out;
  std::vector<std::string> header;
  for (const Column& c : result_columns()) header.emplace_back(c.id);
  append_csv_row(out, header);
  for (const Record& record : records) {
    for (const Result& result : record.results) {
      std::vector<std::string> cells;
      // P6: a row whose null test failed keeps its identity, counts and memory, no times.
      const bool failed = shows_no_numbers(result);
      for (const Column& c : result_columns()) {
        const bool hidden = failed && (c.kind == ColumnKind::time || c.kind == ColumnKind::real ||
                                       c.kind == ColumnKind::flag);
        cells.push_back(c.kind == ColumnKind::text ? csv_text(text_of(c, record, result))
                        : hidden                   ? std::string()
                                                   : csv_number(c, number_of(c, result)));
      }
      append_csv_row(out, cells);
    }
    for (const Failure& f : record.failures) {
      std::vector<std::string> cells = failure_cells(f, record, false);
      for (std::string& cell : cells) cell = csv_text(cell);
      append_csv_row(out, cells);
    }
  }
  return out;
}

std::string render_comparisons(const std::vector<Record>& records) {
  std::string s;
  std::string null_lines;
  std::string lines;
  for (const Record& record : records) {
    for (const Comparison& c : compare_results(record.results)) {
      lines +=
          "- " + md(case_label(c.baseline), MdPlace::line_start) + ": " + md(describe(c)) + "\n";
    }
    for (const NullTestOutcome& n : null_tests(record.results)) {
      null_lines +=
          "- " + md(row_label(n.row), MdPlace::line_start) + ": " + md(describe(n)) + "\n";
    }
  }
  if (!lines.empty()) {
    s += "Comparisons (each implementation against its case's first; device time: the relative "
         "difference with its " +
         format_sig2(100 * kDifferenceConfidence) +
         "% interval, passes as the units that vary; wall clock: the " +
         format_sig2(kResolutionRatio) + "x resolution):\n" + lines;
  }
  if (!null_lines.empty()) {
    s += "Null tests (the work scaled " + std::to_string(kNullTestScale) +
         "x, the time must scale alike within " + format_sig2(kNullTestTolerance * 100) + "%):\n" +
         null_lines;
  }
  return s;
}

}  // namespace gpumeter
