#pragma once
// The device's measured ceilings: what "% of peak" divides by, how they were timed, and the rule
// that marks a row above one. A ceiling divides rows, so it is timed by the method that times them
// (the same backend, attribution, L2 flush and statistic): a percent above 100 is then a finding
// about the row, not the difference between two clocks.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpumeter/detail/duration.hpp"
#include "gpumeter/detail/timing_method.hpp"

namespace gpumeter {

enum class CeilingKind {
  bytes_per_s,  // memory bandwidth: bytes read plus bytes written per second
  flops_per_s,  // a matrix rate: floating-point operations per second
};
std::string_view to_string(CeilingKind kind);  // "bytes_per_s", "flops_per_s"
std::optional<CeilingKind> parse_ceiling_kind(std::string_view text);

// The one rule that turns a ceiling run's samples into its rate, as records name it. A ceiling
// is what the device can reach. Every sample of a device-time method is a run the device
// completed that fast, and what disturbs a run (a lower clock, the power cap, another process's
// tail) only slows it, so the fastest sample is the rate the device reached. The median would
// put a row of the ceiling's own work at 100% give or take its noise, half of its rows above.
inline constexpr std::string_view kCeilingRule = "fastest_sample";

// One piece of ceiling work timed like a row (a copy, a GEMM): what it was, what one call of
// it moves or computes, and each measured iteration's reading of the rows' statistic.
struct CeilingRun {
  CeilingKind kind = CeilingKind::bytes_per_s;
  std::string work;     // "cudaMemcpyAsync device to device, 512 MiB"
  double per_call = 0;  // bytes read plus written, or floating-point operations
  std::vector<Nanos> samples_ns;
};

// per_call over the run's fastest sample, per second (kCeilingRule). Throws
// std::invalid_argument for a run without samples, a fastest sample of 0 ns, or no work.
double ceiling_rate(const CeilingRun& run);

struct Ceilings {
  std::optional<double> flops_per_s;
  std::optional<double> bytes_per_s;
  // The method that timed the runs: that of the rows they divide. nullopt in records of
  // schema 1 to 3, whose ceilings were the best of 10 runs timed with CUDA event pairs while
  // their rows were timed by CUPTI: kept as read, so those records read as they were written.
  std::optional<TimingMethod> method;
  std::vector<CeilingRun> runs;  // empty when method is nullopt
};

// The ceilings `runs` give: each kind's is the highest ceiling_rate among its runs (a user
// would write the fastest of them), a kind without runs has none. Throws std::invalid_argument
// as ceiling_rate does.
Ceilings ceilings_from_runs(TimingMethod method, std::vector<CeilingRun> runs);

// The ceilings of several records joined into one (the shards of a sweep, each process having
// measured its own): every run of them, so each ceiling is the fastest any shard saw. nullopt
// when they cannot be joined that way: timed by different methods, or one recorded without its
// runs (schema 1 to 3) and differing from another. Ceilings without a value are skipped.
std::optional<Ceilings> join_ceilings(const std::vector<Ceilings>& each);

// Whether a ceiling may divide a row timed by `rows`: only a ceiling timed the same way (or,
// in an older record, one whose method was not recorded).
bool ceiling_applies(const Ceilings& ceilings, TimingMethod rows);

// A row above its measured ceiling: a percent over 100. It is shown with the words "above the
// measured ceiling", never as a bare percent over 100: it ran faster than any run of the
// ceiling's work, which says something about the row or about that work, not that the device
// exceeded itself.
bool above_ceiling(double percent_of_ceiling);

}  // namespace gpumeter
