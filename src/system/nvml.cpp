// The device state for the record (P2) and the idle check's reading (P1), through NVML
// (nvml_library.hpp).
#include "gpumeter/device_state.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpumeter/device_lock.hpp"
#include "nvml_library.hpp"

namespace gpumeter {
namespace {

namespace nvml = detail::nvml;

// Calls NVML for one value at a time; a missing symbol or a failed call leaves that value
// unset and says why in `unavailable`.
class Reader {
 public:
  Reader(const nvml::Library& lib, std::vector<std::string>& unavailable)
      : lib_(lib), unavailable_(unavailable) {}

  // fn(args..., &value) for `field`.
  template <typename Value, typename Fn, typename... Args>
  std::optional<Value> query(const char* field, const nvml::Symbol<Fn>& fn, Args... args) {
    std::string why;
    std::optional<Value> value = lib_.read<Value>(fn, why, args...);
    if (!value) missing(field, why);
    return value;
  }

  void missing(const std::string& what, const std::string& why) {
    unavailable_.push_back(what + ": " + why);
  }

 private:
  const nvml::Library& lib_;
  std::vector<std::string>& unavailable_;
};

constexpr const char* kDeviceValues =
    "sm_clock_mhz, sm_clock_max_mhz, memory_clock_mhz, temperature_c, power_w, throttle_reasons, "
    "utilization_pct, memory_free_bytes, memory_used_bytes, compute_processes";

void read_device_values(const nvml::Library& lib, Reader& r, nvml::Device device, DeviceState& st) {
  if (auto v = r.query<unsigned int>("sm_clock_mhz", lib.clock_info, device, nvml::kClockSm)) {
    st.sm_clock_mhz = static_cast<int>(*v);
  }
  if (auto v =
          r.query<unsigned int>("sm_clock_max_mhz", lib.max_clock_info, device, nvml::kClockSm)) {
    st.sm_clock_max_mhz = static_cast<int>(*v);
  }
  if (auto v = r.query<unsigned int>("memory_clock_mhz", lib.clock_info, device, nvml::kClockMem)) {
    st.memory_clock_mhz = static_cast<int>(*v);
  }
  if (auto v =
          r.query<unsigned int>("temperature_c", lib.temperature, device, nvml::kTemperatureGpu)) {
    st.temperature_c = static_cast<int>(*v);
  }
  if (auto v = r.query<unsigned int>("power_w", lib.power_usage, device)) {
    st.power_w = static_cast<double>(*v) / 1000.0;  // NVML reports milliwatts
  }
  if (auto v = r.query<unsigned long long>("throttle_reasons", lib.clocks_event_reasons, device)) {
    st.throttle_reasons = *v;
  }
  if (auto v = r.query<nvml::Utilization>("utilization_pct", lib.utilization, device)) {
    st.utilization_pct = static_cast<int>(v->gpu);
  }
  // v1: free + used = total, and used counts what the driver reserves too (nvml.h), so it is
  // not 0 on an idle device; nvidia-smi's memory.used leaves the reserve out.
  if (auto v =
          r.query<nvml::Memory>("memory_free_bytes, memory_used_bytes", lib.memory_info, device)) {
    st.memory_free_bytes = static_cast<long long>(v->free);
    st.memory_used_bytes = static_cast<long long>(v->used);
  }
  std::string why;
  if (const std::optional<int> n = nvml::count_compute_processes(lib, device, why)) {
    st.compute_processes = *n;
  } else {
    r.missing("compute_processes", why);
  }
}

}  // namespace

DeviceOccupancy read_device_occupancy(const std::string& gpu_uuid, int fallback_index) {
  DeviceOccupancy occupancy;
  const nvml::Session session;
  const nvml::Session::Found found = session.find_device(gpu_uuid, fallback_index);
  if (found.device == nullptr) {
    // NVML itself unusable is said as it is; a device not found names what went unread.
    occupancy.unavailable.push_back(
        session.library() == nullptr ? found.why : "compute processes, free memory: " + found.why);
    return occupancy;
  }
  occupancy.matched_by = found.matched_by;
  const nvml::Library& lib = *session.library();
  Reader reader(lib, occupancy.unavailable);
  if (auto v = reader.query<nvml::Memory>("free memory", lib.memory_info, found.device)) {
    occupancy.free_bytes = static_cast<long long>(v->free);
    occupancy.total_bytes = static_cast<long long>(v->total);
  }
  std::string why;
  occupancy.processes = nvml::compute_processes(lib, found.device, why);
  if (!occupancy.processes) reader.missing("compute processes", why);
  return occupancy;
}

DeviceStateReading read_device_state(const std::string& gpu_uuid, int fallback_index) {
  DeviceStateReading reading;
  const nvml::Session session;
  const nvml::Library* lib = session.library();
  if (lib == nullptr) {
    reading.unavailable.push_back(session.why_not());
    return reading;
  }
  Reader reader(*lib, reading.unavailable);

  // The driver is the system's, so it is read even when the device cannot be found.
  if (!lib->driver_version) {
    reader.missing("driver_version", lib->not_exported(lib->driver_version));
  } else {
    char version[nvml::kDriverVersionBufferSize] = {};
    if (const nvml::Return rc = lib->driver_version.get()(version, sizeof version);
        rc != nvml::kSuccess) {
      reader.missing("driver_version", lib->failure(lib->driver_version.name(), rc));
    } else {
      version[sizeof version - 1] = '\0';
      reading.state.driver_version = std::string(version);
    }
  }

  const nvml::Session::Found found = session.find_device(gpu_uuid, fallback_index);
  if (found.device == nullptr) {
    reader.missing(kDeviceValues, found.why);
    return reading;
  }
  reading.matched_by = found.matched_by;
  read_device_values(*lib, reader, found.device, reading.state);
  return reading;
}

std::string unavailable_deviation(const std::vector<std::string>& unavailable) {
  if (unavailable.empty()) return "";
  std::string line = "device state: not available: ";
  for (std::size_t i = 0; i < unavailable.size(); ++i) {
    if (i > 0) line += "; ";
    // One line, so tables can hold it: a multi-line cause (a loader's list of tried paths)
    // keeps its words, not its line breaks.
    bool at_break = false;
    for (const char c : unavailable[i]) {
      if (c == '\n' || (at_break && c == ' ')) {
        at_break = true;
        continue;
      }
      if (at_break) line += ' ';
      at_break = false;
      line += c;
    }
  }
  return line;
}

}  // namespace gpumeter
