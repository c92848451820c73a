#include "report.hpp"

#include <filesystem>
#include <memory>

#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/error_catalogue.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_help.hpp"
#include "table_format_option.hpp"

namespace gpumeter::cli {

Command add_report_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> files;
    TableFormatFlags table;
  };
  auto options = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "report", "Render a table (markdown, or CSV) from records; every cell comes from a record.");
  sub->add_option("records", options->files, "Record files (gpumeter-<run_id>.json)")->required();
  add_table_format_flags(*sub, options->table);
  sub->footer(
      exit_codes_help({{kExitOk, "the table was printed"},
                       {kExitUsage,
                        "bad arguments or a record that cannot be read (one line names the file "
                        "and the problem; no partial table)"},
                       {kExitInternal}}));
  return {sub, [options](Io& io) { return report(options->files, options->table.format(), io); }};
}

int report(const std::vector<std::string>& files, ReportFormat format, Io& io) {
  std::vector<Record> records;
  try {
    records = read_records(std::vector<std::filesystem::path>(files.begin(), files.end()));
  } catch (const InvalidRecord& e) {
    print_error(io, "report", e.what());
    return exit_code_of_error(e);
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
