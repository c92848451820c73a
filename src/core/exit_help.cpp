// The exit codes a program's --help lists (exit_help.hpp).
#include "gpumeter/detail/exit_help.hpp"

#include <stdexcept>

namespace gpumeter {

std::string_view exit_code_meaning(int code) {
  for (const ExitCodeMeaning& m : kExitCodeMeanings) {
    if (m.code == code) return m.meaning;
  }
  throw std::logic_error("exit code " + std::to_string(code) +
                         " is not in kExitCodeMeanings (exit_codes.hpp)");
}

std::string exit_codes_help(std::initializer_list<ExitCodeUse> uses) {
  std::string out = "Exit codes:";
  const char* separator = " ";
  for (const ExitCodeUse& use : uses) {
    const std::string_view meaning = exit_code_meaning(use.code);
    out += separator;
    out += use.code == kExitSignalBase ? "128+N" : std::to_string(use.code);
    out += ' ';
    out += use.when.empty() ? std::string(meaning) : std::string(use.when);
    separator = "; ";
  }
  return out + ".";
}

std::string evaluate_exit_codes_help() {
  return exit_codes_help(
      {{kExitOk,
        "every candidate has a verdict (wrong, refused, crashed, timed-out and tampered "
        "candidates included)"},
       {kExitFailed,
        "a candidate was not measured for a cause not its own (device busy, CUPTI unavailable, "
        "the reference or the input generator failed)"},
       {kExitUsage, "bad arguments, or Python or the module missing; nothing run"},
       {kExitInternal},
       {kExitNoDevice,
        "--timing cupti or events and no usable CUDA GPU, nothing run (without a GPU, the "
        "default --timing auto times the candidates on the host clock and says so on its first "
        "line)"}});
}

std::string plot_exit_codes_help() {
  return exit_codes_help({{kExitOk, "plots written"},
                          {kExitUsage,
                           "bad arguments, a record that cannot be read, nothing to draw, a file "
                           "that exists, or Python, the module or matplotlib missing or broken"},
                          {kExitInternal, "an internal error while drawing"}});
}

}  // namespace gpumeter
