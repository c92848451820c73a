// `gpumeter evaluate`: the candidates are Python callables (or programs judged by their
// records), so the evaluation lives in the Python module; this command finds the interpreter,
// runs the module's evaluate with the arguments as given, and reports what is missing.
#include "evaluate.hpp"

#include <memory>
#include <string>
#include <vector>

#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "python_module.hpp"

namespace gpumeter::cli {
namespace {

// What the interpreter runs: the module's evaluate, or one line naming what it could not import.
// argv[1] is the interpreter's name for that line; evaluate's arguments follow it.
constexpr const char* kBootstrap =
    "import sys\n"
    "try:\n"
    "    from gpumeter._evaluate import main\n"
    "except ImportError as e:\n"
    "    sys.stderr.write('gpumeter evaluate: ' + sys.argv[1] + ' cannot import gpumeter (' +\n"
    "                     ' '.join(str(e).split()) + '): pip install gpumeter into it, '\n"
    "                     'or set GPUMETER_PYTHON to a Python that has it\\n')\n"
    "    sys.exit(2)\n"
    "sys.exit(main(sys.argv[2:]))\n";

int run_evaluate(Io& io, const std::vector<std::string>& args) {
  const std::string python = python_interpreter();
  const Spawned spawned = spawn_python(io, python, kBootstrap, args);
  if (spawned.pid < 0) {
    print_error(io, "evaluate",
                cannot_start_python(python, spawned.error,
                                    "evaluate runs Python candidates: install python3 and pip "
                                    "install gpumeter"));
    return kExitUsage;
  }
  try {
    return wait_for_child(spawned.pid).shell_code();
  } catch (const Error& e) {
    print_error(io, "evaluate", e.what());
    return kExitInternal;
  }
}

}  // namespace

Command add_evaluate_command(CLI::App& app) {
  auto args = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = app.add_subcommand(
      "evaluate",
      "Judge candidates against a reference, each in a process of its own on fresh inputs with "
      "its timed answers checked; one JSON line per candidate (faster, slower, no difference, "
      "wrong, refused, crashed, timeout, tampered). Run by the Python module "
      "($GPUMETER_PYTHON, default python3): `gpumeter evaluate --help` prints its options.");
  // Every argument, --help included, is the Python module's: one parser owns them.
  sub->set_help_flag();
  sub->prefix_command();
  sub->allow_extras();
  sub->footer(
      "Exit codes: 0 every candidate has a verdict (wrong, crashed and tampered ones included); "
      "1 a candidate was not measured for a cause not its own; 2 bad arguments, or Python or the "
      "module missing; 3 internal error.");
  CLI::App* raw = sub;
  return {sub, [args, raw](Io& io) {
            *args = raw->remaining();
            return run_evaluate(io, *args);
          }};
}

}  // namespace gpumeter::cli
