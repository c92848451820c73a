// The CSV report: every column of every row, for machines; and its Reporter.
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
#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/row_status.hpp"

namespace gpumeter {
namespace {

using namespace report_parts;  // NOLINT: the parts of this report

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

}  // namespace

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

}  // namespace gpumeter
