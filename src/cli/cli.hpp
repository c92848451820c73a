#pragma once
// The gpumeter command (B2): a CLI11 app with one subcommand per file. A subcommand registers its
// options from the command's option table (command_options.hpp) and returns the action to run when
// it was chosen, so a new one (compare, env, lock) adds a file, one line in cli.cpp and its entry
// in command_options.cpp.
#include <functional>
#include <ostream>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "gpumeter/exit_codes.hpp"

namespace gpumeter::cli {

struct Io {
  std::ostream& out;
  std::ostream& err;
};

struct Command {
  CLI::App* app = nullptr;      // the subcommand, owned by the parent app
  std::function<int(Io&)> run;  // runs only when this subcommand was parsed
};

// Adds every subcommand to `app`, in --help's order; the unit tests read what each registered.
std::vector<Command> add_commands(CLI::App& app);

// Parses argv, runs the chosen subcommand and returns the process exit code. Never throws.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// One line on stderr, "gpumeter <command>: <message>", newlines in the message flattened and
// other controls escaped (inert_text), so a failure reads as one harmless line in a log.
void print_error(Io& io, std::string_view command, std::string_view message);

}  // namespace gpumeter::cli
