#include "gpumeter/device_state.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

// The fake NVML built beside this test (fake_nvml.cpp): known answers for one device.
constexpr const char* kFakeUuid = "GPU-11111111-2222-3333-4444-555555555555";

bool mentions(const std::vector<std::string>& lines, const std::string& what) {
  for (const std::string& line : lines) {
    if (line.find(what) != std::string::npos) return true;
  }
  return false;
}

void expect_no_device_values(const DeviceState& s) {
  EXPECT_FALSE(s.sm_clock_mhz);
  EXPECT_FALSE(s.sm_clock_max_mhz);
  EXPECT_FALSE(s.memory_clock_mhz);
  EXPECT_FALSE(s.temperature_c);
  EXPECT_FALSE(s.power_w);
  EXPECT_FALSE(s.throttle_reasons);
  EXPECT_FALSE(s.utilization_pct);
  EXPECT_FALSE(s.memory_free_bytes);
  EXPECT_FALSE(s.memory_used_bytes);
  EXPECT_FALSE(s.compute_processes);
}

// Points the loader at `path` for one test, whatever the machine has installed.
class NvmlLibrary {
 public:
  explicit NvmlLibrary(const std::string& path) { ::setenv(kNvmlLibraryEnv, path.c_str(), 1); }
  ~NvmlLibrary() { ::unsetenv(kNvmlLibraryEnv); }
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;
};

TEST(DeviceState, WithoutNvmlEveryValueIsNotAvailableAndTheCauseIsNamed) {
  const NvmlLibrary missing("/nonexistent/libnvidia-ml.so.1");
  const DeviceStateReading r = read_device_state(kFakeUuid, 0);
  EXPECT_FALSE(r.state.driver_version);
  EXPECT_TRUE(r.state.software_versions.empty());
  expect_no_device_values(r.state);
  ASSERT_EQ(r.unavailable.size(), 1u);
  EXPECT_EQ(r.unavailable[0].rfind("NVML not loaded: ", 0), 0u) << r.unavailable[0];
  EXPECT_NE(r.unavailable[0].find("/nonexistent/libnvidia-ml.so.1"), std::string::npos)
      << r.unavailable[0];  // dlerror's text, which names the file
  EXPECT_EQ(r.matched_by, "");
  EXPECT_EQ(unavailable_deviation(r.unavailable),
            "device state: not available: " + r.unavailable[0]);
}

TEST(DeviceState, KnownAnswersFromAFakeNvmlLandInTheirFields) {
  const NvmlLibrary fake(GPUMETER_FAKE_NVML);
  const DeviceStateReading r = read_device_state(kFakeUuid, 7);  // the uuid wins over the index
  const DeviceState& s = r.state;
  EXPECT_EQ(r.matched_by, std::string("uuid ") + kFakeUuid);
  EXPECT_EQ(s.driver_version, "550.54.15");
  EXPECT_EQ(s.sm_clock_mhz, 1755);
  EXPECT_EQ(s.sm_clock_max_mhz, 1980);
  EXPECT_EQ(s.memory_clock_mhz, 2619);
  ASSERT_TRUE(s.power_w);
  EXPECT_DOUBLE_EQ(*s.power_w, 123.456);                 // 123456 mW
  EXPECT_EQ(s.throttle_reasons, 0x8000000000000004ULL);  // through the pre-535 name
  EXPECT_EQ(s.memory_free_bytes, 140000000000LL);
  EXPECT_EQ(s.memory_used_bytes, 10000000000LL);
  EXPECT_EQ(s.compute_processes, 3);

  // A failed call and a missing symbol leave their field alone and say why.
  EXPECT_FALSE(s.temperature_c);
  EXPECT_FALSE(s.utilization_pct);
  EXPECT_TRUE(mentions(r.unavailable,
                       "temperature_c: nvmlDeviceGetTemperature returned 3 (Not Supported)"));
  EXPECT_TRUE(
      mentions(r.unavailable, "utilization_pct: nvmlDeviceGetUtilizationRates not exported by "));
  EXPECT_EQ(r.unavailable.size(), 2u) << unavailable_deviation(r.unavailable);

  // NVML was left as found: every nvmlInit_v2 had its nvmlShutdown. The library stays mapped
  // after the read (RTLD_NODELETE), so its counter is still there to ask.
  void* lib = dlopen(GPUMETER_FAKE_NVML, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto* sessions = reinterpret_cast<int (*)()>(dlsym(lib, "fake_nvml_open_sessions"));
  ASSERT_NE(sessions, nullptr);
  EXPECT_EQ(sessions(), 0);
  dlclose(lib);
}

TEST(DeviceState, AnUnknownUuidReadsNoOtherDevice) {
  const NvmlLibrary fake(GPUMETER_FAKE_NVML);
  const DeviceStateReading r = read_device_state("GPU-00000000-0000-0000-0000-000000000000", 0);
  EXPECT_EQ(r.state.driver_version, "550.54.15");  // the system's, not the device's
  expect_no_device_values(r.state);
  EXPECT_EQ(r.matched_by, "");
  ASSERT_EQ(r.unavailable.size(), 1u);
  EXPECT_NE(r.unavailable[0].find("no NVML device with uuid GPU-00000000-0000-0000-0000-"
                                  "000000000000: nvmlDeviceGetHandleByUUID returned 6 (Not Found)"),
            std::string::npos)
      << r.unavailable[0];
}

TEST(DeviceState, WithoutAUuidTheIndexIsUsedAndSaidSo) {
  const NvmlLibrary fake(GPUMETER_FAKE_NVML);
  const DeviceStateReading r = read_device_state("", 0);
  EXPECT_EQ(r.state.sm_clock_mhz, 1755);
  EXPECT_EQ(r.matched_by.rfind("NVML index 0 ", 0), 0u) << r.matched_by;

  const DeviceStateReading none = read_device_state("", 5);
  expect_no_device_values(none.state);
  EXPECT_TRUE(mentions(none.unavailable, "no NVML device at index 5"));
}

// Other driver generations through the same table: the processes counted by whichever list the
// library exports, the reasons read by the newer name where both exist, and a query that is not
// there named with every name tried.
TEST(DeviceState, OlderAndNewerNamesAreReadThroughTheirFallbacks) {
  {
    const NvmlLibrary old(GPUMETER_FAKE_NVML_OLD);
    const DeviceStateReading r = read_device_state(kFakeUuid, 0);
    EXPECT_EQ(r.state.compute_processes, 3);  // by the unversioned name
    EXPECT_EQ(r.state.throttle_reasons, 0x8000000000000004ULL);
    EXPECT_EQ(r.unavailable.size(), 2u) << unavailable_deviation(r.unavailable);
  }
  {
    const NvmlLibrary v2(GPUMETER_FAKE_NVML_V2);
    const DeviceStateReading r = read_device_state(kFakeUuid, 0);
    EXPECT_EQ(r.state.compute_processes, 3);
    EXPECT_EQ(r.state.throttle_reasons, 0x21u);
  }
  {
    const NvmlLibrary none(GPUMETER_FAKE_NVML_NO_REASONS);
    const DeviceStateReading r = read_device_state(kFakeUuid, 0);
    EXPECT_FALSE(r.state.throttle_reasons);
    EXPECT_EQ(r.state.sm_clock_mhz, 1755);
    EXPECT_TRUE(mentions(r.unavailable,
                         std::string("throttle_reasons: nvmlDeviceGetCurrentClocksEventReasons or "
                                     "nvmlDeviceGetCurrentClocksThrottleReasons not exported by ") +
                             GPUMETER_FAKE_NVML_NO_REASONS));
  }
}

TEST(DeviceState, DeviationIsOneLine) {
  EXPECT_EQ(unavailable_deviation({}), "");
  EXPECT_EQ(unavailable_deviation({"a: x", "b: tried:\n  /p: gone\nInstall it"}),
            "device state: not available: a: x; b: tried: /p: gone Install it");
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
