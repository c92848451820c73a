#pragma once
// Every error gpumeter names, by what it says about the work (the one table every front end reads:
// a record's row status, `gpumeter evaluate`'s verdicts, the Python module).
#include <string_view>
#include <vector>

namespace gpumeter {

enum class ErrorClass {
  // The work's answer is wrong, or it changed its inputs: it ran, and what it did is not the work.
  wrong,
  // The work ran, but what ran cannot be timed as the call's own: work launched elsewhere, moved
  // out of the call, hidden from the collection, or an answer that runs code when read.
  refused,
  // Nothing about the work: the device, CUPTI, the clock, the records; the same work may well
  // measure elsewhere or later.
  not_measured,
  // The case's own code or set-up: an exception of the user's, a CUDA error, a bad argument, a
  // program that did not run as asked.
  failed,
};

// "wrong", "refused", "not measured", "failed".
std::string_view to_string(ErrorClass error_class);

struct ErrorEntry {
  std::string_view name;  // error_name() of errors.hpp: "VerificationFailed", ...
  ErrorClass error_class;
};

// Every error class errors.hpp defines, by name.
const std::vector<ErrorEntry>& error_table();

// The class of an error by its name; a name this version does not know is `failed`.
ErrorClass error_class_of(std::string_view error_name);

}  // namespace gpumeter
