// The exit codes a program's --help lists (exit_help.hpp).
#include "gpumeter/exit_help.hpp"

#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpumeter/candidate_verdict.hpp"

namespace gpumeter {
namespace {

// The verdicts' names for a sentence: "a, b and c", `last` before the last one.
std::string verdict_names(const std::vector<Verdict>& verdicts, std::string_view last) {
  std::string out;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    if (i > 0) out += i + 1 == verdicts.size() ? " " + std::string(last) + " " : ", ";
    out += to_string(verdicts[i]);
  }
  return out;
}

}  // namespace

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
  // The answers that are no comparison's, by the core's rules: exit 0 includes them.
  std::vector<Verdict> answers;
  for (const Verdict v : kVerdicts) {
    if (!verdict_compares(v) && evaluation_exit_code({v}) == kExitOk) answers.push_back(v);
  }
  const std::string at_0 =
      "every candidate has a verdict (" + verdict_names(answers, "and") + " candidates included)";
  return exit_codes_help(
      {{kExitOk, at_0},
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

std::string evaluate_verdicts_help() {
  return verdict_names({std::begin(kVerdicts), std::end(kVerdicts)}, "or");
}

std::string plot_exit_codes_help() {
  return exit_codes_help({{kExitOk, "plots written"},
                          {kExitUsage,
                           "bad arguments, a record that cannot be read, nothing to draw, a file "
                           "that exists, or Python, the module or matplotlib missing or broken"},
                          {kExitInternal, "an internal error while drawing"}});
}

}  // namespace gpumeter
