#pragma once
// NVML as gpumeter uses it, in one place: the library loaded at run time, once per process (no
// link dependency, so a machine without the NVIDIA driver builds and runs gpumeter and records
// "not available"); every function it calls typed and resolved in one table, with the renamed
// and versioned names tried newest first; one init/shutdown discipline; one wording of why a
// value is not available; one reader of the compute-process list. The device state for the
// record (nvml.cpp), the device lock's idle check (read_device_occupancy) and the watch between
// iterations (nvml_watch.cpp) all read NVML through this.
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/device_lock.hpp"

namespace gpumeter::detail::nvml {

// NVML's C interface, declared here rather than included: nvml.h is not on every build machine
// and the library is loaded at run time. Values, layouts and signatures are nvml.h's (NVML API
// 12); each has been the same since the function appeared.
using Return = int;  // nvmlReturn_t, a C enum
struct DeviceSt;
using Device = DeviceSt*;  // nvmlDevice_t, opaque
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr int kClockSm = 1;                        // nvmlClockType_t NVML_CLOCK_SM
inline constexpr int kClockMem = 2;                       // NVML_CLOCK_MEM
inline constexpr int kTemperatureGpu = 0;                 // nvmlTemperatureSensors_t
inline constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE
struct Utilization {                                             // nvmlUtilization_t
  unsigned int gpu;     // percent of the sample period with a kernel running
  unsigned int memory;  // percent of it with device memory read or written
};
struct Memory {  // nvmlMemory_t (v1), what nvmlDeviceGetMemoryInfo fills; bytes
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

using InitFn = Return();
using ShutdownFn = Return();
using ErrorStringFn = const char*(Return);
using DriverVersionFn = Return(char*, unsigned int);
using HandleByUuidFn = Return(const char*, Device*);
using HandleByIndexFn = Return(unsigned int, Device*);
// GetClockInfo, GetMaxClockInfo (nvmlClockType_t) and GetTemperature (nvmlTemperatureSensors_t):
// the enum travels as an int.
using DeviceEnumUintFn = Return(Device, int, unsigned int*);
using DeviceUintFn = Return(Device, unsigned int*);
using DeviceU64Fn = Return(Device, unsigned long long*);
using UtilizationFn = Return(Device, Utilization*);
using MemoryFn = Return(Device, Memory*);
// The element layout of the array depends on the name resolved (compute_processes below).
using ProcessesFn = Return(Device, unsigned int*, void*);

// The unversioned process-list name: it fills nvmlProcessInfo_v1_t, the versioned names the
// longer nvmlProcessInfo_t.
inline constexpr const char* kProcessesV1Name = "nvmlDeviceGetComputeRunningProcesses";

// Resolves the first of `names` that `handle` exports; nullptr when none is. `found` gets its
// position in `names`.
void* resolve(void* handle, const std::vector<const char*>& names, std::size_t& found);

// One entry of the table: a function by the first of its names the library exports. NVML
// renames a function and keeps the old name only for some drivers, so the newest name goes
// first.
template <typename Fn>
class Symbol {
 public:
  Symbol(void* handle, std::initializer_list<const char*> names)
      : names_(names), fn_(reinterpret_cast<Fn*>(resolve(handle, names_, found_))) {}

  explicit operator bool() const { return fn_ != nullptr; }
  Fn* get() const { return fn_; }
  // The name resolved (the newest one when none was).
  const char* name() const { return names_[found_]; }
  const std::vector<const char*>& names() const { return names_; }

 private:
  std::vector<const char*> names_;
  std::size_t found_ = 0;
  Fn* fn_;
};

// The loaded library and its symbol table. Never unloaded: code that the driver library left
// registered (threads, atexit handlers) must not outlive it.
class Library {
 public:
  // The process's NVML: GPUMETER_NVML_LIBRARY when set and not empty, else libnvidia-ml.so.1,
  // loaded the first time that path is asked for and kept. nullptr when it cannot be loaded,
  // and `why` then says so ("NVML not loaded: " and the loader's text, which names the file).
  static const Library* load(std::string& why);

  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const std::string& path() const { return path_; }

  // "nvmlDeviceGetTemperature returned 3 (Not Supported)".
  std::string failure(const char* function, Return rc) const;

  // "nvmlA or nvmlB not exported by <path>".
  template <typename Fn>
  std::string not_exported(const Symbol<Fn>& s) const {
    return names_or(s.names()) + " not exported by " + path_;
  }

  // fn(args..., &value): the value, or nullopt with `why` saying which function is missing or
  // what it returned.
  template <typename Value, typename Fn, typename... Args>
  std::optional<Value> read(const Symbol<Fn>& fn, std::string& why, Args... args) const {
    if (!fn) {
      why = not_exported(fn);
      return std::nullopt;
    }
    Value value{};
    if (const Return rc = fn.get()(args..., &value); rc != kSuccess) {
      why = failure(fn.name(), rc);
      return std::nullopt;
    }
    return value;
  }

 private:
  Library(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}
  static std::string names_or(const std::vector<const char*>& names);

  std::string path_;
  void* handle_;

 public:
  // The table, resolved when the library is loaded.
  const Symbol<InitFn> init{handle_, {"nvmlInit_v2"}};
  const Symbol<ShutdownFn> shutdown{handle_, {"nvmlShutdown"}};
  const Symbol<ErrorStringFn> error_string{handle_, {"nvmlErrorString"}};
  const Symbol<DriverVersionFn> driver_version{handle_, {"nvmlSystemGetDriverVersion"}};
  const Symbol<HandleByUuidFn> handle_by_uuid{handle_, {"nvmlDeviceGetHandleByUUID"}};
  const Symbol<HandleByIndexFn> handle_by_index{handle_, {"nvmlDeviceGetHandleByIndex_v2"}};
  const Symbol<DeviceEnumUintFn> clock_info{handle_, {"nvmlDeviceGetClockInfo"}};
  const Symbol<DeviceEnumUintFn> max_clock_info{handle_, {"nvmlDeviceGetMaxClockInfo"}};
  const Symbol<DeviceEnumUintFn> temperature{handle_, {"nvmlDeviceGetTemperature"}};
  const Symbol<DeviceUintFn> power_usage{handle_, {"nvmlDeviceGetPowerUsage"}};  // milliwatts
  // Renamed in NVML 12.2 (driver 535); older drivers export only the Throttle name, which
  // reads the same mask.
  const Symbol<DeviceU64Fn> clocks_event_reasons{
      handle_,
      {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}};
  const Symbol<UtilizationFn> utilization{handle_, {"nvmlDeviceGetUtilizationRates"}};
  const Symbol<MemoryFn> memory_info{handle_, {"nvmlDeviceGetMemoryInfo"}};
  // _v3 and _v2 fill nvmlProcessInfo_t (with the MIG instance ids); the unversioned name, all
  // that older drivers export, fills the shorter nvmlProcessInfo_v1_t.
  const Symbol<ProcessesFn> compute_processes{
      handle_,
      {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
       kProcessesV1Name}};
};

// NVML initialized for as long as this lives: nvmlInit_v2, then nvmlShutdown. NVML counts its
// initializations, so a Session neither disturbs nor depends on another user of NVML in the
// process (a watch held through a run while the device state is read beside it).
class Session {
 public:
  // Loads the library (Library::load) and initializes it. Never throws.
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The initialized library; nullptr when it is not, and why_not() says why.
  const Library* library() const { return initialized_ ? library_ : nullptr; }
  // "NVML not loaded: ...", "NVML not usable: ..." or "NVML not initialized: ...".
  const std::string& why_not() const { return why_not_; }

  struct Found {
    Device device = nullptr;  // nullptr when not found, and `why` says why
    std::string matched_by;   // "uuid GPU-...", or "NVML index N (...)"
    std::string why;
  };
  // The device by its uuid ("GPU-..."): when NVML does not know it, no other device is read in
  // its place. Only an empty uuid falls back to `fallback_index`, read as NVML's own index (PCI
  // bus order, whatever CUDA_VISIBLE_DEVICES says).
  Found find_device(const std::string& gpu_uuid, int fallback_index) const;

 private:
  const Library* library_ = nullptr;
  bool initialized_ = false;
  std::string why_not_;
};

// How many compute processes `device` has (each with a context on it; this process's too once
// it holds one): counted, not listed, so any of the names serves. nullopt with `why`.
std::optional<int> count_compute_processes(const Library& lib, Device device, std::string& why);

// The compute processes on `device` with their pids and memory, read in the layout of the name
// the library exports. The list can grow between asking its size and reading it: asked again,
// with room. nullopt with `why`.
std::optional<std::vector<ComputeProcess>> compute_processes(const Library& lib, Device device,
                                                             std::string& why);

}  // namespace gpumeter::detail::nvml
