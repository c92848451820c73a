#include "gpumeter/detail/clock_state.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpumeter/device_state.hpp"
#include "gpumeter/process_ids.hpp"
#include "gpumeter/throttle_reasons.hpp"
#include "nvml_library.hpp"
#include "nvml_watch.hpp"

namespace gpumeter {
namespace GPUMETER_THIS_FILE {

TEST(ClockState, ASampleTakesTheLowerClockAndEveryReason) {
  const ClockReading s = around_sample({1980, 0x1}, {1755, 0x4});
  EXPECT_EQ(s.sm_mhz, 1755);
  EXPECT_EQ(s.throttle_reasons, 0x5u);
}

// The H200's routine state under load: the power cap set, the clock a step under the maximum.
// A flag there would be on for every sample of a loaded GPU and tell a reader nothing.
TEST(ClockState, RoutinePowerCapNearTheReferenceIsNotFlagged) {
  const int reference = 1980;
  EXPECT_FALSE(clock_flagged({1980, 0}, reference));
  EXPECT_FALSE(clock_flagged({1980, kReasonSwPowerCap}, reference));
  EXPECT_FALSE(clock_flagged({1960, kReasonSwPowerCap}, reference));  // 99%
  EXPECT_FALSE(clock_flagged({1965, kReasonSwPowerCap | kReasonIdle}, reference));
  // Down to the line: 95% of 1980 is 1881 MHz.
  EXPECT_FALSE(clock_flagged({1881, kReasonSwPowerCap}, reference));
  EXPECT_TRUE(clock_flagged({1880, kReasonSwPowerCap}, reference));
}

TEST(ClockState, AClockFarBelowTheReferenceIsFlaggedWhateverTheReasons) {
  const int reference = 1980;
  EXPECT_TRUE(clock_flagged({1386, 0}, reference));  // 70%
  EXPECT_TRUE(clock_flagged({1386, kReasonSwPowerCap}, reference));
  EXPECT_TRUE(clock_flagged({1695, kReasonSwPowerCap}, reference));  // the 8192^3 GEMM's cap
  EXPECT_TRUE(clock_flagged({345, kReasonIdle}, reference));         // still at idle clock
  EXPECT_TRUE(clock_below_reference(0.7 * 1980, 1980));
  EXPECT_FALSE(clock_below_reference(0.99 * 1980, 1980));
}

TEST(ClockState, ThermalAndHardwareSlowdownsAreFlaggedAtAnyClock) {
  for (const std::uint64_t reason :
       {kReasonHwSlowdown, kReasonSwThermal, kReasonHwThermal, kReasonHwPowerBrake}) {
    EXPECT_TRUE(clock_flagged({1980, reason}, 1980)) << reason;
    EXPECT_TRUE(clock_flagged({1960, reason | kReasonSwPowerCap}, 1980)) << reason;
    EXPECT_TRUE(clock_flagged({1386, reason}, 1980)) << reason;
  }
  // States and settings never flag.
  for (const std::uint64_t setting : {kReasonIdle, kReasonApplicationClocks, kReasonSyncBoost,
                                      kReasonDisplayClocks, kReasonSwPowerCap}) {
    EXPECT_FALSE(clock_flagged({1980, setting}, 1980)) << setting;
  }
}

// A row's summary: the reference is its highest clock, whatever the first sample's.
TEST(ClockState, ARowsSummaryCountsFlagsAndReasonsAgainstItsHighestClock) {
  // Starts power-capped at 1665 MHz (the cap of a GEMM before it), climbs back to 1980; one
  // sample under HW slowdown at 1965, two power-capped at 1965.
  const std::vector<ClockReading> row{{1665, 0x4},       {1665, 0x4}, {1965, 0x4},
                                      {1965, 0x4 | 0x8}, {1980, 0},   {1980, 0x1}};
  const ClockSummary c = summarize_clocks(row);
  EXPECT_EQ(c.samples, 6u);
  EXPECT_EQ(c.min_mhz, 1665);
  EXPECT_EQ(c.max_mhz, 1980);
  EXPECT_DOUBLE_EQ(c.median_mhz, 1965);
  EXPECT_EQ(c.below_reference, 2u);  // 1665 < 1881
  EXPECT_EQ(c.flagged, 3u);          // those two and the HW slowdown
  EXPECT_EQ(c.sw_power_cap, 4u);
  EXPECT_EQ(c.hw_slowdown, 1u);
  EXPECT_EQ(c.sw_thermal + c.hw_thermal + c.hw_power_brake, 0u);
  // The rule of schema version 3, kept to check its records: every power-capped sample and
  // every sample below the first one's clock (none here: the first was the lowest).
  EXPECT_EQ(schema_3_flagged_samples(row), 4u);
  EXPECT_THROW(summarize_clocks({}), std::invalid_argument);
}

TEST(ClockState, TheFlagsAreExplainedInWords) {
  const ClockSummary c = summarize_clocks({{1665, 0x4}, {1980, 0x20}, {1980, 0x4}, {1980, 0}});
  EXPECT_EQ(describe_clock_flags(c, 4),
            "2 of 4 samples clock-flagged: 1 ran below 95% of the row's highest SM clock (1980 "
            "MHz), down to 1665 MHz; a SW thermal slowdown was set around 1; the SW power cap was "
            "set around 2 (routine; not a flag by itself)");
}

// Comparisons use the same rule on the rows' medians.
TEST(ClockState, RowsRanAtDifferentClocksByTheSameRule) {
  EXPECT_FALSE(clocks_differ(1980, 1980));
  EXPECT_FALSE(clocks_differ(1980, 1965));  // one 15 MHz step, the routine cap
  EXPECT_FALSE(clocks_differ(1960, 1980));  // 99%
  EXPECT_FALSE(clocks_differ(1881, 1980));
  EXPECT_TRUE(clocks_differ(1880, 1980));
  EXPECT_TRUE(clocks_differ(1980, 1386));  // 70%
  EXPECT_TRUE(clocks_differ(1695, 1980));
  EXPECT_FALSE(clocks_differ(0, 0));
}

TEST(ClockState, ReasonsAreNamed) {
  EXPECT_EQ(describe_throttle_reasons(0), "0");
  EXPECT_EQ(describe_throttle_reasons(0x5), "0x5 (idle, SW power cap)");
  EXPECT_EQ(describe_throttle_reasons(0x8000000000000000ULL), "0x8000000000000000");
}

// NVML through the fake library: the clock and reasons it answers, and this process's memory.
class FakeNvml : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv(kNvmlLibraryEnv, GPUMETER_FAKE_NVML, 1); }
  void TearDown() override {
    ::unsetenv(kNvmlLibraryEnv);
    ::unsetenv("GPUMETER_FAKE_NVML_PROCESSES");
  }
  static constexpr const char* kUuid = "GPU-11111111-2222-3333-4444-555555555555";
};

TEST_F(FakeNvml, TheWatchReadsTheClockAndReasons) {
  const detail::NvmlWatch watch(kUuid);
  const std::optional<ClockReading> c = watch.read_clock();
  ASSERT_TRUE(c.has_value()) << watch.why_not();
  EXPECT_EQ(c->sm_mhz, 1755);
  // Only the pre-535 name of the reasons query exists in the fake: the fallback is used.
  EXPECT_EQ(c->throttle_reasons, 0x8000000000000004ULL);
}

TEST_F(FakeNvml, AnotherDevicesUuidReadsNothing) {
  const detail::NvmlWatch watch("GPU-99999999-0000-0000-0000-000000000000");
  EXPECT_FALSE(watch.read_clock().has_value());
  EXPECT_NE(watch.why_not().find("does not know the device"), std::string::npos) << watch.why_not();
}

TEST_F(FakeNvml, ThisProcessesMemoryOrNotAvailable) {
  const long me = static_cast<long>(::getpid());
  const std::string list = "7:100," + std::to_string(me) + ":1073741824";
  ::setenv("GPUMETER_FAKE_NVML_PROCESSES", list.c_str(), 1);
  const detail::NvmlWatch watch(kUuid);
  EXPECT_EQ(watch.process_memory({me}), 1073741824LL);
  EXPECT_EQ(watch.process_memory({7}), 100LL);
  // Not listed (a pid namespace, or no context yet): unknown, never zero.
  ::setenv("GPUMETER_FAKE_NVML_PROCESSES", "7:100", 1);
  EXPECT_FALSE(watch.process_memory({me}).has_value());
  ::setenv("GPUMETER_FAKE_NVML_PROCESSES", "", 1);
  EXPECT_FALSE(watch.process_memory({me}).has_value());
}

// In a container: NVML lists the process by the host's pid, which the NSpid line gives beside
// the container's (own_pids()); the memory is found by it, as the device lock finds the process.
TEST_F(FakeNvml, MemoryIsFoundByAnyOfThisProcesssPids) {
  ::setenv("GPUMETER_FAKE_NVML_PROCESSES", "7:100,654321:1073741824", 1);
  const detail::NvmlWatch watch(kUuid);
  const std::set<long> in_container =
      pids_in_status("Name:\tbench\nNSpid:\t654321\t12\n", /*own_pid=*/12);
  EXPECT_EQ(watch.process_memory(in_container), 1073741824LL);
  EXPECT_FALSE(watch.process_memory({12}).has_value());  // getpid() alone: not found
  // Two listed entries carry pids of this process's: which is this one's cannot be told.
  ::setenv("GPUMETER_FAKE_NVML_PROCESSES", "12:100,654321:1073741824", 1);
  EXPECT_FALSE(watch.process_memory(in_container).has_value());
}

// The fake's nvmlInit_v2 calls not yet matched by nvmlShutdown. The library stays loaded once a
// reader has loaded it, so its counter is there to ask.
int open_sessions(const char* fake) {
  void* lib = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return -1;
  auto* sessions = reinterpret_cast<int (*)()>(dlsym(lib, "fake_nvml_open_sessions"));
  const int n = sessions != nullptr ? sessions() : -1;
  dlclose(lib);
  return n;
}

// Three entries with this process's last: a reader that took the array in another layout than
// the one the exported name fills would find neither its pid nor its bytes.
std::string three_processes() {
  return "7:100,9:200," + std::to_string(::getpid()) + ":1073741824";
}

// A driver older than the versioned process lists and than NVML 12.2: only the unversioned
// process list, which fills the shorter v1 layout, and only the older name of the reasons query.
TEST_F(FakeNvml, AnOldDriversV1ProcessListAndThrottleReasonsAreRead) {
  ::setenv(kNvmlLibraryEnv, GPUMETER_FAKE_NVML_OLD, 1);
  ::setenv("GPUMETER_FAKE_NVML_PROCESSES", three_processes().c_str(), 1);
  const detail::NvmlWatch watch(kUuid);
  EXPECT_EQ(watch.why_not(), "");
  const std::optional<ClockReading> c = watch.read_clock();
  ASSERT_TRUE(c.has_value()) << watch.why_not();
  EXPECT_EQ(c->sm_mhz, 1755);
  EXPECT_EQ(c->throttle_reasons, 0x8000000000000004ULL);
  EXPECT_EQ(watch.process_memory({static_cast<long>(::getpid())}), 1073741824LL);
  EXPECT_EQ(watch.process_memory({9}), 200LL);
  EXPECT_EQ(watch.process_memory({7}), 100LL);
}

// A driver that exports both names of the reasons query is read by the newer one; one with the
// _v2 process list, by that, in the longer layout.
TEST_F(FakeNvml, TheNewerReasonsNameAndTheV2ProcessListAreRead) {
  ::setenv(kNvmlLibraryEnv, GPUMETER_FAKE_NVML_V2, 1);
  ::setenv("GPUMETER_FAKE_NVML_PROCESSES", three_processes().c_str(), 1);
  const detail::NvmlWatch watch(kUuid);
  const std::optional<ClockReading> c = watch.read_clock();
  ASSERT_TRUE(c.has_value()) << watch.why_not();
  EXPECT_EQ(c->throttle_reasons, 0x21u);  // the new name's answer, not the old one's
  EXPECT_EQ(watch.process_memory({static_cast<long>(::getpid())}), 1073741824LL);
  EXPECT_EQ(watch.process_memory({9}), 200LL);
}

// No reasons query: no clock reading (a clock without its reasons cannot say why it is low),
// and the watch names what is missing; this process's memory is read all the same.
TEST_F(FakeNvml, WithoutTheReasonsQueryTheClockIsNotReadButTheMemoryIs) {
  ::setenv(kNvmlLibraryEnv, GPUMETER_FAKE_NVML_NO_REASONS, 1);
  ::setenv("GPUMETER_FAKE_NVML_PROCESSES", three_processes().c_str(), 1);
  const detail::NvmlWatch watch(kUuid);
  EXPECT_FALSE(watch.read_clock().has_value());
  EXPECT_EQ(watch.why_not(),
            std::string("clock-event reasons: nvmlDeviceGetCurrentClocksEventReasons or "
                        "nvmlDeviceGetCurrentClocksThrottleReasons not exported by ") +
                GPUMETER_FAKE_NVML_NO_REASONS);
  EXPECT_EQ(watch.process_memory({static_cast<long>(::getpid())}), 1073741824LL);
}

// One table per library, resolved when it is loaded: the same object for every reader of a path,
// each function by the newest name the library exports.
TEST_F(FakeNvml, EachLibraryIsLoadedOnceWithItsNamesResolved) {
  std::string why;
  const detail::nvml::Library* fake = detail::nvml::Library::load(why);
  ASSERT_NE(fake, nullptr) << why;
  EXPECT_EQ(detail::nvml::Library::load(why), fake);
  EXPECT_EQ(fake->path(), GPUMETER_FAKE_NVML);
  EXPECT_STREQ(fake->compute_processes.name(), "nvmlDeviceGetComputeRunningProcesses_v3");
  EXPECT_STREQ(fake->clocks_event_reasons.name(), "nvmlDeviceGetCurrentClocksThrottleReasons");
  EXPECT_FALSE(fake->utilization);

  ::setenv(kNvmlLibraryEnv, GPUMETER_FAKE_NVML_OLD, 1);
  const detail::nvml::Library* old = detail::nvml::Library::load(why);
  ASSERT_NE(old, nullptr) << why;
  EXPECT_NE(old, fake);
  EXPECT_STREQ(old->compute_processes.name(), "nvmlDeviceGetComputeRunningProcesses");
  ::setenv(kNvmlLibraryEnv, GPUMETER_FAKE_NVML_V2, 1);
  const detail::nvml::Library* v2 = detail::nvml::Library::load(why);
  ASSERT_NE(v2, nullptr) << why;
  EXPECT_STREQ(v2->compute_processes.name(), "nvmlDeviceGetComputeRunningProcesses_v2");
  EXPECT_STREQ(v2->clocks_event_reasons.name(), "nvmlDeviceGetCurrentClocksEventReasons");
}

// NVML counts its initializations: the watch holds one for its life, a read of the device state
// beside it opens and closes its own, and a watch that found no device gives its back at once.
TEST_F(FakeNvml, TheWatchHoldsOneInitializationAndGivesItBack) {
  {
    const detail::NvmlWatch watch(kUuid);
    EXPECT_EQ(open_sessions(GPUMETER_FAKE_NVML), 1);
    EXPECT_EQ(read_device_state(kUuid, 0).state.sm_clock_mhz, 1755);
    EXPECT_EQ(open_sessions(GPUMETER_FAKE_NVML), 1);
    EXPECT_TRUE(watch.read_clock().has_value());
  }
  EXPECT_EQ(open_sessions(GPUMETER_FAKE_NVML), 0);
  const detail::NvmlWatch unknown("GPU-99999999-0000-0000-0000-000000000000");
  EXPECT_EQ(open_sessions(GPUMETER_FAKE_NVML), 0);
}

TEST(NoNvml, TheWatchSaysWhy) {
  ::setenv(kNvmlLibraryEnv, "/nonexistent/libnvidia-ml.so.1", 1);
  const detail::NvmlWatch watch("GPU-11111111-2222-3333-4444-555555555555");
  ::unsetenv(kNvmlLibraryEnv);
  EXPECT_FALSE(watch.read_clock().has_value());
  EXPECT_FALSE(watch.process_memory({1}).has_value());
  EXPECT_NE(watch.why_not().find("NVML not loaded"), std::string::npos) << watch.why_not();
}

}  // namespace GPUMETER_THIS_FILE
}  // namespace gpumeter
