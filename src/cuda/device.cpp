#include "device.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cuda_process.hpp"
#include "cuda_util.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/format.hpp"
#include "gpumeter/errors.hpp"

namespace gpumeter {
namespace {

std::string visible_devices_note() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  return v == nullptr ? std::string(" (CUDA_VISIBLE_DEVICES is not set)")
                      : " (CUDA_VISIBLE_DEVICES=" + std::string(v) + ")";
}

std::string no_device_hint(cudaError_t e) {
  switch (e) {
    case cudaErrorInsufficientDriver: {
      int runtime = 0;
      (void)cudaRuntimeGetVersion(&runtime);
      return "no NVIDIA driver is loaded, or it is older than this CUDA runtime (" +
             std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) +
             "): install or update the driver, or run on a machine with a GPU";
    }
    case cudaErrorNoDevice:
      return "the driver sees no CUDA device" + visible_devices_note();
    default:
      return "the CUDA driver could not be queried";
  }
}

}  // namespace

std::string_view to_string(CorrelationKind kind) {
  switch (kind) {
    case CorrelationKind::custom0:
      return "CUSTOM0";
    case CorrelationKind::custom1:
      return "CUSTOM1";
    case CorrelationKind::custom2:
      return "CUSTOM2";
  }
  return "unknown";
}

CudaAvailability cuda_availability(int device) {
  CudaAvailability a;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    a.reason = "no usable CUDA device: cudaGetDeviceCount returned " + cuda::error_text(e) + ": " +
               no_device_hint(e);
    return a;
  }
  a.device_count = count;
  if (count == 0) {
    a.reason = "no usable CUDA device: the driver reports none" + visible_devices_note();
    return a;
  }
  if (device < 0 || device >= count) {
    a.reason = "CUDA device index " + std::to_string(device) +
               " does not exist: " + std::to_string(count) + " device(s) are visible, indices 0.." +
               std::to_string(count - 1) + visible_devices_note();
    return a;
  }
  if (const auto sticky = cuda::CudaProcess::instance().sticky_error(device)) {
    a.reason = "CUDA device " + std::to_string(device) +
               " has a sticky error from an earlier call in this process (" + *sticky + ")";
    return a;
  }
  a.usable = true;
  return a;
}

namespace cuda {

void open_device(int device) {
  const CudaAvailability a = cuda_availability(device);
  if (!a.usable) throw DeviceError(a.reason);
  check(cudaSetDevice(device), "cudaSetDevice", device);
  // Creates the primary context now, so a broken device fails here and not inside a phase.
  check(cudaFree(nullptr), "creating the CUDA context", device);
}

}  // namespace cuda

DeviceIdentity cuda_device_identity(int device) {
  cuda::open_device(device);
  cudaDeviceProp p{};
  cuda::check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties", device);
  DeviceIdentity id;
  id.kind = "cuda";
  id.index = device;
  id.name = p.name;
  id.uuid = format_gpu_uuid(reinterpret_cast<const unsigned char*>(p.uuid.bytes));
  id.arch = "sm_" + std::to_string(p.major * 10 + p.minor);
  id.multiprocessors = p.multiProcessorCount;
  id.l2_bytes = static_cast<long long>(p.l2CacheSize);
  id.memory_bytes = static_cast<long long>(p.totalGlobalMem);
  return id;
}

}  // namespace gpumeter
