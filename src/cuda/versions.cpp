#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuda_util.hpp"
#include "gpumeter/cuda_backend.hpp"

namespace gpumeter {

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
    state.cuda_driver_version = driver;
  }
  int runtime = 0;
  if (const cudaError_t e = cudaRuntimeGetVersion(&runtime); e != cudaSuccess) {
    unavailable.push_back("cuda_runtime_version: cudaRuntimeGetVersion returned " +
                          cuda::error_text(e));
  } else {
    state.cuda_runtime_version = runtime;
  }
  const CuptiStatus cupti = cupti_status();
  if (cupti.version) {
    state.cupti_version = *cupti.version;
  } else {
    unavailable.push_back("cupti_version: " +
                          (cupti.cause.empty() ? std::string("CUPTI not loaded") : cupti.cause));
  }
  return unavailable;
}

}  // namespace gpumeter
