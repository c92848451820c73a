#pragma once
// The exit codes a program's --help lists, made from the one table (exit_codes.hpp): each program
// names the codes it exits with and, where one means more for it, what; the numbers and the
// general meanings are the table's. `gpumeter evaluate` and `gpumeter plot` are run by the Python
// module and described by the C++ command too: their lists are here, so both say the same.
#include <initializer_list>
#include <string>
#include <string_view>

#include "gpumeter/exit_codes.hpp"

namespace gpumeter {

// One code a program exits with: `when` says what it is for that program ("" for the table's
// meaning alone, which follows it otherwise in parentheses where the program's own text does
// not say it).
struct ExitCodeUse {
  int code;
  std::string_view when = {};
};

// "Exit codes: 0 <when>; 2 <when>; 3 an internal error." in the order given; kExitSignalBase is
// shown as 128+N. Throws std::logic_error for a code the table lacks.
std::string exit_codes_help(std::initializer_list<ExitCodeUse> uses);

// The table's meaning of `code`; throws std::logic_error for a code it lacks.
std::string_view exit_code_meaning(int code);

// `gpumeter evaluate`'s and `gpumeter plot`'s, for the C++ command's help and the module's.
std::string evaluate_exit_codes_help();
// Every verdict `gpumeter evaluate` gives, by the core's names ("faster, slower, ... or not
// measured"): the C++ command's description names them from here; a list typed by hand had left
// one out.
std::string evaluate_verdicts_help();
std::string plot_exit_codes_help();

}  // namespace gpumeter
