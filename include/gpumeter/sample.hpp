#pragma once
// One Sample per measured iteration (T1).
#include <optional>

#include "gpumeter/duration.hpp"

namespace gpumeter {

struct Sample {
  Nanos device_busy_ns = 0;      // length of the union of the call's counted intervals
  Nanos latency_ns = 0;          // last end minus first start of those intervals
  std::optional<int> n_kernels;  // nullopt when the method cannot count kernels
  Nanos uncounted_copy_ns = 0;   // copy/fill time seen but not counted (T7)
};

}  // namespace gpumeter
