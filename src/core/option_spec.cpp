// The options every front end offers by one meaning (option_spec.hpp).
#include "gpumeter/option_spec.hpp"

#include <stdexcept>

#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/format.hpp"

namespace gpumeter {

const std::vector<OptionSpec>& option_specs() {
  // The defaults are the core's own values, so --help cannot say another.
  static const std::vector<OptionSpec> specs{
      {"--timing", "timing", "NAME", kTimingOption, "auto"},
      {"--budget", "budget", "WARMUP_MS,MEASURE_MS", kBudgetOption,
       format_shortest(to_ms(kMeasureBudget.warmup_ns)) + "," +
           format_shortest(to_ms(kMeasureBudget.measure_ns))},
      {"--precision", "precision", "P", kPrecisionOption, ""},
      {"--max-time", "max_time_s", "T", kMaxTimeOption,
       format_shortest(to_ms(PrecisionTarget{}.max_time_ns) / 1e3) + "s"},
      // Device 0 where none is named, as CUDA's own default device.
      {"--device", "device", "N", kDeviceIndexOption, "0"},
      // Where the records go: each front end has its own folder (the benchmark programs' and the
      // main job's gpumeter-results, evaluate's gpumeter-evaluate), so no default here.
      {"--out", "", "DIR", kRecordDirectoryOption, ""},
  };
  return specs;
}

const OptionSpec& option_spec(std::string_view name) {
  for (const OptionSpec& s : option_specs()) {
    if (s.name == name) return s;
  }
  throw std::logic_error("no shared option " + std::string(name) + " (option_spec.cpp)");
}

BudgetValue read_budget(std::string_view name, std::string_view text) {
  BudgetValue out;
  const auto comma = text.find(',');
  if (comma == std::string_view::npos) {
    out.problem = std::string(name) + " must be WARMUP_MS,MEASURE_MS (e.g. 25,100), got '" +
                  std::string(text) + "'";
    return out;
  }
  const auto part = [&](std::string_view t, const char* which, double& into) {
    const std::string problem = number_problem(std::string(name) + "'s " + which, t, kBudgetMsRule);
    if (!problem.empty() && out.problem.empty()) out.problem = problem;
    into = read_number(t, kBudgetMsRule).value;
  };
  part(text.substr(0, comma), "warm-up", out.warmup_ms);
  part(text.substr(comma + 1), "measurement", out.measure_ms);
  return out;
}

}  // namespace gpumeter
