#pragma once
// Which backend a benchmark program measures with (--timing, --device,
// --allow-events-fallback), in a build with or without the CUDA backend.
#include <memory>
#include <string>
#include <vector>

#include "gpumeter/backend.hpp"
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

// The default is CUPTI where a CUDA device is usable, the host clock elsewhere (saying so in
// the record). "host" on a usable CUDA device is the synchronized wall clock around each call.
// Throws ConfigError when this build cannot time that way, DeviceError when the device asked
// for cannot be used.
ChosenBackend choose_backend(const BackendChoice& choice, bool with_ceilings);

// Throws ConfigError, before anything runs, when this build cannot time the way asked.
void check_timing_is_built(const BackendChoice& choice);

}  // namespace gpumeter
