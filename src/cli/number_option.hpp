#pragma once
// The check of every numeric command-line option of gpumeter's programs (the gpumeter command,
// every benchmark program, the main job and the bench tools), on CLI11: a wrong value is one line
// naming the option, its rule and what was given (the core's reader and words,
// gpumeter/detail/number_rule.hpp), "--timeout must be > 0 s, got 0", and a usage error (exit
// 2). CLI11's own range checks print the bounds of a double: "Value -5 not in range 0.000000 to
// 17976931348623157...", a 309-digit number.
#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <utility>

#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/number_rule.hpp"

namespace gpumeter {

// A wrong value of a numeric option, said in number_problem's words. A CLI11 parse error that
// CLI11 does not rewrite (it prefixes a validator's own message with the option's name again).
class OptionValueError : public CLI::ParseError {
 public:
  explicit OptionValueError(std::string message)
      : CLI::ParseError(std::move(message), CLI::ExitCodes::ValidationError) {}
};

// The value of `text` under `rule`, in the rule's unit (read_number); throws OptionValueError
// naming `name` when it is wrong.
inline double parse_number_option(std::string_view name, std::string_view text,
                                  const NumberRule& rule) {
  if (std::string problem = number_problem(name, text, rule); !problem.empty()) {
    throw OptionValueError(std::move(problem));
  }
  return read_number(text, rule).value;
}

// An empty value ("--precision ''", often an unset shell variable) names nothing, and was read as
// the option not given: refused by the option's name.
inline std::string empty_value_problem(const std::string& name) {
  return name + ": is empty (give it a value, or leave it out)";
}

// Refuses an empty value of `option` by the option's name: "--precision: is empty (...)".
inline CLI::Option* check_not_empty(CLI::Option* option) {
  const std::string name = option->get_name();
  option->check(CLI::Validator(
      [name](std::string& text) {
        if (text.empty()) throw OptionValueError(empty_value_problem(name));
        return std::string();
      },
      ""));
  return option;
}

// Checks `option`'s value by `rule` before CLI11 converts it, and hands CLI11 the value in the
// rule's unit ("500ms" as 0.5, "2%" as 0.02), so a program reads its variable in that unit
// whatever the user wrote; returns the option. A transform runs before every check: it refuses an
// empty value by name itself.
inline CLI::Option* check_number(CLI::Option* option, const NumberRule& rule) {
  const std::string name = option->get_name();
  option->transform(CLI::Validator(
      [name, rule](std::string& text) {
        if (text.empty()) throw OptionValueError(empty_value_problem(name));
        const double value = parse_number_option(name, text, rule);
        if (rule.kind != NumberKind::plain) text = format_shortest(value);
        return std::string();
      },
      number_rule_text(rule)));
  return option;
}

}  // namespace gpumeter
