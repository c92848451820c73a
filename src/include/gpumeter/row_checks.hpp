#pragma once
// What a record's row can hold, judged by how it was measured (docs/rules.md, P4 and T4). A
// value the row's timing method or device cannot measure, or iteration counts the run's budget
// cannot give, is a record altered after it was written: the record reader refuses it, so no
// table shows a number nothing measured.
#include <string>

#include "gpumeter/detail/device.hpp"
#include "gpumeter/record.hpp"

namespace gpumeter {

// "" when `result` holds only what its timing method on `device` measures; else the first value
// it holds that they cannot have measured, and why. A method that times one interval around each
// call (host-clock, device-events) counts no kernel and no copy, has no gap between the two ends of
// the interval and repeats no phase (only CUPTI loses records or changes its clock); the host CPU
// is timed by its own clock only (no kernel records, no device events), and has no SM clock and
// no GPU memory; no device holds more memory than it has.
std::string unmeasurable_value(const Result& result, const DeviceIdentity& device);

// "" when the row's warm-up and measured iteration counts are ones its run's budget can have
// given; else why not. Each pass calibrates its own estimate and derives both counts from it
// (iterations_for), so the first pass, whose estimate the row keeps, is checked exactly and each
// later pass's warm-up is bounded by the estimates its measured count allows. A program's
// instances (schedule "program") are not budgeted, and a row of one pass keeps no boundaries
// to check (older records): "" for both.
std::string iteration_count_problem(const Result& result, const RunConfig& config);

}  // namespace gpumeter
