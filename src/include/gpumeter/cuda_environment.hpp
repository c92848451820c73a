#pragma once
// What the CUDA backends read of their environment for the record, shared by the backends and
// `gpumeter env`; no user calls these (a backend's EnvironmentProbe reports them).
#include <string>
#include <vector>

#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/device.hpp"

namespace gpumeter {

// True when options.allow_events_fallback or GPUMETER_ALLOW_EVENTS_FALLBACK=1.
bool events_fallback_allowed(const CudaBackendOptions& options);

// Fills the CUDA driver and runtime versions (cudaDriverGetVersion, cudaRuntimeGetVersion) and
// the CUPTI version (cupti_status()) of `state` for the record. Returns one line per version
// that could not be read, with the reason; those stay nullopt. Never throws.
std::vector<std::string> add_cuda_versions(DeviceState& state);

// NVML's reading of `device` (by its uuid) plus the CUDA and CUPTI versions: what the CUDA
// backends report as their device state. Never throws.
DeviceStateReading read_cuda_device_state(const DeviceIdentity& device);

}  // namespace gpumeter
