// `gpumeter evaluate`: the candidates are Python callables (or programs judged by their
// records), so the evaluation lives in the Python module; this command finds the interpreter,
// runs the module's evaluate with the arguments as given, and reports what is missing.
#include "evaluate.hpp"

#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/errors.hpp"
#include "gpumeter/exit_codes.hpp"
#include "gpumeter/exit_help.hpp"
#include "python_module.hpp"

namespace gpumeter::cli {
namespace {

// What the interpreter runs: the module's evaluate, or one line naming what it could not import.
// argv[1] is the interpreter's name for that line, argv[2] what installs the module, argv[3] a
// file it writes when it ends having run this (its report, kReportMark); evaluate's arguments
// follow them. `python -c` puts the current folder first on the import path: it is moved last
// before anything is imported, so a gpumeter/ a candidate wrote there is never this evaluate.
constexpr const char* kEvaluateBootstrap =
    "import sys\n"
    "if sys.path and sys.path[0] == '':\n"
    "    sys.path.append(sys.path.pop(0))\n"
    "try:\n"
    "    try:\n"
    "        from gpumeter._evaluate import main\n"
    "    except ImportError as e:\n"
    "        if '-h' in sys.argv[4:] or '--help' in sys.argv[4:]:\n"
    "            sys.exit(100)\n"
    "        sys.stderr.write('gpumeter evaluate: ' + sys.argv[1] + ' cannot import gpumeter (' +\n"
    "                         ' '.join(str(e).split()) + '): ' + sys.argv[2] + ', '\n"
    "                         'or set GPUMETER_PYTHON to a Python that has it\\n')\n"
    "        sys.exit(2)\n"
    "    sys.exit(main(sys.argv[4:]))\n"
    "finally:\n"
    "    with open(sys.argv[3], 'w') as f:\n"
    "        f.write('reported')\n";
// An interpreter that exits without running the bootstrap to its end (a program that is no
// Python, a Python that exits at once) printed nothing of evaluate's: without this mark its exit
// code, 0 included, says nothing about any candidate.
constexpr const char* kReportMark = "reported";

// The Python module's `gpumeter evaluate --help`, as its parser prints it (checked against it by
// tests/python/test_cli_help.py).
constexpr const char* kEvaluateHelp =
#include "evaluate_help.inc"
    ;

// A file for the bootstrap's mark, made empty here (removed when evaluate ends).
struct ReportFile {
  std::string path;
  ReportFile() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gpumeter-evaluate-XXXXXX").string();
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw Error("cannot create a temporary file for evaluate's report mark");
    close(fd);
    path = pattern;
  }
  ~ReportFile() { std::filesystem::remove(path); }
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;
  bool marked() const {
    std::ifstream in(path);
    std::string text;
    std::getline(in, text);
    return text == kReportMark;
  }
};

int run_evaluate(Io& io, const std::vector<std::string>& args) {
  const std::string python = python_interpreter();
  std::optional<ReportFile> report;
  try {
    report.emplace();
  } catch (const std::exception& e) {
    print_error(io, "evaluate", e.what());
    return kExitInternal;
  }
  std::vector<std::string> argv = {install_hint(""), report->path};
  argv.insert(argv.end(), args.begin(), args.end());
  const Spawned spawned = spawn_python(io, python, kEvaluateBootstrap, argv);
  if (spawned.pid < 0) {
    if (asks_for_help(args)) {
      return help_without_module(io, kEvaluateHelp,
                                 "the Python interpreter '" + python + "' cannot be started", "");
    }
    print_error(io, "evaluate",
                cannot_start_python(
                    python, spawned.error,
                    "evaluate runs Python candidates: install python3 and " + install_hint("")));
    return kExitUsage;
  }
  try {
    const ChildExit exit = wait_for_child(spawned.pid);
    if (!exit.signaled && exit.code == kHelpWithoutModule && asks_for_help(args)) {
      return help_without_module(io, kEvaluateHelp, "'" + python + "' cannot import gpumeter", "");
    }
    if (!report->marked()) {
      print_error(io, "evaluate",
                  "the Python interpreter '" + python + "' " +
                      (exit.signaled ? "was killed by signal " + std::to_string(exit.signal)
                                     : "exited with code " + std::to_string(exit.code)) +
                      " without evaluate's report: no candidate was judged (is it a Python "
                      "with gpumeter? set " +
                      kPythonEnv + " to one)");
      return kExitUsage;
    }
    return exit.shell_code();
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
      "its timed answers checked; one JSON line per candidate (" +
          evaluate_verdicts_help() +
          "). Run by the Python module ($GPUMETER_PYTHON, default python3): `gpumeter evaluate "
          "--help` prints its options.");
  // Every argument, --help included, is the Python module's: one parser owns them.
  sub->set_help_flag();
  sub->prefix_command();
  sub->allow_extras();
  sub->footer(evaluate_exit_codes_help());  // the module's own, from the one table
  CLI::App* raw = sub;
  return {sub, [args, raw](Io& io) {
            *args = raw->remaining();
            return run_evaluate(io, *args);
          }};
}

}  // namespace gpumeter::cli
