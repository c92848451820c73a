#include "nvml_watch.hpp"

#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <set>
#include <vector>

#include "gpumeter/device_state.hpp"
#include "gpumeter/process_ids.hpp"

namespace gpumeter::detail {
namespace {

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlErrorInsufficientSize = 7;
constexpr int kNvmlClockSm = 1;  // nvmlClockType_t NVML_CLOCK_SM
constexpr unsigned long long kNvmlValueNotAvailable = ~0ULL;

// nvmlProcessInfo_t as nvmlDeviceGetComputeRunningProcesses_v3 (and _v2) fill it.
struct ProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes, or kNvmlValueNotAvailable
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

}  // namespace

NvmlWatch::NvmlWatch(const std::string& gpu_uuid) {
  if (gpu_uuid.empty()) {
    why_not_ = "the device has no uuid to find it by in NVML";
    return;
  }
  const char* path = std::getenv(kNvmlLibraryEnv);
  const std::string library = path != nullptr && *path != '\0' ? path : kNvmlDefaultLibrary;
  // RTLD_NODELETE, as the other NVML and CUPTI loaders: nothing the driver library registered
  // can outlive its code.
  library_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (library_ == nullptr) {
    const char* why = dlerror();
    why_not_ = "NVML not loaded: " + std::string(why != nullptr ? why : library);
    return;
  }
  using InitFn = int();
  using HandleFn = int(const char*, Device*);
  auto* init = reinterpret_cast<InitFn*>(dlsym(library_, "nvmlInit_v2"));
  auto* handle = reinterpret_cast<HandleFn*>(dlsym(library_, "nvmlDeviceGetHandleByUUID"));
  clock_ = reinterpret_cast<ClockFn*>(dlsym(library_, "nvmlDeviceGetClockInfo"));
  // The name since NVML 12.535; the older name reads the same mask.
  reasons_ =
      reinterpret_cast<ReasonsFn*>(dlsym(library_, "nvmlDeviceGetCurrentClocksEventReasons"));
  if (reasons_ == nullptr) {
    reasons_ =
        reinterpret_cast<ReasonsFn*>(dlsym(library_, "nvmlDeviceGetCurrentClocksThrottleReasons"));
  }
  auto* shutdown = reinterpret_cast<ShutdownFn*>(dlsym(library_, "nvmlShutdown"));
  processes_ =
      reinterpret_cast<ProcessesFn*>(dlsym(library_, "nvmlDeviceGetComputeRunningProcesses_v3"));
  if (processes_ == nullptr) {
    processes_ =
        reinterpret_cast<ProcessesFn*>(dlsym(library_, "nvmlDeviceGetComputeRunningProcesses_v2"));
  }
  if (init == nullptr || handle == nullptr || clock_ == nullptr || reasons_ == nullptr ||
      shutdown == nullptr) {
    why_not_ = "NVML lacks the clock or clock-event-reason queries";
    return;
  }
  if (const int rc = init(); rc != kNvmlSuccess) {
    why_not_ = "nvmlInit_v2 returned " + std::to_string(rc);
    return;
  }
  shutdown_ = shutdown;
  if (const int rc = handle(gpu_uuid.c_str(), &device_); rc != kNvmlSuccess) {
    device_ = nullptr;
    why_not_ = "NVML does not know the device " + gpu_uuid +
               " (nvmlDeviceGetHandleByUUID returned " + std::to_string(rc) + ")";
  }
}

NvmlWatch::~NvmlWatch() {
  if (shutdown_ != nullptr) (void)shutdown_();
  if (library_ != nullptr) dlclose(library_);
}

std::optional<ClockReading> NvmlWatch::read_clock() const {
  if (device_ == nullptr) return std::nullopt;
  unsigned int mhz = 0;
  unsigned long long reasons = 0;
  if (clock_(device_, kNvmlClockSm, &mhz) != kNvmlSuccess) return std::nullopt;
  if (reasons_(device_, &reasons) != kNvmlSuccess) return std::nullopt;
  return ClockReading{static_cast<int>(mhz), reasons};
}

std::optional<long long> NvmlWatch::process_memory(const std::set<long>& pids) const {
  if (device_ == nullptr || processes_ == nullptr) return std::nullopt;
  // The list may grow between asking its size and reading it: asked again, with room.
  unsigned int count = 0;
  int rc = processes_(device_, &count, nullptr);
  if (rc == kNvmlSuccess) return std::nullopt;  // no process at all: not even this one
  for (int attempt = 0; attempt < 4 && rc == kNvmlErrorInsufficientSize; ++attempt) {
    std::vector<ProcessInfo> infos(static_cast<std::size_t>(count) + 8);
    count = static_cast<unsigned int>(infos.size());
    rc = processes_(device_, &count, infos.data());
    if (rc != kNvmlSuccess) continue;
    std::vector<long> listed;
    for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
      listed.push_back(static_cast<long>(infos[i].pid));
    }
    const std::optional<std::size_t> mine = own_entry(listed, pids);
    if (!mine || infos[*mine].usedGpuMemory == kNvmlValueNotAvailable) return std::nullopt;
    return static_cast<long long>(infos[*mine].usedGpuMemory);
  }
  return std::nullopt;
}

}  // namespace gpumeter::detail
