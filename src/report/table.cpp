#include "gpumeter/table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
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
// The narrow table's other cells of such a row: its time cell and null test say why once.
constexpr const char* kNotShownCell = "not shown";
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

// How the record's ceilings were timed (`head`), and what each run of their work reached.
struct CeilingsText {
  std::string head;
  std::vector<std::string> runs;
};

CeilingsText ceilings_text(const Ceilings& c) {
  if (!c.flops_per_s && !c.bytes_per_s) return {kNotMeasured, {}};
  std::string values;
  if (c.bytes_per_s) values = "copy " + rate_text(CeilingKind::bytes_per_s, *c.bytes_per_s);
  if (c.flops_per_s) {
    values += (values.empty() ? "matrix " : ", matrix ") +
              rate_text(CeilingKind::flops_per_s, *c.flops_per_s);
  }
  if (!c.method) {
    return {values +
                " (recorded before ceilings were timed like the rows: the best of 10 runs timed "
                "with CUDA event pairs, so a percent near 100 may be the difference between two "
                "clocks)",
            {}};
  }
  CeilingsText out;
  out.head = fmt::format(
      "{}, each the fastest sample of the best of its runs, timed like the rows ({}, {})", values,
      to_string(*c.method), to_string(statistic_of(*c.method)));
  for (const CeilingRun& run : c.runs) {
    const std::vector<double> ns(run.samples_ns.begin(), run.samples_ns.end());
    const double median_rate = run.per_call / (quantile(ns, 0.5) * 1e-9);
    // The narrow table starts a list item with it.
    out.runs.push_back(fmt::format("{}: {} (fastest of {} samples; median {})",
                                   md(run.work, MdPlace::line_start),
                                   rate_text(run.kind, ceiling_rate(run)), run.samples_ns.size(),
                                   rate_text(run.kind, median_rate)));
  }
  return out;
}

std::string ceilings_line(const Ceilings& c) {
  const CeilingsText t = ceilings_text(c);
  std::string line = t.head;
  for (const std::string& run : t.runs) line += "; " + run;
  return line;
}

// ---------------------------------------------------------------------------------------------
// Markdown

// A markdown cell of a column for one result; record text made inert.
// `no_numbers`: shows_no_numbers(r), found once per row by the caller.
std::string markdown_value(const Column& c, const Record& rec, const Result& r,
                           const TimeUnit& unit, bool no_numbers) {
  if (c.kind == ColumnKind::text) return md(text_of(c, rec, r));
  // With count_copies the copies are inside device_busy: nothing is left uncounted.
  if (c.id == "uncounted_copy_us" && r.count_copies && sees_kernels(r.measurement.method)) {
    return "counted in busy";
  }
  const std::optional<double> v = shown_number_of(c, r);
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

// ---------------------------------------------------------------------------------------------
// The narrow table

// The widest line a narrow table aims at: a terminal of 120 columns shows every line whole
// when names are of ordinary length.
constexpr std::size_t kNarrowWidth = 120;
// A narrow cell's mark of a percent above its ceiling (the wide table's is a column title).
constexpr const char* kNarrowAboveMark = "above ceiling";
// Under a narrow table: where the columns it leaves out are.
constexpr std::string_view kNarrowWideHint =
    "With --wide: every column (samples, gap, uncounted copy, retries, clocks, memory, device); "
    "the "
    "record and CSV hold all.";

// The highest SM clock any row of the record ran at (B4's reference), 0 when none was read.
int highest_clock(const Record& record) {
  int mhz = 0;
  for (const Result& result : record.results) {
    if (result.summary.clock) mhz = std::max(mhz, result.summary.clock->max_mhz);
  }
  return mhz;
}

const Column& column(std::string_view id) {
  for (const Column& c : result_columns()) {
    if (c.id == id) return c;
  }
  throw std::logic_error("no column " + std::string(id));
}

// The statistic a time column holds, as its title names it.
std::string statistic_title(Statistic s) {
  return s == Statistic::synchronized_wall_clock ? std::string("wall clock")
                                                 : std::string(to_string(s));
}

// A rate with its percent of the ceiling, "4.27 (99.9%)", marked when above the ceiling.
std::string rate_cell(const Result& r, const Column& rate, const Column& pct, const Column& above,
                      const TimeUnit& unit) {
  if (shows_no_numbers(r)) return kNotShownCell;
  const std::optional<double> v = number_of(rate, r);
  if (!v || !std::isfinite(*v)) return kNotMeasured;
  std::string cell = markdown_value(rate, Record{}, r, unit, false);
  const std::optional<double> p = number_of(pct, r);
  if (p && std::isfinite(*p)) {
    const std::optional<double> marked = number_of(above, r);
    cell += " (" + markdown_value(pct, Record{}, r, unit, false) +
            (marked && *marked != 0 ? std::string(", ") + kNarrowAboveMark : std::string()) + ")";
  }
  return cell;
}

std::string null_test_cell(const Result& r) {
  const std::optional<NullTestOutcome> n = null_test_of(r);
  if (!n) return "not run";
  if (!n->verdict) return "FAIL (not evaluated)";
  return std::string(n->failed() ? "FAIL" : "pass") + " (" +
         format_sig2(n->verdict->observed_ratio) + "x)";
}

// What a row's notes say in a word: clock-flagged samples, a clock held down throughout, lost
// records retried, copies the call ran that device_busy does not count.
std::vector<std::string> row_flags(const Result& r, int record_mhz) {
  std::vector<std::string> flags;
  if (const std::optional<ClockSummary>& clock = r.summary.clock) {
    if (clock->flagged > 0) {
      flags.push_back(fmt::format("clock {}/{}", clock->flagged, r.summary.n_samples));
    }
    if (clock_below_reference(clock->max_mhz, record_mhz)) flags.emplace_back("low clock");
  }
  if (const int retries = r.measurement.retries; retries > 0) {
    flags.push_back(fmt::format("{} {}", retries, retries == 1 ? "retry" : "retries"));
  }
  const std::optional<double> copy = shown_number_of(column("uncounted_copy_us"), r);
  if (!r.count_copies && copy && *copy > 0) flags.emplace_back("uncounted copy");
  if (!r.measurement.drop_counter_live) flags.emplace_back("drops unproven");
  return flags;
}

std::string flags_legend(const std::vector<Record>& records) {
  std::set<std::string> kinds;
  for (const Record& record : records) {
    const int mhz = highest_clock(record);
    for (const Result& r : record.results) {
      for (const std::string& f : row_flags(r, mhz)) {
        kinds.insert(f.rfind("clock ", 0) == 0              ? "clock"
                     : f.find(" retr") != std::string::npos ? "retries"
                                                            : f);
      }
    }
  }
  if (kinds.empty()) return "";
  std::vector<std::string> parts;
  if (kinds.count("clock") != 0) {
    parts.emplace_back(
        "\"clock N/M\": N of the row's M samples may have run slower for their "
        "SM clock (the note on the row says how)");
  }
  if (kinds.count("low clock") != 0) {
    parts.emplace_back("\"low clock\": the whole row ran below the record's highest clock");
  }
  if (kinds.count("retries") != 0) {
    parts.emplace_back(
        "\"N retries\": activity records were lost and the measurement repeated with larger "
        "buffers");
  }
  if (kinds.count("uncounted copy") != 0) {
    parts.emplace_back(
        "\"uncounted copy\": the call also ran copies or fills, which device_busy "
        "does not count (--wide shows how long)");
  }
  if (kinds.count("drops unproven") != 0) {
    parts.emplace_back("\"drops unproven\": a lost record could have gone unseen");
  }
  std::string legend = "flags: ";
  for (std::size_t i = 0; i < parts.size(); ++i) legend += (i > 0 ? "; " : "") + parts[i];
  return legend;
}

// The narrow table's header and rows: the columns a reader decides with (case, implementation,
// params, the time as median [p10, p90], latency, kernels, each declared throughput with its
// percent of the ceiling, the null test, flags), each left out when no row has a value for it;
// a method or device column only when rows differ in it.
std::vector<std::vector<std::string>> narrow_rows(const std::vector<Record>& records,
                                                  const TimeUnit& unit) {
  std::set<TimingMethod> methods;
  std::set<std::string> devices;
  bool any_params = false, any_kernel_method = false, any_kernels = false, any_flops = false,
       any_bytes = false, any_null_test = false, any_flags = false;
  for (const Record& record : records) {
    const int mhz = highest_clock(record);
    if (!record.results.empty() || !record.failures.empty())
      devices.insert(device_text(record.device));
    for (const Result& r : record.results) {
      methods.insert(r.measurement.method);
      any_params = any_params || !r.row.params.empty();
      any_kernel_method = any_kernel_method || sees_kernels(r.measurement.method);
      any_kernels = any_kernels || r.summary.max_n_kernels.has_value();
      any_flops = any_flops || r.workload.flops.has_value();
      any_bytes = any_bytes || r.workload.bytes.has_value();
      any_null_test = any_null_test || null_test_of(r).has_value();
      any_flags = any_flags || !row_flags(r, mhz).empty();
    }
    for (const Failure& f : record.failures) any_params = any_params || !f.row.params.empty();
  }
  const auto any_percent = [&](std::string_view id) {
    for (const Record& record : records) {
      for (const Result& r : record.results) {
        if (number_of(column(id), r)) return true;
      }
    }
    return false;
  };

  struct Cell {
    std::string title;
    std::function<std::string(const Record&, const Result&, int)> of_result;
  };
  std::vector<Cell> cells;
  cells.push_back(
      {"case", [](const Record&, const Result& r, int) { return md(r.row.case_name); }});
  cells.push_back({"implementation",
                   [](const Record&, const Result& r, int) { return md(r.row.implementation); }});
  if (any_params) {
    cells.push_back({"params", [](const Record&, const Result& r, int) {
                       return md(format_params(r.row.params));
                     }});
  }
  if (methods.size() > 1) {
    cells.push_back({"method", [](const Record&, const Result& r, int) {
                       return std::string(to_string(r.measurement.method));
                     }});
  }
  const std::string statistic =
      methods.size() == 1 ? statistic_title(statistic_of(*methods.begin())) : "time";
  cells.push_back({fmt::format("{} median [p10, p90] ({})", statistic, unit.name),
                   [&unit](const Record& rec, const Result& r, int) {
                     if (shows_no_numbers(r)) return std::string(kNullTestFailedCell);
                     const std::string median =
                         markdown_value(column("device_busy_median_us"), rec, r, unit, false);
                     if (median == kNotMeasured) return median;
                     return median + " [" +
                            markdown_value(column("device_busy_p10_us"), rec, r, unit, false) +
                            ", " +
                            markdown_value(column("device_busy_p90_us"), rec, r, unit, false) + "]";
                   }});
  if (any_kernel_method) {
    cells.push_back(
        {fmt::format("latency ({})", unit.name), [&unit](const Record& rec, const Result& r, int) {
           if (shows_no_numbers(r)) return std::string(kNotShownCell);
           return markdown_value(column("latency_median_us"), rec, r, unit, false);
         }});
  }
  if (any_kernels) {
    cells.push_back({"kernels", [&unit](const Record& rec, const Result& r, int) {
                       return markdown_value(column("max_n_kernels"), rec, r, unit, false);
                     }});
  }
  const auto flops_cell = [&unit](const Result& r) {
    return rate_cell(r, column("tflops"), column("pct_of_peak_flops"),
                     column("above_flops_ceiling"), unit);
  };
  const auto bytes_cell = [&unit](const Result& r) {
    return rate_cell(r, column("tbs"), column("pct_of_peak_bandwidth"),
                     column("above_bandwidth_ceiling"), unit);
  };
  const bool any_rate_percent =
      any_percent("pct_of_peak_flops") || any_percent("pct_of_peak_bandwidth");
  if (any_flops && any_bytes) {
    // Rows declare different work (GEMMs flops, copies bytes): one column, the unit in the
    // cell, rather than two columns each mostly empty.
    cells.push_back({any_rate_percent ? "throughput (% peak)" : "throughput",
                     [flops_cell, bytes_cell](const Record&, const Result& r, int) {
                       if (shows_no_numbers(r)) return std::string(kNotShownCell);
                       std::string cell;
                       const auto add = [&](const std::string& rate, const char* unit_name) {
                         if (rate == kNotMeasured) return;
                         const std::size_t space = rate.find(' ');
                         cell += (cell.empty() ? "" : ", ") + rate.substr(0, space) + " " +
                                 unit_name + (space == std::string::npos ? "" : rate.substr(space));
                       };
                       add(flops_cell(r), "TFLOP/s");
                       add(bytes_cell(r), "TB/s");
                       return cell.empty() ? std::string(kNotMeasured) : cell;
                     }});
  } else if (any_flops) {
    cells.push_back({any_rate_percent ? "TFLOP/s (% peak)" : "TFLOP/s",
                     [flops_cell](const Record&, const Result& r, int) { return flops_cell(r); }});
  } else if (any_bytes) {
    cells.push_back({any_rate_percent ? "TB/s (% peak)" : "TB/s",
                     [bytes_cell](const Record&, const Result& r, int) { return bytes_cell(r); }});
  }
  if (any_null_test) {
    cells.push_back(
        {"null test", [](const Record&, const Result& r, int) { return null_test_cell(r); }});
  }
  if (any_flags) {
    cells.push_back({"flags", [](const Record&, const Result& r, int mhz) {
                       std::string joined;
                       for (const std::string& f : row_flags(r, mhz)) {
                         joined += (joined.empty() ? "" : ", ") + f;
                       }
                       return joined;
                     }});
  }
  if (devices.size() > 1) {
    cells.push_back({"device", [](const Record& rec, const Result&, int) {
                       return md(device_text(rec.device));
                     }});
  }

  std::vector<std::vector<std::string>> rows;
  rows.emplace_back();
  for (const Cell& c : cells) rows.back().push_back(c.title);
  for (const Record& record : records) {
    const int mhz = highest_clock(record);
    for (const Result& r : record.results) {
      rows.emplace_back();
      for (const Cell& c : cells) rows.back().push_back(c.of_result(record, r, mhz));
    }
    // A failed case: its identity, and "not measured" where its numbers would be.
    for (const Failure& f : record.failures) {
      rows.emplace_back();
      for (const Cell& c : cells) {
        std::string cell = c.title == "flags" ? "" : kNotMeasured;
        if (c.title == "case") cell = md(f.row.case_name);
        if (c.title == "implementation") {
          cell = md(f.row.implementation.empty() ? "(every implementation)" : f.row.implementation);
        }
        if (c.title == "params") cell = md(format_params(f.row.params));
        if (c.title == "device") cell = md(device_text(record.device));
        rows.back().push_back(std::move(cell));
      }
    }
  }
  return rows;
}

// Whether a continuation line of a list item may start with `word`: never with a character
// that would open a block there (a list, heading, quote, code, table or HTML) or with an
// ordered list's "1." or "1)".
bool may_start_line(std::string_view word) {
  if (word.empty()) return false;
  const auto first = static_cast<unsigned char>(word.front());
  if (!std::isalnum(first) && std::string_view("(\"'/\\").find(word.front()) == std::string::npos) {
    return false;
  }
  const std::size_t digits = word.find_first_not_of("0123456789");
  return !(digits != std::string_view::npos && digits > 0 && digits + 1 == word.size() &&
           (word[digits] == '.' || word[digits] == ')'));
}

// A markdown list item (`marker` then `text`) broken at spaces into lines of at most
// kNarrowWidth characters where a break is allowed; continuation lines are indented to the
// item's text, so the item reads the same in a renderer.
std::string wrapped_item(std::string_view marker, std::string_view text) {
  const std::string indent(marker.size(), ' ');
  std::string out;
  std::string line(marker);
  bool line_has_word = false;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t space = text.find(' ', at);
    const std::string_view word =
        text.substr(at, space == std::string_view::npos ? std::string_view::npos : space - at);
    if (line_has_word && line.size() + 1 + word.size() > kNarrowWidth && may_start_line(word)) {
      out += line + "\n";
      line = indent + std::string(word);
    } else {
      line += (line_has_word ? " " : "") + std::string(word);
    }
    line_has_word = true;
    if (space == std::string_view::npos) break;
    at = space + 1;
  }
  return out + line + "\n";
}

}  // namespace

std::string render_markdown(const std::vector<Record>& records, TableLayout layout) {
  const TimeUnit unit = table_unit(records);
  const bool narrow = layout == TableLayout::narrow;
  const std::string above_mark = narrow ? kNarrowAboveMark : "above the measured ceiling";
  std::vector<std::vector<std::string>> rows;
  if (narrow) {
    rows = narrow_rows(records, unit);
  } else {
    rows.push_back(markdown_header(unit));
  }
  std::vector<std::string> notes;
  bool any_above_ceiling = false;
  for (const Record& record : records) {
    // B4: a row's flags are judged against its own highest clock, so a row that ran held down
    // throughout (a small case after a power-capped GEMM) has none; the same rule against the
    // highest clock of the record's rows says so.
    const int record_mhz = highest_clock(record);
    for (const Result& result : record.results) {
      if (!narrow) rows.push_back(markdown_row(record, result, unit));
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
      if (!narrow) {
        rows.push_back(failure_cells(f, record, true));
        for (std::string& cell : rows.back()) cell = md(cell);
      }
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
  if (narrow) out += "\n" + std::string(kNarrowWideHint) + "\n";

  // A narrow table's lists are broken into lines a terminal shows whole.
  const auto item = [&](std::string_view marker, const std::string& text) {
    return narrow ? wrapped_item(marker, text) : std::string(marker) + text + "\n";
  };
  out += "\nDeviations:";
  bool any_deviation = false;
  for (const Record& record : records) {
    for (const std::string& deviation : record.deviations) {
      out += (any_deviation ? "" : "\n") +
             item("- ", md(record.run_id, MdPlace::line_start) + ": " + md(deviation));
      any_deviation = true;
    }
  }
  out += any_deviation ? "" : " none recorded.\n";

  if (narrow) {
    if (std::string legend = flags_legend(records); !legend.empty()) notes.push_back(legend);
  }
  if (any_above_ceiling) {
    notes.push_back(
        "a percent marked \"" + above_mark +
        "\" is a row that ran faster than the fastest run of the work its ceiling times (the "
        "ceilings under Sources name it): a finding about the row or about that work, not a "
        "device beyond itself");
  }
  if (!notes.empty()) {
    out += "\nNotes:\n";
    for (const std::string& note : notes) out += item("- ", note);
  }

  out += "\nSources:\n";
  for (const Record& record : records) {
    const DeviceIdentity& d = record.device;
    out += item(
        "- ",
        fmt::format("record {} (created {}, gpumeter {}, commit {})", md(record.run_id),
                    md(record.created_utc), md(record.gpumeter_version),
                    record.project_commit.empty() ? kNotAvailable : md(record.project_commit)));
    out += item("  - ", fmt::format("device {}, uuid {}, arch {}, host {}", md(device_text(d)),
                                    d.uuid.empty() ? kNotAvailable : md(d.uuid), md(d.arch),
                                    md(record.host.hostname)));
    out += item("  - ", "state: " + state_line(record.device_state));
    out += item("  - ", "config: " + config_line(record.config));
    if (narrow) {
      // The wide table names each row's method; here the record names them once.
      std::set<TimingMethod> methods;
      for (const Result& r : record.results) methods.insert(r.measurement.method);
      std::string timing;
      for (const TimingMethod m : methods) {
        timing += fmt::format("{}{} ({})", timing.empty() ? "" : ", ", to_string(m),
                              to_string(statistic_of(m)));
      }
      if (!timing.empty()) out += item("  - ", "timing: " + timing);
      // One line per run of the ceilings' work, not one line of all of them.
      const CeilingsText ceilings = ceilings_text(record.ceilings);
      out += item("  - ", "ceilings: " + ceilings.head);
      for (const std::string& run : ceilings.runs) out += item("    - ", run);
    } else {
      out += item("  - ", "ceilings: " + ceilings_line(record.ceilings));
    }
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
                                                   : csv_number(c, shown_number_of(c, result)));
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

std::string render_comparisons(const std::vector<Record>& records, TableLayout layout) {
  // Narrow: every line broken at 120 characters, as the table above it.
  const auto item = [&](std::string_view marker, const std::string& text) {
    return layout == TableLayout::narrow ? wrapped_item(marker, text)
                                         : std::string(marker) + text + "\n";
  };
  std::string s;
  std::string null_lines;
  std::string lines;
  for (const Record& record : records) {
    for (const Comparison& c : compare_results(record.results)) {
      lines += item("- ", md(case_label(c.baseline), MdPlace::line_start) + ": " + md(describe(c)));
    }
    for (const NullTestOutcome& n : null_tests(record.results)) {
      null_lines += item("- ", md(row_label(n.row), MdPlace::line_start) + ": " + md(describe(n)));
    }
  }
  if (!lines.empty()) {
    std::string heading =
        item("",
             "Comparisons (each implementation against its case's first; device time: the relative "
             "difference with its " +
                 format_sig2(100 * kDifferenceConfidence) +
                 "% interval, passes as the units that vary; wall clock: the " +
                 format_sig2(kResolutionRatio) + "x resolution):");
    s += heading + lines;
  }
  if (!null_lines.empty()) {
    s += item("", "Null tests (the work scaled " + std::to_string(kNullTestScale) +
                      "x, the time must scale alike within " +
                      format_sig2(kNullTestTolerance * 100) + "%):") +
         null_lines;
  }
  return s;
}

}  // namespace gpumeter
