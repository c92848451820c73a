#include "nvml_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "gpumeter/device_state.hpp"

namespace gpumeter::detail::nvml {
namespace {

// nvmlProcessInfo_t, filled by nvmlDeviceGetComputeRunningProcesses_v3 (and
// nvmlProcessInfo_v2_t, the same layout, by _v2).
struct ProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes, or kValueNotAvailable
  unsigned int gpuInstanceId;        // MIG only; 0xFFFFFFFF otherwise
  unsigned int computeInstanceId;
};
// nvmlProcessInfo_v1_t, filled by the unversioned name.
struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};

template <typename Info>
std::optional<std::vector<ComputeProcess>> list_processes(const Library& lib, Device device,
                                                          std::string& why) {
  ProcessesFn* fn = lib.compute_processes.get();
  unsigned int count = 0;
  Return rc = fn(device, &count, nullptr);
  if (rc == kSuccess) return std::vector<ComputeProcess>{};
  // Four rounds, each with room for 8 more than the count just given: a list that grows past
  // that four times while it is read is not a list to act on.
  for (int attempt = 0; attempt < 4 && rc == kErrorInsufficientSize; ++attempt) {
    std::vector<Info> infos(static_cast<std::size_t>(count) + 8);
    count = static_cast<unsigned int>(infos.size());
    rc = fn(device, &count, infos.data());
    if (rc != kSuccess) continue;
    std::vector<ComputeProcess> out;
    for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
      ComputeProcess p;
      p.pid = infos[i].pid;
      if (infos[i].usedGpuMemory != kValueNotAvailable) {
        p.used_bytes = static_cast<long long>(infos[i].usedGpuMemory);
      }
      out.push_back(p);
    }
    return out;
  }
  why = lib.failure(lib.compute_processes.name(), rc);
  return std::nullopt;
}

}  // namespace

void* resolve(void* handle, const std::vector<const char*>& names, std::size_t& found) {
  found = 0;
  for (std::size_t i = 0; handle != nullptr && i < names.size(); ++i) {
    if (void* fn = ::dlsym(handle, names[i]); fn != nullptr) {
      found = i;
      return fn;
    }
  }
  return nullptr;
}

const Library* Library::load(std::string& why) {
  const char* env = std::getenv(kNvmlLibraryEnv);
  const std::string path = env != nullptr && *env != '\0' ? env : kNvmlDefaultLibrary;
  // One per path and never freed (see the class): a test, or a user between runs, may point
  // GPUMETER_NVML_LIBRARY elsewhere, and a watch may outlive any static destructor's turn.
  static std::mutex mutex;
  static auto& loaded = *new std::map<std::string, std::unique_ptr<const Library>>();
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = loaded.find(path); it != loaded.end()) return it->second.get();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    // Not remembered: a driver installed later is found by the next read.
    const char* e = ::dlerror();
    why = "NVML not loaded: " + (e != nullptr ? std::string(e) : path + ": not loadable");
    return nullptr;
  }
  auto& slot = loaded[path];
  slot.reset(new Library(path, handle));
  return slot.get();
}

std::string Library::failure(const char* function, Return rc) const {
  std::string text = std::string(function) + " returned " + std::to_string(rc);
  if (error_string) {
    if (const char* name = error_string.get()(rc); name != nullptr) {
      text += " (" + std::string(name) + ")";
    }
  }
  return text;
}

std::string Library::names_or(const std::vector<const char*>& names) {
  std::string list;
  for (const char* n : names) list += (list.empty() ? "" : " or ") + std::string(n);
  return list;
}

Session::Session() {
  library_ = Library::load(why_not_);
  if (library_ == nullptr) return;
  const Library& lib = *library_;
  if (!lib.init || !lib.shutdown) {
    why_not_ = "NVML not usable: " +
               (lib.init ? lib.not_exported(lib.shutdown) : lib.not_exported(lib.init));
    return;
  }
  if (const Return rc = lib.init.get()(); rc != kSuccess) {
    why_not_ = "NVML not initialized: " + lib.failure(lib.init.name(), rc);
    return;
  }
  initialized_ = true;
}

Session::~Session() {
  if (initialized_) (void)library_->shutdown.get()();
}

Session::Found Session::find_device(const std::string& gpu_uuid, int fallback_index) const {
  Found f;
  const Library* lib = library();
  if (lib == nullptr) {
    f.why = why_not_;
    return f;
  }
  if (!gpu_uuid.empty()) {
    // Only by uuid: when NVML does not know it, reading another device would be a guess.
    std::string why;
    if (const auto device = lib->read<Device>(lib->handle_by_uuid, why, gpu_uuid.c_str())) {
      f.device = *device;
      f.matched_by = "uuid " + gpu_uuid;
    } else {
      f.why = lib->handle_by_uuid ? "no NVML device with uuid " + gpu_uuid + ": " + why +
                                        "; NVML does not know the device, and no other device "
                                        "is read in its place"
                                  : why;
    }
    return f;
  }
  if (fallback_index < 0) {
    f.why = "no uuid given and index " + std::to_string(fallback_index) + " is not a device";
    return f;
  }
  const auto index = static_cast<unsigned int>(fallback_index);
  std::string why;
  if (const auto device = lib->read<Device>(lib->handle_by_index, why, index)) {
    f.device = *device;
    f.matched_by = "NVML index " + std::to_string(index) +
                   " (no uuid given; NVML's order ignores CUDA_VISIBLE_DEVICES)";
  } else {
    f.why = lib->handle_by_index ? "no NVML device at index " + std::to_string(index) + ": " + why
                                 : why;
  }
  return f;
}

std::optional<int> count_compute_processes(const Library& lib, Device device, std::string& why) {
  if (!lib.compute_processes) {
    why = lib.not_exported(lib.compute_processes);
    return std::nullopt;
  }
  // A count of 0 with no array returns the count as INSUFFICIENT_SIZE, or SUCCESS when there
  // are none.
  unsigned int count = 0;
  const Return rc = lib.compute_processes.get()(device, &count, nullptr);
  if (rc == kSuccess || rc == kErrorInsufficientSize) return static_cast<int>(count);
  why = lib.failure(lib.compute_processes.name(), rc);
  return std::nullopt;
}

std::optional<std::vector<ComputeProcess>> compute_processes(const Library& lib, Device device,
                                                             std::string& why) {
  if (!lib.compute_processes) {
    why = lib.not_exported(lib.compute_processes);
    return std::nullopt;
  }
  if (std::strcmp(lib.compute_processes.name(), kProcessesV1Name) == 0) {
    return list_processes<ProcessInfoV1>(lib, device, why);
  }
  return list_processes<ProcessInfo>(lib, device, why);
}

}  // namespace gpumeter::detail::nvml
