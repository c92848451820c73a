// The cells of the column list (columns.hpp) for one result or failed case, as the wide markdown
// table and the CSV show them, and the time unit they share.
#include "table_parts.hpp"

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

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/comparison.hpp"
#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/row_status.hpp"

namespace gpumeter::report_parts {

bool shows_no_numbers(const Result& r) {
  return r.null_test_failed();
}

TimeUnit table_unit(const std::vector<Record>& records) {
  double largest = 0;
  for (const Record& record : records) {
    for (const Result& result : record.results) {
      largest = std::max(largest, result.summary.device_busy.median_ns);
    }
  }
  if (largest >= kMillisecondTimesFromNs) return {"ms", static_cast<double>(kMillisecond)};
  return {"us", static_cast<double>(kMicrosecond)};
}

std::string sig3(double value) {
  return format_significant(value, kTableTimeDigits);
}

std::string md(std::string_view text, MdPlace place) {
  return markdown_text(text, place);
}

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
    return mib_text(v);
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
    if (c.id == "device") cell = device_label(rec.device);
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

std::string markdown_table(const std::vector<std::vector<std::string>>& rows) {
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
  return out;
}

const Column& column(std::string_view id) {
  for (const Column& c : result_columns()) {
    if (c.id == id) return c;
  }
  throw std::logic_error("no column " + std::string(id));
}

}  // namespace gpumeter::report_parts
