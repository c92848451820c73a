#pragma once
// The check of every numeric command-line option of gpumeter's programs (the gpumeter command,
// every benchmark program, the main job and the bench tools): a wrong value is one line naming
// the option, its rule (gpumeter/detail/number_rule.hpp) and what was given, "--timeout must be
// > 0 s, got 0", and a usage error (exit 2). CLI11's own range checks print the bounds of a
// double: "Value -5 not in range 0.000000 to 17976931348623157...", a 309-digit number.
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "gpumeter/detail/number_rule.hpp"

namespace gpumeter {

// A bound as a user would write it: 0, 10000000, 2147483647, 0.5.
inline std::string bound_text(double v) {
  char text[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(text, sizeof text, "%.0f", v);
  } else {
    std::snprintf(text, sizeof text, "%g", v);
  }
  return text;
}

// Whether `text` is a decimal number as a user writes one: an optional sign, digits with at most
// one '.', an optional exponent ("2.5", "-1", "1e7", ".5"). strtod also reads hex ("0x10" is 16),
// "inf", "nan" and leading spaces: none of them is a value a user means by a threshold or a time.
inline bool decimal_syntax(std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

// "" when `text` is a value `rule` accepts; otherwise the line that says why, naming `name`.
inline std::string number_problem(std::string_view name, std::string_view text,
                                  const NumberRule& rule) {
  const std::string lower =
      std::string(rule.min_excluded ? "> " : ">= ") + bound_text(rule.min) + rule.unit;
  const std::string got = ", got '" + std::string(text) + "'";
  double v = 0;
  if (rule.integer) {
    long long whole = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), whole);
    if (ec == std::errc::result_out_of_range && end == text.data() + text.size()) {
      // A whole number beyond a long long: out of range on its side.
      v = text.front() == '-' ? -std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::infinity();
    } else if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
      return std::string(name) + " must be an integer " + lower + got;
    } else {
      v = static_cast<double>(whole);
    }
  } else {
    const std::string copy(text);
    char* end = nullptr;
    v = std::strtod(copy.c_str(), &end);
    if (!decimal_syntax(text) || end != copy.c_str() + copy.size() || !std::isfinite(v)) {
      return std::string(name) + " must be a number " + lower + got;
    }
  }
  const bool low = rule.min_excluded ? !(v > rule.min) : !(v >= rule.min);
  if (low) return std::string(name) + " must be " + lower + ", got " + std::string(text);
  if (v > rule.max) {
    return std::string(name) + " must be at most " + bound_text(rule.max) + rule.unit + ", got " +
           std::string(text);
  }
  return {};
}

// A wrong value of a numeric option, said in number_problem's words. A CLI11 parse error that
// CLI11 does not rewrite (it prefixes a validator's own message with the option's name again).
class OptionValueError : public CLI::ParseError {
 public:
  explicit OptionValueError(std::string message)
      : CLI::ParseError(std::move(message), CLI::ExitCodes::ValidationError) {}
};

// The value of `text` under `rule`; throws OptionValueError naming `name` when it is wrong.
inline double parse_number_option(std::string_view name, std::string_view text,
                                  const NumberRule& rule) {
  if (std::string problem = number_problem(name, text, rule); !problem.empty()) {
    throw OptionValueError(std::move(problem));
  }
  return std::strtod(std::string(text).c_str(), nullptr);
}

// Refuses an empty value of `option` by the option's name: "--precision: is empty (...)".
inline CLI::Option* check_not_empty(CLI::Option* option) {
  const std::string name = option->get_name();
  option->check(CLI::Validator(
      [name](std::string& text) {
        if (text.empty())
          throw OptionValueError(name + ": is empty (give it a value, or leave it out)");
        return std::string();
      },
      ""));
  return option;
}

// Checks `option`'s value by `rule` before CLI11 converts it; returns the option.
inline CLI::Option* check_number(CLI::Option* option, const NumberRule& rule) {
  const std::string name = option->get_name();
  const std::string type =
      std::string(rule.min_excluded ? "> " : ">= ") + bound_text(rule.min) + rule.unit;
  option->check(CLI::Validator(
      [name, rule](std::string& text) {
        (void)parse_number_option(name, text, rule);
        return std::string();
      },
      type));
  return option;
}

}  // namespace gpumeter
