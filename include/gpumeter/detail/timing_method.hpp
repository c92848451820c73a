#pragma once
// How a number was taken, and which statistic it therefore is. Two different statistics are never
// compared with each other.
#include <optional>
#include <string_view>

namespace gpumeter {

enum class TimingMethod {
  cupti,        // CUPTI kernel records: device_busy is the union of kernel intervals
  cuda_events,  // one event pair per iteration (fallback): device_busy == latency
  host_wall,    // host steady clock around a call that runs on the CPU
};

enum class Statistic {
  device_busy,              // from CUPTI kernel records
  cuda_event,               // from device events around the call
  synchronized_wall_clock,  // from a host clock, the work synchronized before and after
};

Statistic statistic_of(TimingMethod method);
// Whether the method sees the kernels (and copies) a call ran, one by one: only CUPTI's records
// do. The others time one interval around the call, so a gap between kernels, a kernel count
// and an uncounted copy are not measured by them (their samples hold latency == device_busy and
// no copy time by construction, which tables must not show as a measured 0).
bool sees_kernels(TimingMethod method);
std::string_view to_string(TimingMethod method);  // "cupti", "cuda-events", "host-wall"
std::string_view to_string(Statistic statistic);  // "device_busy", "cuda_event", ...
std::optional<TimingMethod> parse_timing_method(std::string_view text);
std::optional<Statistic> parse_statistic(std::string_view text);

}  // namespace gpumeter
