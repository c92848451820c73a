#pragma once
// The command-line manners of gpumeter's own programs: --version; a usage error is one line
// naming the problem and one pointing at --help, exit 2; --help and --version exit 0.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "gpumeter/exit_codes.hpp"
#include "gpumeter/help_format.hpp"
#include "gpumeter/version.hpp"

namespace gpumeter::testkit {

// Parses argv into `app`. Returns the exit code to return from main when parsing ended the
// program (help, version, a usage error), or nullopt to go on.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  const std::string name = app.get_name().empty() ? std::string("gpumeter") : app.get_name();
  use_wrapping_help(app);
  app.set_version_flag("--version", name + " (gpumeter " + std::string(gpumeter::version()) + ")");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::cerr << name << ": " << e.what() << "\nRun '" << name << " --help' for the options.\n";
    return gpumeter::kExitUsage;
  }
  return std::nullopt;
}

// Checks, before anything is measured, that the file `option` names can be written (a folder
// that is missing or read-only would otherwise fail the run at its end). Returns the exit code
// 2 after one line naming the option and why, or nullopt to go on. "" asks for no file.
inline std::optional<int> check_output_file(const CLI::App& app, const char* option,
                                            const std::string& path) {
  if (path.empty()) return std::nullopt;
  const bool existed = ::access(path.c_str(), F_OK) == 0;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::cerr << app.get_name() << ": " << option << " " << path << ": cannot write there ("
              << std::strerror(errno) << "); nothing was measured\n";
    return gpumeter::kExitUsage;
  }
  ::close(fd);
  if (!existed) ::unlink(path.c_str());
  return std::nullopt;
}

}  // namespace gpumeter::testkit
