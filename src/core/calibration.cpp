#include "gpumeter/detail/calibration.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "gpumeter/detail/summary.hpp"
#include "gpumeter/run_target.hpp"

namespace gpumeter {

bool budget_ms_valid(double ms) {
  return kBudgetMsRange.contains(ms);  // false for NaN
}

Budget comparison_pass_budget(const Budget& whole) {
  return Budget{whole.warmup_ns / 2, whole.measure_ns / 2, whole.min_iterations / 2,
                whole.max_iterations / 2};
}

std::size_t iterations_for(Nanos budget_ns, Nanos estimate_ns, std::size_t lo, std::size_t hi) {
  if (lo > hi) throw std::invalid_argument("iterations_for: lower bound above upper bound");
  if (estimate_ns <= 0) return hi;
  const Nanos n = std::max<Nanos>(budget_ns, 0) / estimate_ns;
  return std::clamp(static_cast<std::size_t>(n), lo, hi);
}

Nanos estimate_call(const std::vector<Sample>& calibration) {
  if (calibration.empty()) throw std::invalid_argument("estimate_call: no calibration samples");
  std::vector<double> latency;
  latency.reserve(calibration.size());
  for (const Sample& s : calibration) latency.push_back(static_cast<double>(s.latency_ns));
  return static_cast<Nanos>(quantile(latency, 0.5));
}

}  // namespace gpumeter
