#include "python_module.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpumeter/exit_codes.hpp"
#include "gpumeter/help_format.hpp"

namespace gpumeter::cli {

std::string python_interpreter() {
  const char* chosen = std::getenv(kPythonEnv);
  return chosen != nullptr && *chosen != '\0' ? chosen : "python3";
}

Spawned spawn_python(Io& io, const std::string& python, const char* bootstrap,
                     const std::vector<std::string>& args) {
  SpawnRequest request;
  request.argv = {python, "-c", bootstrap, python};
  request.argv.insert(request.argv.end(), args.begin(), args.end());
  io.out << std::flush;
  io.err << std::flush;
  return spawn(request);
}

std::string install_hint(const std::string& extra) {
  const std::string target =
      std::string(GPUMETER_SOURCE_DIR) + (extra.empty() ? "" : "[" + extra + "]");
  return "pip install '" + target + "' (the gpumeter checkout this command was built from)";
}

bool asks_for_help(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "-h" || a == "--help") return true;
  }
  return false;
}

int help_without_module(Io& io, const char* help, const std::string& why,
                        const std::string& extra) {
  io.out << help << "\n"
         << wrap_help_text("(" + why + ": " + install_hint(extra) + " to run it, or set " +
                           kPythonEnv + " to a Python that has it)")
         << "\n";
  return kExitOk;
}

std::string cannot_start_python(const std::string& python, int error, const std::string& purpose) {
  return "cannot start the Python interpreter '" + python + "' (" + std::strerror(error) +
         "): " + purpose + ", or set " + kPythonEnv + " to a Python that has it";
}

}  // namespace gpumeter::cli
