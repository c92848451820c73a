#include "gpumeter/detail/timing_method.hpp"

namespace gpumeter {

Statistic statistic_of(TimingMethod method) {
  switch (method) {
    case TimingMethod::kernel_records:
      return Statistic::device_busy;
    case TimingMethod::device_events:
      return Statistic::device_event;
    case TimingMethod::host_clock:
      return Statistic::synchronized_wall_clock;
  }
  return Statistic::synchronized_wall_clock;
}

bool sees_kernels(TimingMethod method) {
  return method == TimingMethod::kernel_records;
}

std::string_view to_string(TimingMethod method) {
  return names_of(method).name;
}

std::string_view to_string(Statistic statistic) {
  for (const TimingMethodName& n : kTimingMethodNames) {
    if (statistic_of(n.method) == statistic) return n.statistic;
  }
  return "unknown";
}

std::optional<TimingMethod> parse_timing_method(std::string_view text) {
  for (const TimingMethodName& n : kTimingMethodNames) {
    if (text == n.name || text == n.short_name) return n.method;
  }
  return std::nullopt;
}

std::optional<Statistic> parse_statistic(std::string_view text) {
  for (const TimingMethodName& n : kTimingMethodNames) {
    if (text == n.statistic) return statistic_of(n.method);
  }
  return std::nullopt;
}

}  // namespace gpumeter
