#pragma once
// The device's state for the record (P2), read through NVML loaded at run time: no link
// dependency, so gpumeter runs where the driver (and libnvidia-ml) is missing and says so.
// Read-only: nothing here changes a device setting.
#include <string>
#include <vector>

#include "gpumeter/detail/device.hpp"

namespace gpumeter {

// Path of the NVML library to load instead of the driver's soname (tests point it at a fake).
inline constexpr const char* kNvmlLibraryEnv = "GPUMETER_NVML_LIBRARY";
inline constexpr const char* kNvmlDefaultLibrary = "libnvidia-ml.so.1";

// Reads the state of the device gpumeter measured. `gpu_uuid` ("GPU-...", as
// DeviceIdentity::uuid) selects it. Only an empty uuid falls back to `fallback_index`, read as
// NVML's own index (PCI bus order), which can name another device than the CUDA index of the
// same number when CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER reorder devices: pass the uuid.
// A uuid that NVML does not know (a MIG instance, another machine) leaves every device value
// unavailable: no other device is read in its place. Never throws; loads GPUMETER_NVML_LIBRARY
// when set, else libnvidia-ml.so.1.
DeviceStateReading read_device_state(const std::string& gpu_uuid, int fallback_index);

// One deviation line for the record: "device state: not available: <a>; <b>", or "" when
// nothing is missing.
std::string unavailable_deviation(const std::vector<std::string>& unavailable);

}  // namespace gpumeter
