#pragma once
// `gpumeter report RECORD...`: tables rendered from records only (P10).
#include <string>
#include <vector>

#include "cli.hpp"
#include "gpumeter/detail/reporter.hpp"  // ReportFormat

namespace gpumeter::cli {

Command add_report_command(CLI::App& app);

// Reads and validates every record before printing anything: one bad file gives one line on
// stderr naming it and the problem, exit code kExitUsage, and no partial table.
int report(const std::vector<std::string>& files, ReportFormat format, Io& io);

}  // namespace gpumeter::cli
