#pragma once
// The table format options of every program that prints a table of records (the benchmark
// programs, `gpumeter report`, `gpumeter run`): one spelling and one meaning (kCsvOption,
// kWideOption). CSV always holds every column, so --wide beside --csv asks for nothing and is
// refused rather than ignored.
#include <CLI/CLI.hpp>

#include <string>

#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/option_meaning.hpp"
#include "table_option.hpp"

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
  auto* csv = add_flag_option(app, "--csv", kCsvOption, flags.csv, csv_note);
  auto* wide = add_flag_option(app, "--wide", kWideOption, flags.wide);
  csv->excludes(wide);
}

}  // namespace gpumeter
