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
// A result's: ok, or failed when its null test failed (its times are not shown, P6).
RowStatus status_of(const Result& result);

// Why, in one line: "VerificationFailed: ..." for a failure; for a result whose null test failed,
// "null test: " and its outcome; "" for an ok result.
std::string error_of(const Failure& failure);
std::string error_of(const Result& result);

// The flags of a row, decided here from its numbers (the samples' clocks, the records' retries,
// the copies' and the work's medians), never from the values a table prints; reporters only
// word them (the narrow table's flags column and its legend, the clock notes).
struct RowFlags {
  std::size_t clock_flagged = 0;  // B4: samples that may have run slower for their SM clock
  bool low_clock = false;         // B4: the whole row ran below the record's highest clock
  int retries = 0;                // phases measured again after activity records were lost
  // The call also ran copies or fills, which device_busy does not count (only where the timing
  // sees kernels: a clock around the whole call counts them already).
  bool uncounted_copy = false;
  // B11: those copies took longer than the work they are left out of: the time may not be the
  // work's (an answer copied in). Implies uncounted_copy.
  bool copy_exceeds_busy = false;
  bool drops_unproven = false;  // the collector's drop counter was not live: a loss unseen
  // The host clock read the call at or under its floor: the row measures the call's overhead,
  // not work (host_clock.hpp, measures_call_overhead).
  bool call_overhead = false;
};
// The highest SM clock any row of `record` ran at (B4's reference for low_clock), 0 when none
// was read.
int highest_clock(const Record& record);
// `result`'s flags in a record whose highest clock is `record_highest_mhz` (highest_clock).
RowFlags row_flags(const Result& result, int record_highest_mhz);

// For people, in one line: the status, then why, without saying the runtime's own names twice:
// "crashed: the case's process was killed by signal 9 (Killed)", "skipped: needs bf16",
// "failed: VerificationFailed: output 3 differs...".
std::string describe(const Failure& failure);

}  // namespace gpumeter
