#include <cuda_runtime.h>

#include <string>
#include <utility>
#include <vector>

#include "cuda_util.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/cuda_environment.hpp"
#include "gpumeter/device_state.hpp"

namespace gpumeter {

DeviceStateReading read_cuda_device_state(const DeviceIdentity& device) {
  // By the measured device's uuid, so CUDA_VISIBLE_DEVICES cannot make NVML read another one.
  DeviceStateReading reading = read_device_state(device.uuid, device.index);
  for (std::string& line : add_cuda_versions(reading.state)) {
    reading.unavailable.push_back(std::move(line));
  }
  return reading;
}

std::vector<std::string> add_cuda_versions(DeviceState& state) {
  std::vector<std::string> unavailable;
  int driver = 0;
  if (const cudaError_t e = cudaDriverGetVersion(&driver); e != cudaSuccess) {
    unavailable.push_back("cuda_driver_version: cudaDriverGetVersion returned " +
                          cuda::error_text(e));
  } else if (driver == 0) {
    // The documented answer when no driver is installed: a version of 0 is not a version.
    unavailable.push_back("cuda_driver_version: no CUDA driver is installed");
  } else {
    state.software_versions.push_back({"cuda_driver_version", driver});
  }
  int runtime = 0;
  if (const cudaError_t e = cudaRuntimeGetVersion(&runtime); e != cudaSuccess) {
    unavailable.push_back("cuda_runtime_version: cudaRuntimeGetVersion returned " +
                          cuda::error_text(e));
  } else {
    state.software_versions.push_back({"cuda_runtime_version", runtime});
  }
  const CuptiStatus cupti = cupti_status();
  if (cupti.version) {
    state.software_versions.push_back({"cupti_version", *cupti.version});
  } else {
    unavailable.push_back("cupti_version: " +
                          (cupti.cause.empty() ? std::string("CUPTI not loaded") : cupti.cause));
  }
  return unavailable;
}

}  // namespace gpumeter
