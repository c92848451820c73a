// `gpumeter plot`: the drawing is Python's (matplotlib is a well-kept plotting library with no C++
// equal); this command finds the interpreter, runs the module's plot and reports what is missing.
#include "plot.hpp"

#include <memory>
#include <string>
#include <vector>

#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/exit_help.hpp"
#include "python_module.hpp"

namespace gpumeter::cli {
namespace {

// What the interpreter runs: the module's plot, or one line naming what it could not import
// (python -m would say "No module named gpumeter" and exit 1, like any failure of the plot), or,
// asked for --help, kHelpWithoutModule. argv[1] is the interpreter's name for that line, argv[2]
// what installs the module; the plot's arguments follow them, as given: the module's parser is
// the one parser of `gpumeter plot`. Its exit codes are exit_codes.hpp's, written into the text.
std::string plot_bootstrap() {
  return "import sys\n"
         "try:\n"
         "    from gpumeter.plot import main\n"
         "except ImportError as e:\n"
         "    if '-h' in sys.argv[3:] or '--help' in sys.argv[3:]:\n"
         "        sys.exit(" +
         std::to_string(kHelpWithoutModule) +
         ")\n"
         "    sys.stderr.write('gpumeter plot: ' + sys.argv[1] + ' cannot import gpumeter.plot (' "
         "+\n"
         "                     ' '.join(str(e).split()) + '): ' + sys.argv[2] + ', '\n"
         "                     'or set GPUMETER_PYTHON to a Python that has it\\n')\n"
         "    sys.exit(" +
         std::to_string(kExitUsage) +
         ")\n"
         "try:\n"
         "    code = main(sys.argv[3:])\n"
         "except Exception as e:\n"
         "    sys.stderr.write('gpumeter plot: internal error while drawing: ' + type(e).__name__ "
         "+\n"
         "                     ': ' + ' '.join(str(e).split()) + '\\n')\n"
         "    code = " +
         std::to_string(kExitInternal) +
         "\n"
         "sys.exit(code)\n";
}

// The codes the bootstrap above exits with; any other is the interpreter's own failure.
bool bootstrap_code(int code) {
  return code == kExitOk || code == kExitUsage || code == kExitInternal;
}

// The Python module's `gpumeter plot --help`, as its parser prints it (checked against it by
// tests/python/test_cli_help.py).
constexpr const char* kPlotHelp =
#include "plot_help.inc"
    ;

int run_plot(Io& io, const std::vector<std::string>& given) {
  const std::string python = python_interpreter();
  std::vector<std::string> args = {install_hint("plot")};
  args.insert(args.end(), given.begin(), given.end());
  const Spawned spawned = spawn_python(io, python, plot_bootstrap().c_str(), args);
  if (spawned.pid < 0) {
    if (asks_for_help(given)) {
      return help_without_module(
          io, kPlotHelp, "the Python interpreter '" + python + "' cannot be started", "plot");
    }
    print_error(io, "plot",
                cannot_start_python(python, spawned.error,
                                    "plot draws with Python and matplotlib: install python3 and " +
                                        install_hint("plot")));
    return kExitUsage;
  }
  try {
    const ChildExit exit = wait_for_child(spawned.pid);
    if (!exit.signaled && exit.code == kHelpWithoutModule && asks_for_help(given)) {
      return help_without_module(io, kPlotHelp, "'" + python + "' cannot import gpumeter.plot",
                                 "plot");
    }
    if (!exit.signaled && bootstrap_code(exit.code)) return exit.code;
    // The interpreter failed before or around the plot (a broken install, a wrapper that is no
    // Python): one line saying so, whatever it printed or did not.
    print_error(io, "plot",
                "the Python interpreter '" + python + "' " +
                    (exit.signaled ? "was ended by signal " + std::to_string(exit.signal)
                                   : "exited with code " + std::to_string(exit.code)) +
                    " without drawing: check that it runs (" + python +
                    " -c 'import gpumeter.plot'), or set " + kPythonEnv +
                    " to a Python that has gpumeter and matplotlib");
    return exit.signaled ? exit.shell_code() : kExitUsage;
  } catch (const Error& e) {
    print_error(io, "plot", e.what());
    return kExitInternal;
  }
}

}  // namespace

Command add_plot_command(CLI::App& app) {
  auto args = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand(
      "plot",
      "Draw records as SVG and PNG: time against size with growth exponents and crossover "
      "brackets, total(N) by phase beside the measured totals, and comparisons with their "
      "intervals. Every point is read from the records; nothing is measured. Drawn by the "
      "Python module with matplotlib ($GPUMETER_PYTHON, default python3): `gpumeter plot --help` "
      "prints its options.");
  // Every argument, --help included, is the Python module's: one parser owns them, with their
  // defaults and accepted values (python/gpumeter/plot.py).
  sub->set_help_flag();
  sub->prefix_command();
  sub->allow_extras();
  sub->footer(plot_exit_codes_help());
  CLI::App* raw = sub;
  return {sub, [args, raw](Io& io) {
            *args = raw->remaining();
            return run_plot(io, *args);
          }};
}

}  // namespace gpumeter::cli
