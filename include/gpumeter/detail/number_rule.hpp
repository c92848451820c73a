#pragma once
// What a numeric command-line option accepts, as data: the bounds, whether it must be whole, and
// its unit. The option tables name the rule of each numeric option (option_meaning.hpp), so the
// rule is written once with the option's help; the check that applies it and words a wrong value
// is the command line's (src/cli/number_option.hpp).
#include <limits>

namespace gpumeter {

// 10^7 s is 116 days: beyond any wait a user means, and small enough that the deadline it
// makes stays far inside the steady clock's range.
inline constexpr double kMaxOptionSeconds = 1e7;

// What a numeric option accepts: a finite number from `min` (or above it, when min_excluded)
// to `max`, whole when `integer`, read in `unit` (" s", "%", "": the text after the number in
// messages).
struct NumberRule {
  double min = 0;
  bool min_excluded = false;
  double max = std::numeric_limits<double>::infinity();
  bool integer = false;
  const char* unit = "";
};

// A wait that may be 0 (try once): --lock-timeout, gpumeter lock --timeout, --idle-timeout.
inline constexpr NumberRule kWaitSeconds{0, false, kMaxOptionSeconds, false, " s"};
// A limit that must leave time to run: --timeout.
inline constexpr NumberRule kLimitSeconds{0, true, kMaxOptionSeconds, false, " s"};
// A limit on a process that starts Python, imports its code and measures (gpumeter evaluate's
// --timeout): under a second no candidate's process could start an interpreter and measure one
// budget before it is killed, so every candidate would read as timed out, a verdict of the limit
// and not of its code. Infinite is refused as everywhere: a limit that never ends is no limit.
inline constexpr NumberRule kProcessLimitSeconds{1, false, kMaxOptionSeconds, false, " s"};
// A CUDA device index (whether it exists is the device's to say).
inline constexpr NumberRule kDeviceIndex{0, false, std::numeric_limits<int>::max(), true, ""};
// A percent threshold: --fail-on-regression, within the gate's own bounds (kMinGateThresholdPct
// and kMaxGateThresholdPct, which gate_options checks; record_comparison.cpp asserts they agree).
inline constexpr NumberRule kPercentThreshold{0, false, 10000, false, "%"};
// A count of things to do, at least one: iterations, repetitions.
inline constexpr NumberRule kPositiveCount{1, false, std::numeric_limits<int>::max(), true, ""};

}  // namespace gpumeter
