#pragma once
// Which device ran a measurement: every record names it, and work that ran on another device is
// refused.
#include <optional>
#include <string>
#include <vector>

namespace gpumeter {

struct DeviceIdentity {
  std::string kind;  // "cuda" or "host"
  int index = 0;
  std::string name;
  std::string uuid;  // empty when not available
  std::string arch;  // "sm_90", or the host CPU architecture
  std::optional<int> multiprocessors;
  std::optional<long long> l2_bytes;
  std::optional<long long> memory_bytes;
};

// A version of the software a backend measures through (its driver, runtime, tracing library),
// named by the backend that read it: a public type holds no vendor's names, so a second vendor's
// backend adds its own versions without a field of its own. The record keeps each under its name
// (record_writer.cpp).
struct SoftwareVersion {
  std::string name;  // as the backend and the record name it
  int value = 0;
  bool operator==(const SoftwareVersion&) const = default;
};

// Device state read when the record was made. A counter that could not be read stays nullopt and is
// written as "not available": never invented.
struct DeviceState {
  std::optional<std::string> driver_version;
  std::vector<SoftwareVersion> software_versions;  // those read, in the backend's order
  std::optional<int> sm_clock_mhz;
  std::optional<int> sm_clock_max_mhz;
  std::optional<int> memory_clock_mhz;
  std::optional<int> temperature_c;
  std::optional<double> power_w;
  std::optional<unsigned long long> throttle_reasons;
  std::optional<int> utilization_pct;
  std::optional<long long> memory_free_bytes;
  std::optional<long long> memory_used_bytes;
  std::optional<int> compute_processes;
};

// A reading of DeviceState and, for each value that could not be read, why.
struct DeviceStateReading {
  DeviceState state;  // NVML's fields; the software versions are the backend's
  // One line per value (or group of values) that could not be read, with the reason, e.g.
  // "NVML not loaded: libnvidia-ml.so.1: cannot open shared object file" or
  // "temperature_c: nvmlDeviceGetTemperature returned 3 (Not Supported)".
  std::vector<std::string> unavailable;
  // How the NVML device was chosen ("uuid GPU-..." or "NVML index 0 ..."); "" when none was.
  std::string matched_by;
};

}  // namespace gpumeter
