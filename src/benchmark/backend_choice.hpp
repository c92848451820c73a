#pragma once
// Which backend a benchmark program measures with (--timing, --device,
// --allow-events-fallback), in a build with or without the CUDA backend.
#include <memory>
#include <string>
#include <vector>

#include "gpumeter/backend/backend.hpp"
#include "gpumeter/summary.hpp"

namespace gpumeter {

struct BackendChoice {
  std::string timing;  // "cupti", "events", "host", or "" for the default
  int device = 0;
  bool allow_events_fallback = false;
};

struct ChosenBackend {
  std::unique_ptr<Backend> backend;
  Ceilings ceilings;  // measured when asked and the backend has a device, by that backend
  std::vector<std::string> deviations;  // e.g. "no usable GPU: host clock"
};

// The default is CUPTI in a build with the CUDA backend, the host clock in one without it. "host"
// on a usable CUDA device is the synchronized wall clock around each call, and on none the host
// clock (for benchmarks of host work). Throws ConfigError when this build cannot time that way,
// DeviceError when the device the choice needs cannot be used.
ChosenBackend choose_backend(const BackendChoice& choice, bool with_ceilings);

// Throws ConfigError, before anything runs, when this build cannot time the way asked.
void check_timing_is_built(const BackendChoice& choice);

// Why the choice cannot be measured on this machine: it needs a CUDA device (every choice but
// "host" in a build with the CUDA backend) and none is usable; "" when it can. A program of GPU
// work then says so once instead of failing every case.
std::string unusable_device(const BackendChoice& choice);

}  // namespace gpumeter
