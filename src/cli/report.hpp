#pragma once
// `gpumeter report RECORD...`: tables rendered from records only (P10).
#include <string>
#include <vector>

#include "cli.hpp"

namespace gpumeter::cli {

// markdown: the narrow table (the columns a reader decides with, lines of 120 characters), as
// benchmark programs print it; wide_markdown: every column; csv: every column, for machines.
enum class ReportFormat { markdown, wide_markdown, csv };

Command add_report_command(CLI::App& app);

// Reads and validates every record before printing anything: one bad file gives one line on
// stderr naming it and the problem, exit code kExitUsage, and no partial table.
int report(const std::vector<std::string>& files, ReportFormat format, Io& io);

}  // namespace gpumeter::cli
