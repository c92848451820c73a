#include "cli.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "compare.hpp"
#include "env.hpp"
#include "evaluate.hpp"
#include "gpumeter/detail/table.hpp"
#include "gpumeter/exit_help.hpp"
#include "gpumeter/help_format.hpp"
#include "gpumeter/version.hpp"
#include "history.hpp"
#include "lock.hpp"
#include "merge.hpp"
#include "plot.hpp"
#include "report.hpp"
#include "run.hpp"

namespace gpumeter::cli {
namespace {

// The codes every command shares, from the one table (exit_codes.hpp).
std::string top_footer() {
  return exit_codes_help(
             {{kExitOk, "success"},
              {kExitFailed, "a regression (compare --fail-on-regression)"},
              {kExitUsage,
               "bad arguments or a record that cannot be read (one line on stderr names the file "
               "and the problem)"},
              {kExitInternal},
              {kExitBusy, "the device stays busy or its lock stays held (lock)"},
              {kExitNoDevice, "no usable CUDA GPU (run, evaluate --timing cupti)"}}) +
         " `lock` and `run` otherwise exit with their command's code. Each command's --help lists "
         "its own.";
}

// CLI11 says "A subcommand is required" also when the user typed a command that does not
// exist; name what was typed instead.
std::string usage_problem(const CLI::ParseError& e, const CLI::App& app) {
  if (!app.get_subcommands().empty()) return e.what();
  const std::vector<std::string> extras = app.remaining();
  if (!extras.empty()) {
    const std::string& first = extras.front();
    return (first.rfind('-', 0) == 0 ? "unknown option '" : "unknown command '") + first + "'";
  }
  return "expected a command";
}

}  // namespace

std::vector<Command> add_commands(CLI::App& app) {
  std::vector<Command> commands;
  commands.push_back(add_report_command(app));
  commands.push_back(add_compare_command(app));
  commands.push_back(add_merge_command(app));
  commands.push_back(add_env_command(app));
  commands.push_back(add_lock_command(app));
  commands.push_back(add_plot_command(app));
  commands.push_back(add_history_command(app));
  commands.push_back(add_run_command(app));
  commands.push_back(add_evaluate_command(app));
  return commands;
}

void print_error(Io& io, std::string_view command, std::string_view message) {
  std::string line = "gpumeter";
  if (!command.empty()) line += " " + std::string(command);
  line += ": ";
  // A message quotes what it was given (a file name, a record's text): a line break reads as a
  // space, and every other control is shown escaped, never obeyed by the terminal.
  std::string flat(message);
  std::replace_if(
      flat.begin(), flat.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  line += inert_text(flat);
  io.err << line << '\n' << std::flush;
}

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  Io io{out, err};
  try {
    CLI::App app{"gpumeter: measure GPU work honestly, and report what was measured.", "gpumeter"};
    use_wrapping_help(app);  // before the subcommands, which inherit it
    app.set_version_flag("--version", std::string("gpumeter ") + gpumeter::version());
    app.require_subcommand(1);

    std::vector<Command> commands = add_commands(app);
    // After the subcommands, which would otherwise inherit it: each has its own codes.
    app.footer(top_footer());

    // The first word that is not an option names the command (the top level takes only
    // --help and --version). One that names none is an error whatever follows it: CLI11 would
    // answer `gpumeter launch --help` with the top-level help and exit 0.
    for (int i = 1; i < argc; ++i) {
      const std::string_view word = argv[i] != nullptr ? argv[i] : "";
      if (word == "--") break;
      if (word.rfind('-', 0) == 0) continue;
      const bool known = std::any_of(commands.begin(), commands.end(), [&](const Command& c) {
        return c.app->check_name(std::string(word));
      });
      if (known) break;
      print_error(io, "", "unknown command '" + std::string(word) + "'");
      err << "Run 'gpumeter --help' for usage.\n";
      return kExitUsage;
    }

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
        return app.exit(e, out, err);  // --help, --version: on stdout, exit 0
      }
      // One line naming the problem, one pointing at the help: not the whole help text.
      const auto chosen = app.get_subcommands();
      const std::string command = chosen.empty() ? "" : chosen.front()->get_name();
      print_error(io, command, usage_problem(e, app));
      err << "Run 'gpumeter " << (command.empty() ? "" : command + " ") << "--help' for usage.\n";
      return kExitUsage;
    }

    for (Command& command : commands) {
      if (command.app->parsed()) return command.run(io);
    }
    print_error(io, "", "expected a command");
    err << "Run 'gpumeter --help' for usage.\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    print_error(io, "", std::string("internal error: ") + e.what());
    return kExitInternal;
  } catch (...) {
    print_error(io, "", "internal error: unknown exception");
    return kExitInternal;
  }
}

}  // namespace gpumeter::cli
