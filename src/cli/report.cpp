#include "report.hpp"

#include <filesystem>
#include <memory>

#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter::cli {

Command add_report_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> files;
    bool csv = false;
    bool wide = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "report", "Render a table (markdown, or CSV) from records; every cell comes from a record.");
  sub->add_option("records", options->files, "Record files (gpumeter-<run_id>.json)")->required();
  auto* csv = sub->add_flag("--csv", options->csv, "CSV instead of markdown (every column)");
  auto* wide =
      sub->add_flag("--wide", options->wide,
                    "Every column in the markdown table; by default it holds the columns a "
                    "reader decides with, as a benchmark program prints them");
  csv->excludes(wide);
  sub->footer(
      "Exit codes: 0 the table was printed; 2 bad arguments or a record that cannot be read "
      "(one line names the file and the problem; no partial table); 3 internal error.");
  return {sub, [options](Io& io) {
            return report(options->files,
                          options->csv    ? ReportFormat::csv
                          : options->wide ? ReportFormat::wide_markdown
                                          : ReportFormat::markdown,
                          io);
          }};
}

int report(const std::vector<std::string>& files, ReportFormat format, Io& io) {
  std::vector<Record> records;
  try {
    records = read_records(std::vector<std::filesystem::path>(files.begin(), files.end()));
  } catch (const InvalidRecord& e) {
    print_error(io, "report", e.what());
    return kExitUsage;
  }
  // Markdown is for people: the comparisons and null tests belong beside the timings. CSV is
  // for machines and holds the rows alone. All of it is rendered before the first byte is
  // written, so a failure leaves nothing half printed.
  const std::string text = make_reporter(format)->render(records);
  io.out << text;
  io.out.flush();
  if (!io.out) {
    print_error(io, "report", "cannot write the table to standard output");
    return kExitInternal;
  }
  return kExitOk;
}

}  // namespace gpumeter::cli
