#pragma once
// The options every front end offers by one meaning, each one spec: its name, its meaning (help,
// and the rule its value is read by: number_rule.hpp's unit and reader), how its value is shown
// in a usage line, and its default (--timing, --budget, --precision, --max-time, --device,
// --out). The benchmark programs' option table (option_table.hpp), the
// main job (gpumeter-example), the Python module (its keyword) and `gpumeter evaluate` (whose
// parser is built from option_specs(), exported by the binding) take these, so `--precision 2%`,
// `--precision 0.02` and Python's `precision=0.02` are one target wherever they are written, and
// `--max-time 10s` one cap. A front end words its refusals in its own names only.
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/option_meaning.hpp"
#include "gpumeter/run_target.hpp"

namespace gpumeter {

// A run to a target precision instead of a fixed budget (precision.hpp).
inline constexpr OptionMeaning kPrecisionOption{
    true,
    "Measure in rounds until the comparisons resolve this relative difference (a lone "
    "implementation: until its level is within it), or --max-time; a fraction, 1% or 0.01; "
    "instead of --budget",
    &kPrecisionTargetRule};
// Its cap; the default is the core's (PrecisionTarget::max_time_ns).
inline constexpr OptionMeaning kMaxTimeOption{
    true, "The cap of a run to --precision: 10s, 500ms or bare seconds", &kPrecisionTimeRule};
// A fixed budget, each part by kBudgetMsRule (read_budget).
inline constexpr OptionMeaning kBudgetOption{
    true, "WARMUP_MS,MEASURE_MS: each implementation's warm-up and measurement budget, in ms"};
// The timing a front end that runs its work on the device it finds (the main job, `gpumeter
// evaluate`) is asked for, by the session's names (kTimingNames). The benchmark programs time GPU
// work on the GPU or say why not, so their --timing has no auto (option_table.cpp).
inline constexpr OptionMeaning kTimingOption{
    true,
    "auto (kernel-records where a GPU is usable, else host-clock, said on the first line), cupti "
    "(short for kernel-records: device time from the device's record of each kernel; without a "
    "usable GPU the program exits 5), events (short for device-events: a device event pair per "
    "call) or host (short for host-clock: the host clock); the full names are taken too"};

struct OptionSpec {
  std::string_view name;         // as a command line spells it: "--precision"
  std::string_view python_name;  // the Python API's keyword: "precision"; "" for none (--out)
  std::string_view metavar;      // the value in a usage line: "P"
  OptionMeaning meaning;
  std::string default_text;  // what --help says after "default"; "" for none
};

// The shared options, in --help's order: --timing, --budget, --precision, --max-time, --device,
// --out. A spec without a default (--out) takes the front end's own, which its help states.
const std::vector<OptionSpec>& option_specs();
// The spec named `name` ("--precision"); throws std::logic_error for a name it lacks (a front
// end's mistake, refused on its first run and by the unit tests).
const OptionSpec& option_spec(std::string_view name);

// A budget as a command line writes it, "WARMUP_MS,MEASURE_MS": each part by kBudgetMsRule.
struct BudgetValue {
  double warmup_ms = 0;
  double measure_ms = 0;
  std::string problem;  // "" when valid; else one line naming `name` and the part at fault
  bool ok() const { return problem.empty(); }
};
BudgetValue read_budget(std::string_view name, std::string_view text);

}  // namespace gpumeter
