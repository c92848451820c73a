// Backend choice in a build with the CUDA backend.
#include "backend_choice.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/host_backend.hpp"

namespace gpumeter {

void check_timing_is_built(const BackendChoice&) {
  // Every way of timing is built; whether a device answers is known only later.
}

std::string unusable_device(const BackendChoice& choice) {
  if (choice.timing == "host") return "";
  // cudaGetDeviceCount initialises the driver and creates no context: a sweep's parent stays
  // off the device.
  const CudaAvailability gpu = cuda_availability(choice.device);
  return gpu.usable ? std::string() : gpu.reason;
}

ChosenBackend choose_backend(const BackendChoice& choice, bool with_ceilings) {
  ChosenBackend out;
  const CudaAvailability gpu = cuda_availability(choice.device);
  if (!gpu.usable) {
    if (choice.timing != "host") throw DeviceError(gpu.reason);
    // Host work asked for by name: timed by the host clock.
    out.backend = make_host_backend();
    return out;
  }
  CudaBackendOptions options;
  options.device = choice.device;
  options.allow_events_fallback = choice.allow_events_fallback;
  if (choice.timing == "events") {
    out.backend = make_cuda_events_backend(options, "CUDA events chosen with --timing events");
  } else if (choice.timing == "host") {
    out.backend = make_cuda_wall_backend(options);
  } else {
    out.backend = make_cuda_backend(options);
  }
  if (with_ceilings) {
    // Timed by the backend that times the rows. Without them the rows still stand; only their
    // percentages are missing, and the record says why.
    try {
      out.ceilings = measure_ceilings(*out.backend);
    } catch (const Error& e) {
      out.deviations.push_back(std::string("ceilings not measured (no percent of peak): ") +
                               e.what());
    }
  }
  return out;
}

}  // namespace gpumeter
