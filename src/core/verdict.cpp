#include "gpumeter/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>

#include "gpumeter/summary.hpp"

namespace gpumeter {

double sig2(double value) {
  if (value == 0.0 || !std::isfinite(value)) return value;
  const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const double scale = std::pow(10.0, 1 - exponent);
  return std::round(value * scale) / scale;
}

std::string format_significant_figures(double value, int digits) {
  if (value == 0.0) return "0";
  if (!std::isfinite(value)) return std::to_string(value);
  const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const double scale = std::pow(10.0, digits - 1 - exponent);
  const double r = std::round(value * scale) / scale;
  char buf[64];
  // %g would switch to exponent notation at 10^digits and above; print those as integers.
  if (std::fabs(r) >= std::pow(10.0, digits)) {
    std::snprintf(buf, sizeof buf, "%.0f", r);
    return buf;
  }
  // '#' keeps a significant trailing zero (3.0, 0.0010); it also leaves "10." to trim.
  std::snprintf(buf, sizeof buf, "%#.*g", digits, r);
  std::string out = buf;
  if (out.back() == '.') out.pop_back();
  return out;
}

std::string format_sig2(double value) {
  return format_significant_figures(value, 2);
}

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
  v.wording =
      (rounds_up_to_resolution ? format_significant_figures(factor, 3) : format_sig2(factor)) +
      "x " + (faster ? "faster" : "slower");
  v.label = to_string(v.resolution);
  return v;
}

SpeedupInterval bootstrap_speedup_interval(const std::vector<double>& baseline,
                                           const std::vector<double>& candidate, double confidence,
                                           int resamples, std::uint64_t seed) {
  if (baseline.empty() || candidate.empty()) {
    throw std::invalid_argument("bootstrap_speedup_interval: no samples");
  }
  if (!(confidence > 0 && confidence < 1) || resamples < 1) {
    throw std::invalid_argument("bootstrap_speedup_interval: bad confidence or resamples");
  }
  std::mt19937_64 rng(seed);
  auto resampled_median = [&rng](const std::vector<double>& v, std::vector<double>& scratch) {
    std::uniform_int_distribution<std::size_t> pick(0, v.size() - 1);
    scratch.resize(v.size());
    for (double& x : scratch) x = v[pick(rng)];
    return quantile(scratch, 0.5);
  };
  std::vector<double> ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  std::vector<double> sb, sc;
  for (int i = 0; i < resamples; ++i) {
    const double b = resampled_median(baseline, sb);
    const double c = resampled_median(candidate, sc);
    if (!(b > 0) || !(c > 0)) {
      throw std::invalid_argument("bootstrap_speedup_interval: non-positive times");
    }
    ratios.push_back(b / c);
  }
  const double tail = (1 - confidence) / 2;
  return SpeedupInterval{quantile(ratios, tail), quantile(ratios, 1 - tail), confidence, resamples};
}

std::string finer_statement(const SpeedupInterval& interval) {
  const std::string pct = std::to_string(static_cast<int>(std::lround(interval.confidence * 100)));
  // Three figures: the ends of a narrow interval must not print as the same number.
  const std::string range = format_significant_figures(interval.low, 3) + " to " +
                            format_significant_figures(interval.high, 3);
  if (interval.low > 1) {
    return "faster with " + pct + "% confidence (speed-up " + range + ")";
  }
  if (interval.high < 1) {
    return "slower with " + pct + "% confidence (speed-up " + range + ")";
  }
  return "";
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
