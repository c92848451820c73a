#pragma once
// How a number was taken, and which statistic it therefore is. Two different statistics are never
// compared with each other. The core names each method by what it reads, not by the vendor tool
// that reads it; the words a record holds ("cupti", "cuda-events", "host-wall") are the record
// format's, as the first backends wrote them.
#include <optional>
#include <string_view>

namespace gpumeter {

enum class TimingMethod {
  kernel_records,  // the device's record of each kernel and copy: device_busy is their union
  device_events,   // one device event pair per iteration (fallback): device_busy == latency
  host_wall,       // host steady clock around a call that runs on the CPU
};

enum class Statistic {
  device_busy,              // from the device's records of each kernel
  device_event,             // from device events around the call
  synchronized_wall_clock,  // from a host clock, the work synchronized before and after
};

Statistic statistic_of(TimingMethod method);
// Whether the method sees the kernels (and copies) a call ran, one by one: only kernel records
// do. The others time one interval around the call, so a gap between kernels, a kernel count
// and an uncounted copy are not measured by them (their samples hold latency == device_busy and
// no copy time by construction, which tables must not show as a measured 0).
bool sees_kernels(TimingMethod method);
std::string_view to_string(TimingMethod method);  // "cupti", "cuda-events", "host-wall"
std::string_view to_string(Statistic statistic);  // "device_busy", "cuda_event", ...
std::optional<TimingMethod> parse_timing_method(std::string_view text);
std::optional<Statistic> parse_statistic(std::string_view text);

}  // namespace gpumeter
