#include "gpumeter/detail/summary.hpp"

#include "gpumeter/detail/number_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace gpumeter {

bool work_per_call_valid(double per_call) {
  return value_problem("", per_call, kWorkPerCall).empty();
}

namespace {

// The quantile rule on values already sorted.
double sorted_quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

double quantile(std::vector<double> values, double q) {
  if (values.empty()) throw std::invalid_argument("quantile of no values");
  if (!(q >= 0.0 && q <= 1.0)) throw std::invalid_argument("quantile outside [0, 1]");
  std::sort(values.begin(), values.end());
  return sorted_quantile(values, q);
}

Spread spread_of(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("spread of no values");
  std::sort(values.begin(), values.end());
  return Spread{sorted_quantile(values, 0.5), sorted_quantile(values, 0.1),
                sorted_quantile(values, 0.9)};
}

Spread spread_of(const std::vector<Nanos>& samples_ns) {
  return spread_of(std::vector<double>(samples_ns.begin(), samples_ns.end()));
}

namespace {

std::vector<ClockReading> clock_readings(const std::vector<Sample>& samples) {
  std::vector<ClockReading> readings;
  readings.reserve(samples.size());
  for (const Sample& s : samples) readings.push_back(*s.clock);
  return readings;
}

}  // namespace

Summary summarize(const std::vector<Sample>& samples, TimingMethod method, int retries,
                  const Workload& workload, const Ceilings& ceilings) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  std::vector<double> busy, latency, copy;
  busy.reserve(samples.size());
  latency.reserve(samples.size());
  copy.reserve(samples.size());
  std::optional<int> max_kernels;
  bool kernels_known = true;
  for (const Sample& s : samples) {
    busy.push_back(static_cast<double>(s.device_busy_ns));
    latency.push_back(static_cast<double>(s.latency_ns));
    copy.push_back(static_cast<double>(s.uncounted_copy_ns));
    if (!s.n_kernels) {
      kernels_known = false;
    } else {
      max_kernels = std::max(max_kernels.value_or(0), *s.n_kernels);
    }
  }
  Summary out;
  out.method = method;
  out.n_samples = samples.size();
  out.device_busy = spread_of(busy);
  out.latency = spread_of(latency);
  // One unknown count makes the maximum unknown: never report a partial maximum.
  if (kernels_known) out.max_n_kernels = max_kernels;
  out.gap_ns = out.latency.median_ns - out.device_busy.median_ns;
  out.median_uncounted_copy_ns = quantile(copy, 0.5);
  out.retries = retries;

  // B4: only when every sample was read; a partial count would understate the flags.
  const bool clocks_known = std::all_of(samples.begin(), samples.end(),
                                        [](const Sample& s) { return s.clock.has_value(); });
  if (clocks_known) out.clock = summarize_clocks(clock_readings(samples));

  const double busy_s = out.device_busy.median_ns * 1e-9;
  // A ceiling timed another way than this row would make its percent the ratio of two clocks.
  const bool ceilings_apply = ceiling_applies(ceilings, method);
  const auto percent_of = [&](double rate, const std::optional<double>& ceiling,
                              std::optional<double>& pct, std::optional<bool>& above) {
    if (!ceilings_apply || !ceiling || !(*ceiling > 0)) return;
    pct = 100.0 * rate / *ceiling;
    above = above_ceiling(*pct);
  };
  if (busy_s > 0) {
    if (workload.flops) {
      const double rate = *workload.flops / busy_s;
      out.tflops = rate / 1e12;
      percent_of(rate, ceilings.flops_per_s, out.pct_of_peak_flops, out.above_flops_ceiling);
    }
    if (workload.bytes) {
      const double rate = *workload.bytes / busy_s;
      out.tbs = rate / 1e12;
      percent_of(rate, ceilings.bytes_per_s, out.pct_of_peak_bandwidth,
                 out.above_bandwidth_ceiling);
    }
  }
  return out;
}

}  // namespace gpumeter
