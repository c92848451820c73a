#pragma once
// Subcommands whose work is the Python module's (`plot` draws with matplotlib, `evaluate` runs
// Python candidates): the one way they find the interpreter, start it and say it did not start.
#include <string>
#include <vector>

#include "cli.hpp"
#include "spawn.hpp"

namespace gpumeter::cli {

// The environment variable naming the Python interpreter, and the interpreter it names (default
// python3).
inline constexpr const char* kPythonEnv = "GPUMETER_PYTHON";
std::string python_interpreter();

// Starts `python -c bootstrap python args...` (argv[1] is the interpreter's name for the
// bootstrap's own messages), the command's output flushed first so the child's follows it.
Spawned spawn_python(Io& io, const std::string& python, const char* bootstrap,
                     const std::vector<std::string>& args);

// What installs the Python module, from this repository (the package named gpumeter on the
// public index is another project): "pip install '<checkout>'", the checkout this command was
// built from, with `extra` ("plot") as its extra when given. The one install hint of the C++
// commands; tests/structure/install_hints.sh fails on any that names the index's package.
std::string install_hint(const std::string& extra);

// Where the module cannot be imported, a bootstrap asked for --help exits with this code and says
// nothing: the command prints its copy of the module's help (help_without_module), so the help
// never depends on an install.
inline constexpr int kHelpWithoutModule = 100;

// Whether the arguments ask for help (-h or --help anywhere: the module's parser reads them so).
bool asks_for_help(const std::vector<std::string>& args);

// The module's help as the command keeps a copy of it (`help`, generated from the module's
// parser), then why the module did not print it and what installs it (`extra` as install_hint's).
int help_without_module(Io& io, const char* help, const std::string& why, const std::string& extra);

// The one line for an interpreter that could not be started (`error` from the spawn): `purpose`
// says what the command needs Python for and what to install.
std::string cannot_start_python(const std::string& python, int error, const std::string& purpose);

}  // namespace gpumeter::cli
