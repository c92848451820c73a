#pragma once
// Registering an option of a table on a CLI11 app, from its meaning (option_meaning.hpp): the
// table's help with the program's default after it, and the number rule checked as every numeric
// option's is (number_option.hpp). The benchmark programs (src/benchmark/options.cpp) and the
// gpumeter command's subcommands (command_options.hpp) register every option this way, so an
// option's help and rule come from its one entry; the binding to a variable stays with the caller,
// where CLI11 needs it. Header only, as number_option.hpp: the benchmark runtime includes it.
#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "gpumeter/option_meaning.hpp"
#include "number_option.hpp"

namespace gpumeter {

// The help of an option: its meaning's, with the default a program gives it ("" for none).
inline std::string option_help(const OptionMeaning& meaning, const std::string& default_text = "") {
  return std::string(meaning.help) +
         (default_text.empty() ? "" : " (default " + default_text + ")");
}

namespace detail {

// A flag registered as an option with a value, or the other way: the caller's mistake, refused on
// the program's first run (and by the unit tests), never a help that says otherwise than CLI11.
inline void require_kind(std::string_view names, const OptionMeaning& meaning, bool takes_value) {
  if (meaning.takes_value != takes_value) {
    throw std::logic_error("the option " + std::string(names) + " is registered as " +
                           (takes_value ? "taking a value" : "a flag") +
                           " and its table says otherwise");
  }
}

// `option` checked by `meaning`'s number rule, where it has one, and refused empty: an empty
// value ("--precision ''", often an unset shell variable) names nothing, and was read as the
// option not given.
inline CLI::Option* with_rule(CLI::Option* option, const OptionMeaning& meaning) {
  check_not_empty(option);
  return meaning.rule != nullptr ? check_number(option, *meaning.rule) : option;
}

}  // namespace detail

// `names` ("--out", "-o,--output"), an option with a value bound to `into`.
template <class T>
CLI::Option* add_value_option(CLI::App& app, std::string_view names, const OptionMeaning& meaning,
                              T& into, const std::string& default_text = "") {
  detail::require_kind(names, meaning, true);
  return detail::with_rule(
      app.add_option(std::string(names), into, option_help(meaning, default_text)), meaning);
}

// `names`, an option with a value handed to `into` as text.
inline CLI::Option* add_value_function(CLI::App& app, std::string_view names,
                                       const OptionMeaning& meaning,
                                       std::function<void(const std::string&)> into,
                                       const std::string& default_text = "") {
  detail::require_kind(names, meaning, true);
  return detail::with_rule(app.add_option_function<std::string>(std::string(names), std::move(into),
                                                                option_help(meaning, default_text)),
                           meaning);
}

// `names`, a flag setting `into`; `note` ends its help ("" for none).
inline CLI::Option* add_flag_option(CLI::App& app, std::string_view names,
                                    const OptionMeaning& meaning, bool& into,
                                    const std::string& note = "") {
  detail::require_kind(names, meaning, false);
  return app.add_flag(std::string(names), into,
                      std::string(meaning.help) + (note.empty() ? "" : "; " + note));
}

}  // namespace gpumeter
