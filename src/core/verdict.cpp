#include "gpumeter/verdict.hpp"

#include <cmath>
#include <stdexcept>

#include "gpumeter/format.hpp"

namespace gpumeter {

std::string to_string(Resolution resolution) {
  return resolution == Resolution::directional_difference
             ? "directional difference"
             : "no measured difference at this precision";
}

RatioVerdict compare_times(double baseline_ns, double candidate_ns) {
  if (!(baseline_ns > 0) || !(candidate_ns > 0)) {
    throw std::invalid_argument("compare_times: times must be positive");
  }
  RatioVerdict v;
  v.speedup = baseline_ns / candidate_ns;
  const bool faster = candidate_ns <= baseline_ns;
  // The factor is always >= 1 and computed by one division, so the threshold is the same
  // in both directions (no 1/1.5 round trip).
  const double factor = faster ? baseline_ns / candidate_ns : candidate_ns / baseline_ns;
  v.resolution = factor >= kResolutionRatio ? Resolution::directional_difference
                                            : Resolution::no_measured_difference;
  const bool rounds_up_to_resolution =
      factor < kResolutionRatio && sig2(factor) >= kResolutionRatio;
  v.wording = (rounds_up_to_resolution ? format_significant(factor, 3) : format_sig2(factor)) +
              "x " + (faster ? "faster" : "slower");
  v.label = to_string(v.resolution);
  return v;
}

NullTestVerdict evaluate_null_test(double base_ns, double scaled_ns, double scale,
                                   double tolerance) {
  if (!(base_ns > 0) || !(scaled_ns > 0) || !(scale > 0)) {
    throw std::invalid_argument("evaluate_null_test: times and scale must be positive");
  }
  NullTestVerdict v;
  v.observed_ratio = scaled_ns / base_ns;
  v.expected_ratio = scale;
  v.pass = std::fabs(v.observed_ratio - scale) / scale <= tolerance;
  return v;
}

}  // namespace gpumeter
