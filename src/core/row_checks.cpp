#include "gpumeter/row_checks.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/detail/calibration.hpp"
#include "gpumeter/detail/timing_method.hpp"

namespace gpumeter {
namespace {

std::string method_words(TimingMethod method) {
  return "a row timed by " + std::string(to_string(method)) +
         ", which times one interval around each call";
}

std::string bytes_text(long long bytes) {
  return std::to_string(bytes) + " bytes";
}

// The warm-up counts a pass can have run when its measured count was `n`: both counts come from
// one estimate e of the call (iterations_for), so the estimates that give n bound the warm-up.
// nullopt when no estimate gives n.
struct Range {
  std::size_t low = 0;
  std::size_t high = 0;
};

std::optional<Range> warmup_range(const Budget& b, std::size_t n) {
  const std::size_t lo = b.min_iterations;
  const std::size_t hi = b.max_iterations;
  if (n < lo || n > hi) return std::nullopt;
  const Nanos m = b.measure_ns;
  const auto warm = [&](Nanos e) { return iterations_for(b.warmup_ns, e, lo, hi); };
  // Estimates e >= 1 with floor(m / e) clamped to [lo, hi] equal to n, as [first, last]
  // (last: nullopt for no end); and whether e <= 0 (which gives hi for both) is one of them.
  Nanos first = 1;
  std::optional<Nanos> last;
  const bool nonpositive = n == hi;
  if (lo == hi) {
    // Every estimate gives n.
  } else if (n == hi) {
    last = m / static_cast<Nanos>(hi);  // floor(m / e) >= hi
  } else if (n == lo) {
    first = m / static_cast<Nanos>(lo + 1) + 1;  // floor(m / e) <= lo
  } else {
    first = m / static_cast<Nanos>(n + 1) + 1;  // floor(m / e) == n
    last = m / static_cast<Nanos>(n);
  }
  const bool positive = !last || *last >= first;
  if (!positive && !nonpositive) return std::nullopt;
  Range r{std::numeric_limits<std::size_t>::max(), 0};
  if (positive) {
    // warm() does not grow with e: its least at the last estimate (lo past every end).
    r.low = last ? warm(*last) : lo;
    r.high = warm(first);
  }
  if (nonpositive) {
    r.low = std::min(r.low, hi);
    r.high = std::max(r.high, hi);
  }
  return r;
}

// "" when `m`'s passes, each run with budget `b`, can have given its counts; else why not.
std::string counts_problem(const Measurement& m, const Budget& b) {
  const std::vector<std::size_t>& passes = m.pass_sizes;
  const std::size_t first =
      iterations_for(b.measure_ns, m.estimate_ns, b.min_iterations, b.max_iterations);
  if (passes.front() != first) {
    return "its first pass measured " + std::to_string(passes.front()) +
           " iterations, where its estimate of " + std::to_string(m.estimate_ns) +
           " ns per call and the budget give " + std::to_string(first);
  }
  std::size_t low = iterations_for(b.warmup_ns, m.estimate_ns, b.min_iterations, b.max_iterations);
  std::size_t high = low;
  for (std::size_t k = 1; k < passes.size(); ++k) {
    const std::optional<Range> r = warmup_range(b, passes[k]);
    if (!r) {
      return "its pass " + std::to_string(k + 1) + " measured " + std::to_string(passes[k]) +
             " iterations, which the budget gives no call";
    }
    low += r->low;
    high += r->high;
  }
  if (m.warmup_iterations < low || m.warmup_iterations > high) {
    return "it ran " + std::to_string(m.warmup_iterations) +
           " warm-up iterations, where the budget and its measured counts give " +
           (low == high ? std::to_string(low)
                        : "from " + std::to_string(low) + " to " + std::to_string(high));
  }
  return {};
}

std::string budget_text(const Budget& b) {
  return "warm-up " + std::to_string(b.warmup_ns) + " ns and measurement " +
         std::to_string(b.measure_ns) + " ns a pass, iterations [" +
         std::to_string(b.min_iterations) + ", " + std::to_string(b.max_iterations) + "]";
}

}  // namespace

std::string unmeasurable_value(const Result& result, const DeviceIdentity& device) {
  const Measurement& m = result.measurement;
  // P4: an interval around the call sees one span: no kernel, no copy, no gap inside it.
  if (!sees_kernels(m.method)) {
    for (std::size_t i = 0; i < m.samples.size(); ++i) {
      const Sample& s = m.samples[i];
      if (s.n_kernels) {
        return "sample " + std::to_string(i) + " counts " + std::to_string(*s.n_kernels) +
               " kernel(s) in " + method_words(m.method) + " and counts none";
      }
      if (s.uncounted_copy_ns != 0) {
        return "sample " + std::to_string(i) + " holds " + std::to_string(s.uncounted_copy_ns) +
               " ns of uncounted copy in " + method_words(m.method) + " and sees no copy";
      }
      if (s.latency_ns != s.device_busy_ns) {
        return "sample " + std::to_string(i) + " has a latency of " + std::to_string(s.latency_ns) +
               " ns beside its time of " + std::to_string(s.device_busy_ns) + " ns in " +
               method_words(m.method) + ": both are that one interval";
      }
    }
    // T6: only CUPTI's records can be lost, and only CUPTI's clock can change under a phase.
    if (m.retries != 0) {
      return "it repeated " + std::to_string(m.retries) + " phase(s) in " + method_words(m.method) +
             ": only CUPTI loses records or changes its clock, the "
             "causes of a repeat";
    }
  }
  if (device.kind == "host") {
    // The host CPU keeps no kernel records and has no device events: only its own clock times
    // work there (the host backend's one method).
    if (m.method != TimingMethod::host_clock) {
      return "it was timed by " + std::string(to_string(m.method)) +
             " on the host CPU, which has no kernel records or device events";
    }
    for (std::size_t i = 0; i < m.samples.size(); ++i) {
      if (m.samples[i].clock) {
        return "sample " + std::to_string(i) +
               " holds an SM clock reading on the host CPU, "
               "which has none";
      }
    }
    if (result.memory.gpu_context_floor_bytes || result.memory.gpu_after_case_bytes) {
      return "it holds GPU memory on the host CPU, which has none";
    }
  }
  // A host device's memory is the machine's (the host backend records it): no process's peak
  // resident memory on it can exceed it.
  if (device.kind == "host" && device.memory_bytes && result.memory.host_peak_rss_bytes &&
      *result.memory.host_peak_rss_bytes > *device.memory_bytes) {
    return "it holds a peak resident memory of " + bytes_text(*result.memory.host_peak_rss_bytes) +
           " on a host of " + bytes_text(*device.memory_bytes);
  }
  if (device.memory_bytes && device.kind != "host") {
    for (const std::optional<long long>& bytes :
         {result.memory.gpu_context_floor_bytes, result.memory.gpu_after_case_bytes}) {
      if (bytes && *bytes > *device.memory_bytes) {
        return "it holds " + bytes_text(*bytes) + " of GPU memory on a device of " +
               bytes_text(*device.memory_bytes);
      }
    }
  }
  return {};
}

std::string iteration_count_problem(const Result& result, const RunConfig& config) {
  if (config.schedule == "program") return {};  // instances of a program, no budget
  const Measurement& m = result.measurement;
  std::size_t total = 0;
  for (const std::size_t n : m.pass_sizes) total += n;
  if (m.measure_iterations != total) {
    return "it counts " + std::to_string(m.measure_iterations) + " measured iterations and holds " +
           std::to_string(total) + " samples";
  }
  // A row of one pass keeps no pass boundaries to check against: records written before a lone
  // implementation ran two passes hold one of the whole budget, and a version 1 record read and
  // written again holds all its passes as one. Its device time is never compared (the interval
  // needs passes); a wall-clock row of one pass is, by the 1.5x rule, and is the gap left.
  if (m.pass_sizes.size() < 2) return {};
  // T4, T9: a comparison's pass runs with half the budget and half each bound; a run to a
  // precision records the budget each of its passes ran with.
  const Budget b = m.precision ? config.budget : comparison_pass_budget(config.budget);
  const std::string problem = counts_problem(m, b);
  return problem.empty() ? problem : problem + " (" + budget_text(b) + ")";
}

}  // namespace gpumeter
