#include "gpumeter/detail/difference.hpp"

#include "student_t.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <mutex>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gpumeter {
namespace {

// The continued fraction of the regularized incomplete beta function, evaluated with the
// modified Lentz method; converges quickly for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  constexpr int kMaxTerms = 500;
  constexpr double kEpsilon = 1e-15;
  constexpr double kTiny = 1e-300;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double result = d;
  for (int m = 1; m <= kMaxTerms; ++m) {
    const double m2 = 2.0 * m;
    double numerator = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + numerator * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + numerator / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    result *= d * c;
    numerator = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + numerator * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + numerator / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    result *= step;
    if (std::fabs(step - 1.0) < kEpsilon) break;
  }
  return result;
}

double regularized_incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_fraction(a, b, x) / a;
  return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double student_t_cdf(double t, int df) {
  const double v = df;
  const double tail = 0.5 * regularized_incomplete_beta(v / 2.0, 0.5, v / (v + t * t));
  return t >= 0 ? 1.0 - tail : tail;
}

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

// P(reject) of a two-sided t test with critical value `t_crit` when the standardized difference
// is `ncp`: the estimate is ncp + Z (in units of its true standard error) and the estimated
// standard error is sqrt(V / df) of it, V ~ chi-square(df). Integrated over V with Simpson's
// rule after V = u^2, which keeps the integrand finite at 0 for df = 1.
double rejection_probability(double ncp, int df, double t_crit) {
  const double k = df;
  const double v_max = k + 40.0 * std::sqrt(2.0 * k) + 40.0;  // the chi-square tail beyond is nil
  const double u_max = std::sqrt(v_max);
  constexpr int kIntervals = 400;  // even, for Simpson's rule; the integrand is smooth
  const double h = u_max / kIntervals;
  const double log_norm = (k / 2.0) * std::log(2.0) + std::lgamma(k / 2.0);
  auto integrand = [&](double u) {
    // At u = 0 only df = 1 has mass (density * 2u -> 2 / 2^(1/2) Gamma(1/2)), and an
    // estimated standard error of 0 rejects always.
    if (u <= 0) return df == 1 ? 2.0 * std::exp(-log_norm) : 0.0;
    const double v = u * u;
    // chi-square density times dv/du = 2u.
    const double density = std::exp((k / 2.0 - 1.0) * std::log(v) - v / 2.0 - log_norm) * 2.0 * u;
    const double se = std::sqrt(v / k);
    const double reject = normal_cdf(ncp - t_crit * se) + normal_cdf(-ncp - t_crit * se);
    return density * reject;
  };
  double sum = integrand(0.0) + integrand(u_max);
  for (int i = 1; i < kIntervals; ++i) sum += (i % 2 == 1 ? 4.0 : 2.0) * integrand(i * h);
  return sum * h / 3.0;
}

}  // namespace

double trimmed_mean(std::vector<double> values, double trim) {
  if (values.empty()) throw std::invalid_argument("trimmed_mean of no values");
  if (!(trim >= 0 && trim < 0.5))
    throw std::invalid_argument("trimmed_mean: trim outside [0, 0.5)");
  std::sort(values.begin(), values.end());
  const auto cut = static_cast<std::size_t>(std::floor(trim * static_cast<double>(values.size())));
  const auto first = values.begin() + static_cast<std::ptrdiff_t>(cut);
  const auto last = values.end() - static_cast<std::ptrdiff_t>(cut);
  return std::accumulate(first, last, 0.0) / static_cast<double>(last - first);
}

double pass_level(const std::vector<double>& pass, const IntervalRules& rules) {
  if (!rules.pass_median) return trimmed_mean(pass);
  if (pass.empty()) throw std::invalid_argument("pass_level of no values");
  std::vector<double> v = pass;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

double student_t_quantile(double p, int df) {
  if (df < 1) throw std::invalid_argument("student_t_quantile: df < 1");
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p outside (0, 1)");
  if (p < 0.5) return -student_t_quantile(1.0 - p, df);
  // The CDF is monotone: bisect on [0, hi], hi doubled until it brackets p.
  double lo = 0;
  double hi = 1;
  while (student_t_cdf(hi, df) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

namespace {

double solve_noncentrality(int df, double confidence, double power) {
  const double t_crit = student_t_quantile(1.0 - (1.0 - confidence) / 2.0, df);
  double lo = 0;
  double hi = 1;
  while (rejection_probability(hi, df, t_crit) < power) hi *= 2;
  for (int i = 0; i < 60 && hi - lo > 1e-6; ++i) {
    const double mid = 0.5 * (lo + hi);
    (rejection_probability(mid, df, t_crit) < power ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The rule's own confidence and power, for the degrees of freedom comparisons have (2 for two
// implementations of two passes each; up to 126 for a comparison run to a target precision):
// each solved on first use, then read.
constexpr int kTabulatedDf = 128;

}  // namespace

double detectable_noncentrality(int df, double confidence, double power) {
  if (df < 1) throw std::invalid_argument("detectable_noncentrality: df < 1");
  // The confidences of records, current and older (a reader recomputes older ones' comparisons).
  const int which = confidence == kDifferenceConfidence           ? 0
                    : confidence == kDifferenceConfidenceBeforeV9 ? 1
                                                                  : -1;
  if (which >= 0 && power == kDetectionPower && df <= kTabulatedDf) {
    static std::mutex mutex;
    static std::vector<double> tables[2] = {std::vector<double>(kTabulatedDf + 1, 0.0),
                                            std::vector<double>(kTabulatedDf + 1, 0.0)};
    const std::lock_guard<std::mutex> lock(mutex);
    double& entry = tables[which][static_cast<std::size_t>(df)];
    if (entry == 0.0) entry = solve_noncentrality(df, confidence, kDetectionPower);
    return entry;
  }
  return solve_noncentrality(df, confidence, power);
}

LogSpread log_spread_of(std::span<const double> logs) {
  LogSpread s;
  s.n = logs.size();
  s.mean = std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(s.n);
  for (double l : logs) s.squares += (l - s.mean) * (l - s.mean);
  return s;
}

double log_step_allowance(Nanos tick_ns, double level_ns, double fraction) {
  return std::log1p(fraction * static_cast<double>(tick_ns) / level_ns);
}

double step_allowance_fraction(std::initializer_list<std::span<const std::vector<double>>> sides,
                               const IntervalRules& rules) {
  if (!rules.dithered_step) return 0.5;
  for (const std::span<const std::vector<double>> side : sides) {
    for (const std::vector<double>& pass : side) {
      if (pass.empty() ||
          std::all_of(pass.begin(), pass.end(), [&](double v) { return v == pass.front(); })) {
        return 0.5;
      }
    }
  }
  return kPassTrim;
}

RelativeDifference relative_difference(const PassSamples& baseline, const PassSamples& candidate,
                                       Nanos tick_ns, const IntervalRules& rules) {
  const double confidence = rules.confidence;
  if (baseline.size() < 2 || candidate.size() < 2) {
    throw std::invalid_argument("relative_difference: each side needs at least 2 passes (got " +
                                std::to_string(baseline.size()) + " and " +
                                std::to_string(candidate.size()) + ")");
  }
  if (tick_ns < 1) throw std::invalid_argument("relative_difference: timestamp tick < 1 ns");
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("relative_difference: confidence outside (0, 1)");
  }
  // Per side: the log of each pass's level, and their spread.
  auto side_of = [&rules](const PassSamples& passes) {
    std::vector<double> logs;
    for (const std::vector<double>& pass : passes) {
      if (pass.empty()) throw std::invalid_argument("relative_difference: an empty pass");
      const double level = pass_level(pass, rules);
      if (!(level > 0) || !std::isfinite(level)) {
        throw std::invalid_argument("relative_difference: a pass whose level is not positive");
      }
      logs.push_back(std::log(level));
    }
    return log_spread_of(logs);
  };
  const LogSpread a = side_of(baseline);
  const LogSpread b = side_of(candidate);

  RelativeDifference out;
  out.confidence = confidence;
  out.timestamp_tick_ns = tick_ns;
  out.degrees_of_freedom = static_cast<int>(a.n + b.n - 2);
  const double pooled = (a.squares + b.squares) / out.degrees_of_freedom;
  const double se =
      std::sqrt(pooled * (1.0 / static_cast<double>(a.n) + 1.0 / static_cast<double>(b.n)));
  const double tick_allowance =
      log_step_allowance(tick_ns, std::exp(std::min(a.mean, b.mean)),
                         step_allowance_fraction({baseline, candidate}, rules));

  const double d = b.mean - a.mean;
  const double t = student_t_quantile(1.0 - (1.0 - confidence) / 2.0, out.degrees_of_freedom);
  const double half = t * se + tick_allowance;
  out.estimate = std::expm1(d);
  out.low = std::expm1(d - half);
  out.high = std::expm1(d + half);
  const double detectable =
      detectable_noncentrality(out.degrees_of_freedom, confidence, kDetectionPower) * se +
      tick_allowance;
  out.smallest_detectable = std::expm1(detectable);
  return out;
}

}  // namespace gpumeter
