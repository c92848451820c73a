#pragma once
// What turns records into a report, behind one interface (as Google Benchmark's and NVBench's
// printers are): the markdown table a person reads, the CSV a machine reads, and the table of two
// records compared. `gpumeter report`, `gpumeter compare`, the benchmark programs' end-of-run
// table and the Python module's reports all go through it. Records are the only source: every
// reporter builds its rows from the column list (columns.hpp) of the records it is given.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // The whole report of `records`, rendered before a byte is written, so a caller prints all of
  // it or nothing. Throws std::invalid_argument when the records are not what the report is of
  // (a comparison of other than two records).
  virtual std::string render(const std::vector<Record>& records) const = 0;
};

enum class ReportFormat {
  // The narrow markdown table (the columns a reader decides with, lines of 120 characters), its
  // notes and sources, then the comparisons and null tests: what benchmark programs print.
  markdown,
  // The same with every column.
  wide_markdown,
  // Every column, one row per result or failed case, for machines; no notes or comparisons.
  csv,
};

// The reporter of a table of records in `format`.
std::unique_ptr<Reporter> make_reporter(ReportFormat format);

// The reporter of two records compared row by row (`gpumeter compare`): the first record is the
// base, the second the new one; with a gate, its regressions and verdict.
std::unique_ptr<Reporter> make_compare_reporter(std::optional<GateOptions> gate = std::nullopt);

// Two records compared row by row, as `gpumeter compare` and the pytest plugin's gate show them:
// the report and the core's conclusion, from one comparison of the two (one composition for
// every front end).
struct ComparedRecords {
  std::string report;
  CompareConclusion conclusion;
};
ComparedRecords compare_and_report(const Record& base, const Record& next,
                                   const std::optional<GateOptions>& gate);

}  // namespace gpumeter
