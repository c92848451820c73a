// A stand-in for libnvidia-ml with known answers, so read_device_state's mapping of NVML values
// to DeviceState fields is tested without a GPU. It exports a subset on purpose:
// nvmlDeviceGetUtilizationRates is absent (a missing symbol), nvmlDeviceGetTemperature fails
// (a failed call), and only the pre-535 name of the clock-reasons function exists (the
// fallback). Signatures follow nvml.h; enums travel as int.
//
// Built once per driver generation (tests/unit/CMakeLists.txt), by what it exports:
//   GPUMETER_FAKE_NVML_PROCESS_LIST  3 (the default): nvmlDeviceGetComputeRunningProcesses_v3;
//                                    2: _v2 only; 1: only the unversioned name, which fills the
//                                    shorter nvmlProcessInfo_v1_t (older drivers)
//   GPUMETER_FAKE_NVML_REASONS       1 (the default): only the pre-535 name,
//                                    nvmlDeviceGetCurrentClocksThrottleReasons; 2: that and the
//                                    new nvmlDeviceGetCurrentClocksEventReasons, which answers
//                                    another mask (0x21), so a test sees which one was
//                                    called; 0: neither
//
// For the device lock's idle check (test_device_lock.cpp, tests/cli/test_lock.sh), two
// environment variables, read at every call, set what the device holds:
//   GPUMETER_FAKE_NVML_PROCESSES  the compute processes, "pid:used_bytes,pid:used_bytes" ("" for
//                                 none; "@FILE" reads that list from FILE, so a test can change
//                                 it while a waiter polls). Unset: three processes are counted
//                                 and their list cannot be read (the known answer of
//                                 test_device_state.cpp).
//   GPUMETER_FAKE_NVML_FREE_BYTES the free memory (total stays 150 GB; used is the rest).
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef GPUMETER_FAKE_NVML_PROCESS_LIST
#define GPUMETER_FAKE_NVML_PROCESS_LIST 3
#endif
#ifndef GPUMETER_FAKE_NVML_REASONS
#define GPUMETER_FAKE_NVML_REASONS 1
#endif

namespace {

struct FakeDevice {
  int id;
};
FakeDevice the_device{42};
int open_sessions = 0;  // nvmlInit_v2 calls not yet matched by nvmlShutdown

constexpr int kSuccess = 0;
constexpr int kInvalidArgument = 2;
constexpr int kNotSupported = 3;
constexpr int kNotFound = 6;
constexpr int kInsufficientSize = 7;
constexpr int kUninitialized = 1;

// test_device_state.cpp asks for this uuid.
constexpr const char* kUuid = "GPU-11111111-2222-3333-4444-555555555555";

bool usable(void* device) {
  return open_sessions > 0 && device == &the_device;
}

struct FakeProcess {
  unsigned int pid;
  unsigned long long used;
};

// GPUMETER_FAKE_NVML_PROCESSES, parsed; false when it is unset.
bool configured_processes(std::vector<FakeProcess>& out) {
  const char* env = std::getenv("GPUMETER_FAKE_NVML_PROCESSES");
  if (env == nullptr) return false;
  std::string list = env;
  if (!list.empty() && list[0] == '@') {
    std::ifstream in(list.substr(1));
    std::stringstream text;
    text << in.rdbuf();
    list = text.str();
  }
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto colon = item.find(':');
    if (item.find_first_not_of(" \n") == std::string::npos) continue;
    FakeProcess p{};
    p.pid = static_cast<unsigned int>(std::strtoul(item.c_str(), nullptr, 10));
    if (colon != std::string::npos) p.used = std::strtoull(item.c_str() + colon + 1, nullptr, 10);
    out.push_back(p);
  }
  return true;
}

}  // namespace

extern "C" {

// For the tests: sessions left open after a read (0 when every init had its shutdown).
int fake_nvml_open_sessions() {
  return open_sessions;
}

int nvmlInit_v2() {
  ++open_sessions;
  return kSuccess;
}

int nvmlShutdown() {
  if (open_sessions == 0) return kUninitialized;
  --open_sessions;
  return kSuccess;
}

const char* nvmlErrorString(int rc) {
  switch (rc) {
    case kNotSupported:
      return "Not Supported";
    case kNotFound:
      return "Not Found";
    default:
      return "Fake Error";
  }
}

int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  const char text[] = "550.54.15";
  if (open_sessions == 0) return kUninitialized;
  if (length < sizeof text) return kInsufficientSize;
  std::memcpy(version, text, sizeof text);
  return kSuccess;
}

int nvmlDeviceGetHandleByUUID(const char* uuid, void** device) {
  if (open_sessions == 0) return kUninitialized;
  if (std::strcmp(uuid, kUuid) != 0) return kNotFound;
  *device = &the_device;
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (open_sessions == 0) return kUninitialized;
  if (index != 0) return kInvalidArgument;
  *device = &the_device;
  return kSuccess;
}

int nvmlDeviceGetClockInfo(void* device, int type, unsigned int* mhz) {
  if (!usable(device)) return kInvalidArgument;
  switch (type) {
    case 1:  // NVML_CLOCK_SM
      *mhz = 1755;
      return kSuccess;
    case 2:  // NVML_CLOCK_MEM
      *mhz = 2619;
      return kSuccess;
    default:
      return kInvalidArgument;
  }
}

int nvmlDeviceGetMaxClockInfo(void* device, int type, unsigned int* mhz) {
  if (!usable(device) || type != 1) return kInvalidArgument;
  *mhz = 1980;
  return kSuccess;
}

int nvmlDeviceGetTemperature(void* device, int, unsigned int*) {
  return usable(device) ? kNotSupported : kInvalidArgument;
}

int nvmlDeviceGetPowerUsage(void* device, unsigned int* milliwatts) {
  if (!usable(device)) return kInvalidArgument;
  *milliwatts = 123456;
  return kSuccess;
}

#if GPUMETER_FAKE_NVML_REASONS >= 1
int nvmlDeviceGetCurrentClocksThrottleReasons(void* device, unsigned long long* reasons) {
  if (!usable(device)) return kInvalidArgument;
  *reasons = 0x8000000000000004ULL;
  return kSuccess;
}
#endif

#if GPUMETER_FAKE_NVML_REASONS >= 2
int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* reasons) {
  if (!usable(device)) return kInvalidArgument;
  *reasons = 0x21;  // idle and SW thermal
  return kSuccess;
}
#endif

struct FakeMemory {  // nvmlMemory_t (v1)
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

int nvmlDeviceGetMemoryInfo(void* device, FakeMemory* memory) {
  if (!usable(device)) return kInvalidArgument;
  memory->total = 150000000000ULL;
  memory->free = 140000000000ULL;
  if (const char* free = std::getenv("GPUMETER_FAKE_NVML_FREE_BYTES")) {
    memory->free = std::strtoull(free, nullptr, 10);
  }
  memory->used = memory->total - memory->free;
  return kSuccess;
}

}  // extern "C"

namespace {

struct FakeProcessInfo {  // nvmlProcessInfo_t, as _v3 and _v2 fill it
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
  static FakeProcessInfo of(const FakeProcess& p) {
    return {p.pid, p.used, 0xFFFFFFFFu, 0xFFFFFFFFu};  // no MIG instance
  }
};
struct FakeProcessInfoV1 {  // nvmlProcessInfo_v1_t, as the unversioned name fills it
  unsigned int pid;
  unsigned long long usedGpuMemory;
  static FakeProcessInfoV1 of(const FakeProcess& p) { return {p.pid, p.used}; }
};

template <typename Info>
int running_processes(void* device, unsigned int* count, Info* infos) {
  if (!usable(device)) return kInvalidArgument;
  std::vector<FakeProcess> list;
  if (!configured_processes(list)) {
    if (*count < 3 || infos == nullptr) {
      *count = 3;
      return kInsufficientSize;
    }
    return kInvalidArgument;  // unset: three are counted; filling their array is not faked
  }
  const auto n = static_cast<unsigned int>(list.size());
  if (n == 0) {
    *count = 0;
    return kSuccess;
  }
  if (*count < n || infos == nullptr) {
    *count = n;
    return kInsufficientSize;
  }
  for (unsigned int i = 0; i < n; ++i) infos[i] = Info::of(list[i]);
  *count = n;
  return kSuccess;
}

}  // namespace

extern "C" {

#if GPUMETER_FAKE_NVML_PROCESS_LIST == 3
int nvmlDeviceGetComputeRunningProcesses_v3(void* device, unsigned int* count,
                                            FakeProcessInfo* infos) {
  return running_processes(device, count, infos);
}
#elif GPUMETER_FAKE_NVML_PROCESS_LIST == 2
int nvmlDeviceGetComputeRunningProcesses_v2(void* device, unsigned int* count,
                                            FakeProcessInfo* infos) {
  return running_processes(device, count, infos);
}
#elif GPUMETER_FAKE_NVML_PROCESS_LIST == 1
int nvmlDeviceGetComputeRunningProcesses(void* device, unsigned int* count,
                                         FakeProcessInfoV1* infos) {
  return running_processes(device, count, infos);
}
#endif

}  // extern "C"
