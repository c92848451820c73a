#pragma once
// The table format options of every program that prints a table of records (the benchmark
// programs, `gpumeter report`, `gpumeter run`): one spelling and one meaning. CSV always holds
// every column, so --wide beside --csv asks for nothing and is refused rather than ignored.
#include <CLI/CLI.hpp>

#include <string>

#include "gpumeter/detail/reporter.hpp"

namespace gpumeter {

struct TableFormatFlags {
  bool csv = false;
  bool wide = false;

  ReportFormat format() const {
    return csv ? ReportFormat::csv : wide ? ReportFormat::wide_markdown : ReportFormat::markdown;
  }
};

// Adds --csv and --wide to `app`; `csv_note` ends --csv's help with what the program adds (where
// it prints the record's path, say).
inline void add_table_format_flags(CLI::App& app, TableFormatFlags& flags,
                                   const std::string& csv_note = "") {
  auto* csv = app.add_flag("--csv", flags.csv,
                           "Print the table as CSV (every column)" +
                               (csv_note.empty() ? std::string() : "; " + csv_note));
  auto* wide = app.add_flag("--wide", flags.wide,
                            "Every column in the markdown table; by default it holds the columns "
                            "a reader decides with (the record and CSV always hold them all)");
  csv->excludes(wide);
}

}  // namespace gpumeter
