#pragma once
// Summary of one measurement (docs/rules.md, "summary and derived columns").
#include <cstddef>
#include <optional>
#include <vector>

#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/sample.hpp"
#include "gpumeter/detail/timing_method.hpp"

namespace gpumeter {

// Quantile rule: linear interpolation between closest ranks, q in [0, 1]: position
// q * (n - 1) in the sorted values (Hyndman & Fan type 7, numpy's default). Median = q 0.5.
double quantile(std::vector<double> values, double q);

// What the user declares about one call, for the derived columns.
struct Workload {
  std::optional<double> flops;  // floating-point operations per call
  std::optional<double> bytes;  // bytes moved per call (each input read once, output written once)
};

// A declared amount of work per call (flops or bytes) is a finite number >= 0: a negative or
// infinite one would give a rate that means nothing (0 is a call that moves or computes nothing).
bool work_per_call_valid(double per_call);

struct Spread {
  double median_ns = 0;
  double p10_ns = 0;
  double p90_ns = 0;
};
// The median, p10 and p90 of `values` by the quantile rule, sorted once. Throws
// std::invalid_argument for no values.
Spread spread_of(std::vector<double> values);
// The same rule on raw samples in ns (a phase's or a total's), so that a row and a phase can never
// state their spread two ways.
Spread spread_of(const std::vector<Nanos>& samples_ns);

struct Summary {
  TimingMethod method = TimingMethod::kernel_records;
  std::size_t n_samples = 0;
  Spread device_busy;
  Spread latency;
  std::optional<int> max_n_kernels;  // nullopt when the method cannot count kernels
  double gap_ns = 0;                 // median latency - median device_busy
  double median_uncounted_copy_ns = 0;
  int retries = 0;
  // Derived columns: device_busy is the denominator (the kernel-timing method: a denominator
  // holding idle time inside the call would push throughput down systematically).
  std::optional<double> tflops;
  std::optional<double> tbs;
  // Percent of the measured ceilings, when the record has one timed like this row.
  std::optional<double> pct_of_peak_flops;
  std::optional<double> pct_of_peak_bandwidth;
  // above_ceiling() of each percent: set exactly when the percent is.
  std::optional<bool> above_flops_ceiling;
  std::optional<bool> above_bandwidth_ceiling;
  // When every sample has a clock reading: the SM clock's range and median, the flagged samples and
  // the samples under each slowing reason (clock_state.hpp). nullopt, never zeros, when a backend
  // reads no clock.
  std::optional<ClockSummary> clock;
};

// Throws std::invalid_argument on no samples.
Summary summarize(const std::vector<Sample>& samples, TimingMethod method, int retries,
                  const Workload& workload = {}, const Ceilings& ceilings = {});

}  // namespace gpumeter
