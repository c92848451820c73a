#pragma once
// Tables rendered from records only: every cell is transcribed from a record, and a cell with no
// data reads "not measured".
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/detail/escape.hpp"  // inert_text, markdown_text, csv_cell: what every table uses
#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/wording.hpp"  // kNotMeasured, kTableTimeDigits: the words every table uses
#include "gpumeter/record.hpp"

namespace gpumeter {

// Which columns a markdown table holds.
enum class TableLayout {
  // The columns a reader decides with: case, implementation, params, the time as median [p10,
  // p90], latency, kernels, each declared throughput with its percent of the ceiling, the null
  // test and flags; each left out when no row has a value for it, and a method or device
  // column only where rows differ in them. With ordinary names every line fits 120 characters
  // (the notes and sources are broken into lines of 120 too). What benchmark programs print.
  narrow,
  // Every column of the column list (columns.hpp), on one line per note.
  wide,
};

// One row per result of every record, in order, then the deviations, per-row notes (fallback
// reasons, an unproven drop counter) and the source of every record (run id, device, device
// state, configuration). Times share one unit, named in the header (us, or ms when the
// largest median device_busy reaches 10 ms). Every text that came from a record is made inert
// by markdown_text() (escape.hpp), so a record adds no line, cell, block, emphasis, code, link or
// HTML.
std::string render_markdown(const std::vector<Record>& records,
                            TableLayout layout = TableLayout::wide);

// The same rows for machines, from the same column list: RFC 4180 quoting, times in us at full
// precision, one column per number, and an EMPTY cell where a record has no value (a number
// column holds only numbers). Text from a record goes through csv_cell() (escape.hpp). Each row
// says what became of it (`status`: ok, skipped, failed, crashed, timed out, not measured) and
// why (`error`: the failure's name and message, or the failed null test); the run_id column names
// the record of each row. No notes.
std::string render_csv(const std::vector<Record>& records);

// Markdown lines under the table: each comparison of every record (comparison.hpp), in the
// words a reader sees first, then the null tests with their observed ratios.
std::string render_comparisons(const std::vector<Record>& records,
                               TableLayout layout = TableLayout::wide);
// The phases a user waits for, total(N) beside the measured totals, crossovers in N and growth
// along every numeric axis, of each record that holds them; "" when none does.
std::string render_phases(const std::vector<Record>& records,
                          TableLayout layout = TableLayout::narrow);
// Of each record of a program timed by its NVTX ranges (`gpumeter run`): every range with its
// instances, the kernels outside every range, the launches without device work; "" when none is.
std::string render_program(const std::vector<Record>& records);

}  // namespace gpumeter
