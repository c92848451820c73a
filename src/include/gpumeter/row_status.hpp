#pragma once
// What became of a row of a record (P10): measured, or which kind of nothing, and why. CSV says
// it of every row; `gpumeter compare` says it of every row it could not set against its other
// side.
#include <cstddef>
#include <string>
#include <string_view>

#include "gpumeter/record.hpp"

namespace gpumeter {

// The names a benchmark program gives a case it could not measure, beside the library's errors
// (error_name in errors.hpp): the benchmark skipped it, its process (--isolate) died or left no
// record, or it ran past --timeout.
inline constexpr const char* kSkippedFailure = "Skipped";
inline constexpr const char* kCrashedFailure = "Crashed";
inline constexpr const char* kTimeoutFailure = "Timeout";

enum class RowStatus {
  ok,            // measured, and its times stand
  skipped,       // the benchmark skipped the case (it said why)
  failed,        // the case's own work failed: its check, its code, a CUDA error, the null test
  crashed,       // its process died or left no readable record (--isolate)
  timed_out,     // its process ran past --timeout and was killed
  not_measured,  // the work ran but gpumeter could not stand behind a time for it (records lost,
                 // work from another thread, an iteration that ran nothing, another clock...)
};

// "ok", "skipped", "failed", "crashed", "timed out", "not measured".
std::string_view to_string(RowStatus status);

// A failure's status, by its error's name; a name this version does not know reads "failed".
RowStatus status_of(const Failure& failure);
// A result's: ok, or failed when its null test failed (its times are not shown, P6), as its
// finished result holds it.
RowStatus status_of(const Result& result);

// Why, in one line: "VerificationFailed: ..." for a failure; for a result whose null test failed,
// "null test: " and its outcome; "" for an ok result.
std::string error_of(const Failure& failure);
std::string error_of(const Result& result);

// A row's flags (RowFlags, gpumeter/detail/row_flags.hpp) are decided here, from its numbers and
// its record's highest clock, and only where a record is finished (finish_record) or read: every
// front end reads the flags its result holds.
//
// The highest SM clock any row of `record` ran at (B4's reference for low_clock), 0 when none
// was read.
int highest_clock(const Record& record);
// `result`'s flags in a record whose highest clock is `record_highest_mhz` (highest_clock). Called
// by finish_record alone (tests/structure/one_of_each.sh).
RowFlags row_flags(const Result& result, int record_highest_mhz);

// For people, in one line: the status, then why, without saying the runtime's own names twice:
// "crashed: the case's process was killed by signal 9 (Killed)", "skipped: needs bf16",
// "failed: VerificationFailed: output 3 differs...".
std::string describe(const Failure& failure);

}  // namespace gpumeter
