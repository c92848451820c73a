#pragma once
// How a number was taken, and which statistic it therefore is. Two different statistics are never
// compared with each other. The core names each method by what it reads, not by the vendor tool
// that reads it.
#include <optional>
#include <string_view>

namespace gpumeter {

enum class TimingMethod {
  kernel_records,  // the device's record of each kernel and copy: device_busy is their union
  device_events,   // one device event pair per iteration (fallback): device_busy == latency
  host_clock,      // host steady clock around a call (the device synchronized where there is one)
};

enum class Statistic {
  device_busy,              // from the device's records of each kernel
  device_event,             // from device events around the call
  synchronized_wall_clock,  // from a host clock, the work synchronized before and after
};

// One name per timing method, in one place: every message, report, doc and Python value says
// `name`, and --timing takes it or the short name users already type. Each method once had six
// or seven names (the option's, the record's, the vendor's), so a user who typed `--timing
// events` read another word back. The words records hold are the record format's, spelled only
// by the record writer and reader (src/record/record_words.cpp), which read them as these.
struct TimingMethodName {
  TimingMethod method;
  std::string_view name;        // what users read: "kernel-records"
  std::string_view short_name;  // --timing's short value for it: "cupti"
  std::string_view statistic;   // the name of statistic_of(method): "device_busy"
};
inline constexpr TimingMethodName kTimingMethodNames[] = {
    {TimingMethod::kernel_records, "kernel-records", "cupti", "device_busy"},
    {TimingMethod::device_events, "device-events", "events", "device_event"},
    {TimingMethod::host_clock, "host-clock", "host", "synchronized_wall_clock"},
};

// The method's names, looked up at compile time where a list is built from them (kTimingNames).
constexpr const TimingMethodName& names_of(TimingMethod method) {
  for (const TimingMethodName& n : kTimingMethodNames) {
    if (n.method == method) return n;
  }
  return kTimingMethodNames[0];  // every method has its row
}

Statistic statistic_of(TimingMethod method);
// Whether the method sees the kernels (and copies) a call ran, one by one: only kernel records
// do. The others time one interval around the call, so a gap between kernels, a kernel count
// and an uncounted copy are not measured by them (their samples hold latency == device_busy and
// no copy time by construction, which tables must not show as a measured 0).
bool sees_kernels(TimingMethod method);
std::string_view to_string(TimingMethod method);  // its name in kTimingMethodNames
std::string_view to_string(Statistic statistic);  // its name in kTimingMethodNames
// The method `text` names: its name or its short name.
std::optional<TimingMethod> parse_timing_method(std::string_view text);
std::optional<Statistic> parse_statistic(std::string_view text);

}  // namespace gpumeter
