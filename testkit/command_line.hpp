#pragma once
// The command-line manners of gpumeter's own programs: --version; a usage error is one line
// naming the problem and one pointing at --help, exit 2; --help and --version exit 0.
#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <string>

#include "gpumeter/version.hpp"

namespace gpumeter::testkit {

// Parses argv into `app`. Returns the exit code to return from main when parsing ended the
// program (help, version, a usage error), or nullopt to go on.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  const std::string name = app.get_name().empty() ? std::string("gpumeter") : app.get_name();
  app.set_version_flag("--version", name + " (gpumeter " + std::string(gpumeter::version()) + ")");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::cerr << name << ": " << e.what() << "\nRun '" << name << " --help' for the options.\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace gpumeter::testkit
