#pragma once
// The options of the gpumeter command's subcommands in one table: for each subcommand, the names
// of its options and what each means (option_meaning.hpp: whether it takes a value, its help, the
// rule of its number). An option that means what another program's does (a device index, the
// lock's wait, --allow-contended, --csv) names that one meaning, which the benchmark programs'
// table (option_table.hpp) names too. The table is the command's alone, so it lives here with
// CLI11 beside it; the meanings it shares are the core's, where the programs' table is. Every
// subcommand registers its options from it (add_command_option, add_command_flag), and
// test_command_options.cpp checks that what CLI11 holds is this table, so an option added beside
// it fails there.
#include <CLI/CLI.hpp>

#include <span>
#include <string>
#include <string_view>

#include "gpumeter/option_meaning.hpp"
#include "table_option.hpp"

namespace gpumeter::cli {

struct CommandOption {
  std::string_view names;  // as CLI11 is given them: "--device", "-o,--output"
  OptionMeaning meaning;
};

struct CommandOptions {
  std::string_view command;                // "lock"
  std::span<const CommandOption> options;  // in --help's order; empty for none
};

// Every subcommand's options, in `gpumeter --help`'s order of the subcommands.
std::span<const CommandOptions> command_options();

// The entry of `command`'s option `names`; throws std::logic_error when the table has none: the
// registration's mistake, refused on the command's first run and by the unit test.
const CommandOption& command_option(std::string_view command, std::string_view names);

// `sub`'s option `names`, an option with a value bound to `into`, with its entry's help (and
// `default_text` after it) and number rule.
template <class T>
CLI::Option* add_command_option(CLI::App& sub, std::string_view names, T& into,
                                const std::string& default_text = "") {
  return add_value_option(sub, names, command_option(sub.get_name(), names).meaning, into,
                          default_text);
}

// `sub`'s option `names`, a flag setting `into`, with its entry's help.
inline CLI::Option* add_command_flag(CLI::App& sub, std::string_view names, bool& into) {
  return add_flag_option(sub, names, command_option(sub.get_name(), names).meaning, into);
}

}  // namespace gpumeter::cli
