#pragma once
// The parts the table reporters share (markdown_reporter.cpp, csv_reporter.cpp): the time unit of
// a table, the cells of a column for one result, the sources of a record, the narrow table's
// columns and its line breaking. Internal to the report library.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/columns.hpp"
#include "gpumeter/detail/escape.hpp"
#include "gpumeter/detail/timing_method.hpp"
#include "gpumeter/detail/wording.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter::report_parts {

// The cell of a time or rate of a row whose null test failed.
inline constexpr const char* kNullTestFailedCell = "null test failed";
// The narrow table's other cells of such a row: its time cell and null test say why once.
inline constexpr const char* kNotShownCell = "not shown";

// A row whose null test failed: it shows no times (its time may not be its work's).
bool shows_no_numbers(const Result& r);

// The one unit of a table's times, named in its header: us, or ms when the largest median
// device_busy reaches 10 ms.
struct TimeUnit {
  const char* name;
  double ns_per_unit;
};
TimeUnit table_unit(const std::vector<Record>& records);

// A number to the table's significant figures.
std::string sig3(double value);

// Record text made inert for markdown (escape.hpp); `place` says whether it starts a line.
using MdPlace = MarkdownPlace;
std::string md(std::string_view text, MdPlace place = MdPlace::within_line);

// The sources of a record under a table (record_sources.cpp): its device state, configuration
// and ceilings.
std::string state_line(const DeviceState& s);
std::string config_line(const RunConfig& c);
// How the record's ceilings were timed (`head`), and what each run of their work reached.
struct CeilingsText {
  std::string head;
  std::vector<std::string> runs;
};
CeilingsText ceilings_text(const Ceilings& c);
std::string ceilings_line(const Ceilings& c);

// The cells of the column list (table_cells.cpp).
// A markdown cell of a column for one result; record text made inert.
// `no_numbers`: shows_no_numbers(r), found once per row by the caller.
std::string markdown_value(const Column& c, const Record& rec, const Result& r,
                           const TimeUnit& unit, bool no_numbers);
std::string markdown_title(const Column& c, const TimeUnit& unit);
// The wide markdown row of one result: bracketed columns join the cell before them.
std::vector<std::string> markdown_row(const Record& rec, const Result& r, const TimeUnit& unit);
std::vector<std::string> markdown_header(const TimeUnit& unit);
// A failed case's row: its identity, and "not measured" in every cell that would hold a number.
// Record text is left as it is: the caller makes it inert for its format.
std::vector<std::string> failure_cells(const Failure& f, const Record& rec, bool markdown);
void append_markdown_row(std::string& out, const std::vector<std::string>& cells,
                         const std::vector<std::size_t>& widths);
// A markdown table of `rows` (the first the header; cells already made inert), every column as
// wide as its widest cell.
std::string markdown_table(const std::vector<std::vector<std::string>>& rows);
const Column& column(std::string_view id);

// The narrow table (narrow_table.cpp).
// The widest line a narrow table aims at: a terminal of 120 columns shows every line whole
// when names are of ordinary length.
inline constexpr std::size_t kNarrowWidth = 120;
// A narrow cell's mark of a percent above its ceiling (the wide table's is a column title).
inline constexpr const char* kNarrowAboveMark = "above ceiling";
// Under a narrow table: where the columns it leaves out are.
inline constexpr std::string_view kNarrowWideHint =
    "With --wide: every column (samples, gap, uncounted copy, retries, clocks, memory, device); "
    "the "
    "record and CSV hold all.";

// The narrow table's header and rows: the columns a reader decides with (case, implementation,
// params, the time as median [p10, p90], latency, kernels, each declared throughput with its
// percent of the ceiling, the null test, flags), each left out when no row has a value for it;
// a method or device column only when rows differ in it.
std::vector<std::vector<std::string>> narrow_rows(const std::vector<Record>& records,
                                                  const TimeUnit& unit);
// Fits a narrow table (narrow_rows' output) to kNarrowWidth where its content allows, by steps
// that lose no number: the null test column goes (the null tests are listed under the table),
// then the time titles drop the "median [p10, p90]" and the unit, said once in the caption.
// Returns the caption to print under the table ("" when nothing was moved).
std::string fit_narrow_rows(std::vector<std::vector<std::string>>& rows, const TimeUnit& unit);
// The widest line of `text`, in characters (UTF-8 code points).
std::size_t widest_line(std::string_view text);
// The legend of the flags the narrow table's rows show, "" when none.
std::string flags_legend(const std::vector<Record>& records);
// A markdown list item (`marker` then `text`) broken at spaces into lines of at most
// kNarrowWidth characters where a break is allowed; continuation lines are indented to the
// item's text, so the item reads the same in a renderer.
std::string wrapped_item(std::string_view marker, std::string_view text);

}  // namespace gpumeter::report_parts
