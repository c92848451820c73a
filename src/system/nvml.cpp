#include "gpumeter/device_state.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/device_lock.hpp"

namespace gpumeter {
namespace {

// NVML's C interface, declared here rather than included: nvml.h is not on every build machine
// and the library is loaded at run time. Values, layouts and signatures are nvml.h's (NVML API
// 12); each has been the same since the function appeared.
using NvmlReturn = int;  // nvmlReturn_t, a C enum
struct NvmlDeviceSt;
using NvmlDevice = NvmlDeviceSt*;  // nvmlDevice_t, opaque
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlErrorInsufficientSize = 7;
constexpr int kNvmlClockSm = 1;                    // nvmlClockType_t NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;                   // NVML_CLOCK_MEM
constexpr int kNvmlTemperatureGpu = 0;             // nvmlTemperatureSensors_t
constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
struct NvmlUtilization {                           // nvmlUtilization_t
  unsigned int gpu;     // percent of the sample period with a kernel running
  unsigned int memory;  // percent of it with device memory read or written
};
struct NvmlMemory {  // nvmlMemory_t (v1), what nvmlDeviceGetMemoryInfo fills; bytes
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

using InitFn = NvmlReturn();
using ShutdownFn = NvmlReturn();
using ErrorStringFn = const char*(NvmlReturn);
using DriverVersionFn = NvmlReturn(char*, unsigned int);
using HandleByUuidFn = NvmlReturn(const char*, NvmlDevice*);
using HandleByIndexFn = NvmlReturn(unsigned int, NvmlDevice*);
// GetClockInfo, GetMaxClockInfo (nvmlClockType_t) and GetTemperature (nvmlTemperatureSensors_t):
// the enum travels as an int.
using DeviceEnumUintFn = NvmlReturn(NvmlDevice, int, unsigned int*);
using DeviceUintFn = NvmlReturn(NvmlDevice, unsigned int*);
using DeviceU64Fn = NvmlReturn(NvmlDevice, unsigned long long*);
using UtilizationFn = NvmlReturn(NvmlDevice, NvmlUtilization*);
using MemoryFn = NvmlReturn(NvmlDevice, NvmlMemory*);
// read_device_values passes no infos array (count 0, NULL), so the element layout does not
// matter there; read_device_occupancy passes one of the layouts below.
using ProcessesFn = NvmlReturn(NvmlDevice, unsigned int*, void*);
// nvmlProcessInfo_t, filled by nvmlDeviceGetComputeRunningProcesses_v3 (and
// nvmlProcessInfo_v2_t, the same layout, by _v2).
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes, or kNvmlValueNotAvailable
  unsigned int gpuInstanceId;        // MIG only; 0xFFFFFFFF otherwise
  unsigned int computeInstanceId;
};
// nvmlProcessInfo_v1_t, filled by the unversioned nvmlDeviceGetComputeRunningProcesses.
struct NvmlProcessInfoV1 {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};
constexpr unsigned long long kNvmlValueNotAvailable = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE

// The loaded library, released (dlclose) when the read is done.
class Library {
 public:
  explicit Library(std::string path) : path_(std::move(path)) {
    // RTLD_NODELETE: dlclose drops the reference but keeps the code mapped, as the CUPTI loader
    // does, so nothing the driver library left registered can outlive its code.
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle_ == nullptr) {
      const char* why = dlerror();
      error_ = why != nullptr ? why : path_ + ": not loadable";
    }
  }
  ~Library() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

  template <typename Fn>
  Fn* get(const char* name) const {
    return handle_ == nullptr ? nullptr : reinterpret_cast<Fn*>(dlsym(handle_, name));
  }

 private:
  std::string path_;
  void* handle_ = nullptr;
  std::string error_;
};

// nvmlInit_v2 ... nvmlShutdown around one read: NVML counts its initializations, so this
// neither disturbs nor depends on another user of NVML in the process.
class Session {
 public:
  explicit Session(ShutdownFn* shutdown) : shutdown_(shutdown) {}
  ~Session() {
    if (shutdown_ != nullptr) (void)shutdown_();
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  ShutdownFn* shutdown_;
};

// Calls NVML for one value at a time; a missing symbol or a failed call leaves that value
// unset and says why in `unavailable`.
class Reader {
 public:
  Reader(const Library& lib, std::vector<std::string>& unavailable)
      : lib_(lib),
        error_string_(lib.get<ErrorStringFn>("nvmlErrorString")),
        unavailable_(unavailable) {}

  std::string failure(const char* function, NvmlReturn rc) const {
    std::string text = std::string(function) + " returned " + std::to_string(rc);
    if (error_string_ != nullptr) {
      if (const char* name = error_string_(rc); name != nullptr) {
        text += " (" + std::string(name) + ")";
      }
    }
    return text;
  }

  std::string not_exported(std::initializer_list<const char*> names) const {
    std::string list;
    for (const char* n : names) list += (list.empty() ? "" : " or ") + std::string(n);
    return list + " not exported by " + lib_.path();
  }

  // The first of `names` that the library exports: NVML renames a function and keeps the old
  // name only for some drivers, so the newest name goes first. `used` gets the name found.
  template <typename Fn>
  Fn* find(std::initializer_list<const char*> names, const char*& used) const {
    for (const char* name : names) {
      if (Fn* fn = lib_.get<Fn>(name); fn != nullptr) {
        used = name;
        return fn;
      }
    }
    return nullptr;
  }

  // fn(args..., &value) for `field`.
  template <typename Fn, typename Value, typename... Args>
  std::optional<Value> query(const char* field, std::initializer_list<const char*> names,
                             Args... args) {
    const char* used = nullptr;
    Fn* fn = find<Fn>(names, used);
    if (fn == nullptr) {
      missing(field, not_exported(names));
      return std::nullopt;
    }
    Value value{};
    if (const NvmlReturn rc = fn(args..., &value); rc != kNvmlSuccess) {
      missing(field, failure(used, rc));
      return std::nullopt;
    }
    return value;
  }

  void missing(const std::string& what, const std::string& why) {
    unavailable_.push_back(what + ": " + why);
  }

 private:
  const Library& lib_;
  ErrorStringFn* error_string_;
  std::vector<std::string>& unavailable_;
};

constexpr const char* kDeviceValues =
    "sm_clock_mhz, sm_clock_max_mhz, memory_clock_mhz, temperature_c, power_w, throttle_reasons, "
    "utilization_pct, memory_free_bytes, memory_used_bytes, compute_processes";

// The handle of the measured device, or nullptr with the reason in `why`.
NvmlDevice find_device(const Library& lib, const Reader& reader, const std::string& gpu_uuid,
                       int fallback_index, std::string& matched_by, std::string& why) {
  NvmlDevice device = nullptr;
  if (!gpu_uuid.empty()) {
    // Only by uuid: when NVML does not know it, reading another device would be a guess.
    auto* by_uuid = lib.get<HandleByUuidFn>("nvmlDeviceGetHandleByUUID");
    if (by_uuid == nullptr) {
      why = reader.not_exported({"nvmlDeviceGetHandleByUUID"});
    } else if (const NvmlReturn rc = by_uuid(gpu_uuid.c_str(), &device); rc != kNvmlSuccess) {
      why = "no NVML device with uuid " + gpu_uuid + ": " +
            reader.failure("nvmlDeviceGetHandleByUUID", rc);
      device = nullptr;
    } else {
      matched_by = "uuid " + gpu_uuid;
    }
    return device;
  }
  if (fallback_index < 0) {
    why = "no uuid given and index " + std::to_string(fallback_index) + " is not a device";
    return nullptr;
  }
  auto* by_index = lib.get<HandleByIndexFn>("nvmlDeviceGetHandleByIndex_v2");
  const auto index = static_cast<unsigned int>(fallback_index);
  if (by_index == nullptr) {
    why = reader.not_exported({"nvmlDeviceGetHandleByIndex_v2"});
  } else if (const NvmlReturn rc = by_index(index, &device); rc != kNvmlSuccess) {
    why = "no NVML device at index " + std::to_string(index) + ": " +
          reader.failure("nvmlDeviceGetHandleByIndex_v2", rc);
    device = nullptr;
  } else {
    matched_by = "NVML index " + std::to_string(index) +
                 " (no uuid given; NVML's order ignores CUDA_VISIBLE_DEVICES)";
  }
  return device;
}

void read_device_values(Reader& r, NvmlDevice device, DeviceState& st) {
  if (auto v = r.query<DeviceEnumUintFn, unsigned int>("sm_clock_mhz", {"nvmlDeviceGetClockInfo"},
                                                       device, kNvmlClockSm)) {
    st.sm_clock_mhz = static_cast<int>(*v);
  }
  if (auto v = r.query<DeviceEnumUintFn, unsigned int>(
          "sm_clock_max_mhz", {"nvmlDeviceGetMaxClockInfo"}, device, kNvmlClockSm)) {
    st.sm_clock_max_mhz = static_cast<int>(*v);
  }
  if (auto v = r.query<DeviceEnumUintFn, unsigned int>(
          "memory_clock_mhz", {"nvmlDeviceGetClockInfo"}, device, kNvmlClockMem)) {
    st.memory_clock_mhz = static_cast<int>(*v);
  }
  if (auto v = r.query<DeviceEnumUintFn, unsigned int>(
          "temperature_c", {"nvmlDeviceGetTemperature"}, device, kNvmlTemperatureGpu)) {
    st.temperature_c = static_cast<int>(*v);
  }
  if (auto v =
          r.query<DeviceUintFn, unsigned int>("power_w", {"nvmlDeviceGetPowerUsage"}, device)) {
    st.power_w = static_cast<double>(*v) / 1000.0;  // NVML reports milliwatts
  }
  // Renamed in NVML 12.2 (driver 535); older drivers export only the Throttle name.
  if (auto v = r.query<DeviceU64Fn, unsigned long long>(
          "throttle_reasons",
          {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"},
          device)) {
    st.throttle_reasons = *v;
  }
  if (auto v = r.query<UtilizationFn, NvmlUtilization>("utilization_pct",
                                                       {"nvmlDeviceGetUtilizationRates"}, device)) {
    st.utilization_pct = static_cast<int>(v->gpu);
  }
  // v1: free + used = total, and used counts what the driver reserves too (nvml.h), so it is
  // not 0 on an idle device; nvidia-smi's memory.used leaves the reserve out.
  if (auto v = r.query<MemoryFn, NvmlMemory>("memory_free_bytes, memory_used_bytes",
                                             {"nvmlDeviceGetMemoryInfo"}, device)) {
    st.memory_free_bytes = static_cast<long long>(v->free);
    st.memory_used_bytes = static_cast<long long>(v->used);
  }

  // Counted, not listed: a count of 0 with no array returns the number of processes with a
  // compute context (gpumeter's own included once it holds one) as INSUFFICIENT_SIZE, or
  // SUCCESS when there are none. Any version serves, since no array is passed.
  const std::initializer_list<const char*> processes = {"nvmlDeviceGetComputeRunningProcesses_v3",
                                                        "nvmlDeviceGetComputeRunningProcesses_v2",
                                                        "nvmlDeviceGetComputeRunningProcesses"};
  const char* used = nullptr;
  if (auto* fn = r.find<ProcessesFn>(processes, used); fn == nullptr) {
    r.missing("compute_processes", r.not_exported(processes));
  } else {
    unsigned int count = 0;
    const NvmlReturn rc = fn(device, &count, nullptr);
    if (rc == kNvmlSuccess || rc == kNvmlErrorInsufficientSize) {
      st.compute_processes = static_cast<int>(count);
    } else {
      r.missing("compute_processes", r.failure(used, rc));
    }
  }
}

// The compute processes with their pids, or nullopt with the reason in `r`. The list can grow
// between asking its size and reading it (INSUFFICIENT_SIZE again): asked again, with room.
template <typename Info>
std::optional<std::vector<ComputeProcess>> read_processes(Reader& r, ProcessesFn* fn,
                                                          const char* used, NvmlDevice device) {
  unsigned int count = 0;
  NvmlReturn rc = fn(device, &count, nullptr);
  if (rc == kNvmlSuccess) return std::vector<ComputeProcess>{};
  for (int attempt = 0; attempt < 4 && rc == kNvmlErrorInsufficientSize; ++attempt) {
    std::vector<Info> infos(static_cast<std::size_t>(count) + 8);
    count = static_cast<unsigned int>(infos.size());
    rc = fn(device, &count, infos.data());
    if (rc == kNvmlSuccess) {
      std::vector<ComputeProcess> out;
      for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
        ComputeProcess p;
        p.pid = infos[i].pid;
        if (infos[i].usedGpuMemory != kNvmlValueNotAvailable) {
          p.used_bytes = static_cast<long long>(infos[i].usedGpuMemory);
        }
        out.push_back(p);
      }
      return out;
    }
  }
  r.missing("compute processes", r.failure(used, rc));
  return std::nullopt;
}

}  // namespace

DeviceOccupancy read_device_occupancy(const std::string& gpu_uuid, int fallback_index) {
  DeviceOccupancy occupancy;
  const char* override_path = std::getenv(kNvmlLibraryEnv);
  const Library lib(override_path != nullptr && *override_path != '\0' ? override_path
                                                                       : kNvmlDefaultLibrary);
  if (!lib.loaded()) {
    occupancy.unavailable.push_back("NVML not loaded: " + lib.error());
    return occupancy;
  }
  Reader reader(lib, occupancy.unavailable);
  auto* init = lib.get<InitFn>("nvmlInit_v2");
  auto* shutdown = lib.get<ShutdownFn>("nvmlShutdown");
  if (init == nullptr || shutdown == nullptr) {
    reader.missing("NVML not usable", reader.not_exported({"nvmlInit_v2", "nvmlShutdown"}));
    return occupancy;
  }
  if (const NvmlReturn rc = init(); rc != kNvmlSuccess) {
    reader.missing("NVML not initialized", reader.failure("nvmlInit_v2", rc));
    return occupancy;
  }
  const Session session(shutdown);
  std::string why;
  const NvmlDevice device =
      find_device(lib, reader, gpu_uuid, fallback_index, occupancy.matched_by, why);
  if (device == nullptr) {
    reader.missing("compute processes, free memory", why);
    return occupancy;
  }
  if (auto v =
          reader.query<MemoryFn, NvmlMemory>("free memory", {"nvmlDeviceGetMemoryInfo"}, device)) {
    occupancy.free_bytes = static_cast<long long>(v->free);
    occupancy.total_bytes = static_cast<long long>(v->total);
  }
  // The versioned names fill the layout with MIG ids; only the oldest fills the short one.
  const char* used = nullptr;
  if (auto* fn = reader.find<ProcessesFn>(
          {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"},
          used)) {
    occupancy.processes = read_processes<NvmlProcessInfo>(reader, fn, used, device);
  } else if (auto* v1 = reader.find<ProcessesFn>({"nvmlDeviceGetComputeRunningProcesses"}, used)) {
    occupancy.processes = read_processes<NvmlProcessInfoV1>(reader, v1, used, device);
  } else {
    reader.missing("compute processes",
                   reader.not_exported({"nvmlDeviceGetComputeRunningProcesses_v3",
                                        "nvmlDeviceGetComputeRunningProcesses_v2",
                                        "nvmlDeviceGetComputeRunningProcesses"}));
  }
  return occupancy;
}

DeviceStateReading read_device_state(const std::string& gpu_uuid, int fallback_index) {
  DeviceStateReading reading;
  const char* override_path = std::getenv(kNvmlLibraryEnv);
  const Library lib(override_path != nullptr && *override_path != '\0' ? override_path
                                                                       : kNvmlDefaultLibrary);
  if (!lib.loaded()) {
    reading.unavailable.push_back("NVML not loaded: " + lib.error());
    return reading;
  }
  Reader reader(lib, reading.unavailable);
  auto* init = lib.get<InitFn>("nvmlInit_v2");
  auto* shutdown = lib.get<ShutdownFn>("nvmlShutdown");
  if (init == nullptr || shutdown == nullptr) {
    reader.missing("NVML not usable", reader.not_exported({"nvmlInit_v2", "nvmlShutdown"}));
    return reading;
  }
  if (const NvmlReturn rc = init(); rc != kNvmlSuccess) {
    reader.missing("NVML not initialized", reader.failure("nvmlInit_v2", rc));
    return reading;
  }
  const Session session(shutdown);

  // The driver is the system's, so it is read even when the device cannot be found.
  if (auto* fn = lib.get<DriverVersionFn>("nvmlSystemGetDriverVersion"); fn == nullptr) {
    reader.missing("driver_version", reader.not_exported({"nvmlSystemGetDriverVersion"}));
  } else {
    char version[kDriverVersionBufferSize] = {};
    if (const NvmlReturn rc = fn(version, kDriverVersionBufferSize); rc != kNvmlSuccess) {
      reader.missing("driver_version", reader.failure("nvmlSystemGetDriverVersion", rc));
    } else {
      version[kDriverVersionBufferSize - 1] = '\0';
      reading.state.driver_version = std::string(version);
    }
  }

  std::string why;
  const NvmlDevice device =
      find_device(lib, reader, gpu_uuid, fallback_index, reading.matched_by, why);
  if (device == nullptr) {
    reader.missing(kDeviceValues, why);
    return reading;
  }
  read_device_values(reader, device, reading.state);
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
