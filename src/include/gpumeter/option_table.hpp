#pragma once
// The benchmark programs' command-line options in one table: each option's name, what it is to a
// sweep (its role) and its meaning (whether it takes a value, its help and its number rule;
// option_meaning.hpp, shared with the gpumeter command's options). The programs register their
// options from it (src/benchmark/options.cpp), a sweep's identity and the case processes of
// --isolate read the roles from it (shard.cpp, isolate.cpp): two lists of the same options once
// disagreed, and merge refused shards run with different --timeout.
#include <span>
#include <string_view>

#include "gpumeter/option_meaning.hpp"

namespace gpumeter {

// What a benchmark program's command-line option is to a sweep and to the processes a program
// starts.
enum class OptionRole {
  identity,    // what is measured and how: shards differing in it are not one sweep
  task,        // each task's own (--shard, --device, --devices): not the sweep's identity
  output,      // where and how results are printed: the parent's alone, not the identity
  wait,        // how long the parent waits (--timeout, --lock-timeout): the parent's alone
  conditions,  // how the parent runs its cases (--isolate, --no-lock, --allow-contended): the
               // parent's alone, and the sweep's identity (they change what a reading means)
  internal,    // --gpumeter-*: given by a program to the processes it starts
};

struct ProgramOption {
  std::string_view name;  // "--budget"
  OptionRole role;
  // Whether it takes a value, its help and its number rule; an option that other programs have
  // too is their one meaning (option_meaning.hpp). The help is empty for the hidden internal
  // options.
  OptionMeaning meaning;
};

// Every option of a benchmark program, in --help's order (CLI11's own --help aside).
std::span<const ProgramOption> program_options();

// The entry of `argument` (`--name` or `--name=value`), or nullptr when the table has none.
const ProgramOption* find_program_option(std::string_view argument);

// The role of one argument (`--name`, `--name=value` or a value); identity for any other.
OptionRole option_role(std::string_view argument);
// Whether an option of the table takes the next argument as its value, given as --name without
// =value.
bool option_takes_value(std::string_view name);
// Whether a case's process (--isolate) is started without the option: the parent's alone.
bool parent_only(OptionRole role);

}  // namespace gpumeter
