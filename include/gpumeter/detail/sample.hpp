#pragma once
// One Sample per measured iteration.
#include <optional>

#include "gpumeter/detail/clock_state.hpp"
#include "gpumeter/detail/duration.hpp"

namespace gpumeter {

struct Sample {
  Sample() = default;
  Sample(Nanos busy, Nanos latency, std::optional<int> kernels, Nanos uncounted_copy,
         std::optional<ClockReading> clock_state = std::nullopt)
      : device_busy_ns(busy),
        latency_ns(latency),
        n_kernels(kernels),
        uncounted_copy_ns(uncounted_copy),
        clock(clock_state) {}

  Nanos device_busy_ns = 0;      // length of the union of the call's counted intervals
  Nanos latency_ns = 0;          // last end minus first start of those intervals
  std::optional<int> n_kernels;  // nullopt when the method cannot count kernels
  Nanos uncounted_copy_ns = 0;   // copy/fill time seen but not counted
  // The SM clock and throttle reasons around the sample; nullopt when the backend cannot read them
  // (no NVML, the host backend).
  std::optional<ClockReading> clock;
};

}  // namespace gpumeter
