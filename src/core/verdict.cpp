#include "gpumeter/detail/verdict.hpp"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "gpumeter/detail/format.hpp"

namespace gpumeter {

std::string to_string(Resolution resolution) {
  return resolution == Resolution::directional_difference
             ? "directional difference"
             : "no measured difference at this precision";
}

std::string time_ratio_words(double ratio) {
  // The medians' ratio, with the figures it takes not to print a ratio the rule did not call
  // (1.496 is "1.496x", never "1.5x" beside "no measured difference").
  int digits = 2;
  while (digits < kMaxIntervalDigits && ratio < kResolutionRatio &&
         std::strtod(format_significant(ratio, digits).c_str(), nullptr) >= kResolutionRatio) {
    ++digits;
  }
  return format_significant(ratio, digits) + "x the time";
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
  if (v.resolution == Resolution::directional_difference) {
    v.wording = format_sig2(factor) + "x " + (faster ? "faster" : "slower");
  } else {
    // Under the resolution no direction was measured, so none is worded.
    v.wording = time_ratio_words(candidate_ns / baseline_ns);
  }
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
