#include "gpumeter/detail/timing_method.hpp"

namespace gpumeter {

Statistic statistic_of(TimingMethod method) {
  switch (method) {
    case TimingMethod::kernel_records:
      return Statistic::device_busy;
    case TimingMethod::device_events:
      return Statistic::device_event;
    case TimingMethod::host_wall:
      return Statistic::synchronized_wall_clock;
  }
  return Statistic::synchronized_wall_clock;
}

bool sees_kernels(TimingMethod method) {
  return method == TimingMethod::kernel_records;
}

std::string_view to_string(TimingMethod method) {
  switch (method) {
    case TimingMethod::kernel_records:
      return "cupti";
    case TimingMethod::device_events:
      return "cuda-events";
    case TimingMethod::host_wall:
      return "host-wall";
  }
  return "unknown";
}

std::string_view to_string(Statistic statistic) {
  switch (statistic) {
    case Statistic::device_busy:
      return "device_busy";
    case Statistic::device_event:
      return "cuda_event";
    case Statistic::synchronized_wall_clock:
      return "synchronized_wall_clock";
  }
  return "unknown";
}

std::optional<TimingMethod> parse_timing_method(std::string_view text) {
  for (auto m :
       {TimingMethod::kernel_records, TimingMethod::device_events, TimingMethod::host_wall}) {
    if (to_string(m) == text) return m;
  }
  return std::nullopt;
}

std::optional<Statistic> parse_statistic(std::string_view text) {
  for (auto s :
       {Statistic::device_busy, Statistic::device_event, Statistic::synchronized_wall_clock}) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

}  // namespace gpumeter
