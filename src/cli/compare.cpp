// `gpumeter compare BASE NEW`: every row of a new record against the same row of a baseline,
// by the comparison rule of its statistic, with a gate for CI that fails on what it cannot see.
#include "compare.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command_options.hpp"
#include "gpumeter/detail/record_comparison.hpp"
#include "gpumeter/detail/record_io.hpp"
#include "gpumeter/detail/reporter.hpp"
#include "gpumeter/error_catalogue.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/exit_help.hpp"

namespace gpumeter::cli {
namespace {

struct CompareArguments {
  std::string base;
  std::string next;
  std::optional<double> fail_on_regression;
  bool allow_missing = false;
};

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto options = std::make_shared<CompareArguments>();
  CLI::App* sub = app.add_subcommand(
      "compare",
      "Compare every row of NEW with the same row (case, params, implementation) of BASE.");
  sub->add_option("base", options->base, "The baseline record")->required();
  sub->add_option("new", options->next, "The record to judge against it")->required();
  add_command_option(*sub, "--fail-on-regression", options->fail_on_regression)
      ->type_name("FRACTION");
  // Without the gate it is refused by the core's rule (gate_options), as everywhere.
  add_command_flag(*sub, "--allow-missing", options->allow_missing);
  sub->footer(
      exit_codes_help({{kExitOk, "no regression"},
                       {kExitFailed,
                        "the gate failed (a row slower beyond --fail-on-regression, or, without "
                        "--allow-missing, a row it could not see)"},
                       {kExitUsage,
                        "a record that cannot be read, or a row that cannot be compared (another "
                        "statistic or timing method, too few passes, a failed null test)"},
                       {kExitInternal}}));
  return {sub, [options](Io& io) {
            return compare(options->base, options->next, options->fail_on_regression,
                           options->allow_missing, io);
          }};
}

int compare(const std::string& base_file, const std::string& new_file,
            std::optional<double> fail_on_regression, bool allow_missing, Io& io) {
  std::optional<GateOptions> gate;
  std::vector<Record> records;
  try {
    // The core's rule of a threshold (CLI11 has read the text by kGateThresholdRule already).
    gate =
        gate_options(fail_on_regression, allow_missing, "--fail-on-regression", "--allow-missing");
    records = read_records({base_file, new_file});
  } catch (const Error& e) {
    // The catalogue's code (ConfigError and InvalidRecord: a usage error).
    print_error(io, "compare", e.what());
    return exit_code_of_error(e);
  }
  const ComparedRecords compared = compare_and_report(records[0], records[1], gate);
  // Rendered whole before the first byte is written.
  io.out << compared.report << std::flush;
  // The core's conclusion: the same the pytest plugin's gate reaches. Also on stderr: a CI log
  // shows why even when the report went to a file.
  const CompareConclusion& c = compared.conclusion;
  if (c.exit_code != kExitOk) print_error(io, "compare", c.why);
  return c.exit_code;
}

}  // namespace gpumeter::cli
