#pragma once
// What a command-line option means, apart from its name: whether it takes a value, its help and
// the rule of its number. An option that several programs have (a device index in the benchmark
// programs, `gpumeter env` and `gpumeter lock`; the lock's wait; --csv) is written here once and
// named by each program's table (option_table.hpp for the benchmark programs, src/cli's
// command_options.cpp for the gpumeter command): copies of one help once drifted apart, as did
// the number rules attached at each registration.
#include <string_view>

#include "gpumeter/detail/number_rule.hpp"
#include "gpumeter/detail/record_comparison.hpp"  // kGateThresholdRule

namespace gpumeter {

struct OptionMeaning {
  bool takes_value;  // false: a flag
  // What --help says of it; a program adds the default where one is its own (" (default 600)").
  std::string_view help;
  // The rule its value is checked by, where the value is a number checked where it is parsed;
  // nullptr for any other (a flag, a name, a number with a parser of its own such as --budget).
  const NumberRule* rule = nullptr;

  friend constexpr bool operator==(const OptionMeaning&, const OptionMeaning&) = default;
};

// A CUDA device to use, by index.
inline constexpr OptionMeaning kDeviceIndexOption{true, "CUDA device index", &kDeviceIndex};
// Going ahead on a device other processes use. The benchmark programs' and `gpumeter lock`'s
// helps once said it apart ("Measure even..." and "Run even..."); this says what both do.
inline constexpr OptionMeaning kAllowContendedOption{
    false,
    "Go ahead even when other processes use the device: the records made then are marked "
    "contended"};
// The wait for another run's device lock (a benchmark program's --lock-timeout, `gpumeter lock
// --timeout`).
inline constexpr OptionMeaning kLockWaitOption{
    true, "Seconds to wait for another run's device lock before giving up", &kWaitSeconds};
// Where a run's record is written; each program adds its own default.
inline constexpr OptionMeaning kRecordDirectoryOption{true, "Directory for the record"};
// The table formats of every program that prints a table of records (table_format_option.hpp).
inline constexpr OptionMeaning kCsvOption{false, "Print the table as CSV (every column)"};
inline constexpr OptionMeaning kWideOption{
    false,
    "Every column in the markdown table; by default it holds the columns a reader decides with "
    "(the record and CSV always hold them all)"};

// Options several front ends offer by one meaning, each once (each had two helps, which had
// drifted apart). The binding
// exports them (option_meanings()); the pytest plugin, which must not import the extension when
// pytest reads its options, takes them from gpumeter_pytest/_option_help.py, written from that
// export when the package is built.
// CUPTI's fallback: a benchmark program's, the main job's.
inline constexpr OptionMeaning kAllowEventsFallbackOption{
    false, "Time with device-events when kernel-records cannot be taken (rows say so)"};
// A task's part of the work: a benchmark program's cases, `gpumeter evaluate`'s candidates.
inline constexpr OptionMeaning kShardOption{
    true,
    "K/N: run shard K (from 0) of N of the selected cases (of gpumeter evaluate: the "
    "candidates), dealt the same way in every task, a case's implementations together; all: "
    "every one. By default a Slurm array task's or a Kubernetes indexed Job's index "
    "(docs/cluster.md)"};
// Copies and fills as device time: `gpumeter run`, `gpumeter evaluate`.
inline constexpr OptionMeaning kCountCopiesOption{
    false, "Copies and fills (memcpy, memset) count as device time too"};

// The gate: `gpumeter compare --fail-on-regression`, the pytest plugin's
// --gpumeter-fail-on-regression: one meaning, one rule (kGateThresholdRule and gate_options,
// record_comparison.hpp).
inline constexpr OptionMeaning kGateThresholdOption{
    true,
    "Fail when a row is slower than the baseline by more than this fraction (10% or 0.1), with "
    "the confidence of its interval, or when a row is missing from either side, a case failed, a "
    "record is partial or no row is in both (compare exits 1; pytest fails the test)",
    &kGateThresholdRule};
// What the gate lets pass when asked (gate_options' allow_missing, record_comparison.hpp; it needs
// the threshold).
inline constexpr OptionMeaning kAllowMissingOption{
    false,
    "With the regression gate: let rows missing from either side, failed cases, partial records "
    "and no row in common pass it (the output still names them)"};

}  // namespace gpumeter
