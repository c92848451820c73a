#include "gpumeter/clock_state.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "gpumeter/device_state.hpp"
#include "gpumeter/process_ids.hpp"
#include "nvml_watch.hpp"

namespace gpumeter {
namespace {

TEST(ClockState, ASampleTakesTheLowerClockAndEveryReason) {
  const ClockReading s = around_sample({1980, 0x1}, {1755, 0x4});
  EXPECT_EQ(s.sm_mhz, 1755);
  EXPECT_EQ(s.throttle_reasons, 0x5u);
}

TEST(ClockState, FlaggedWhenSlowingReasonOrBelowTheStart) {
  EXPECT_FALSE(clock_flagged({1980, 0}, 1980));
  EXPECT_FALSE(clock_flagged({1995, 0}, 1980));  // above the start: boost, not a slowdown
  EXPECT_TRUE(clock_flagged({1965, 0}, 1980));
  // Each slowing reason flags at full clock; the others do not.
  for (const std::uint64_t slowing : {0x4u, 0x8u, 0x20u, 0x40u, 0x80u}) {
    EXPECT_TRUE(clock_flagged({1980, slowing}, 1980)) << slowing;
  }
  for (const std::uint64_t setting : {0x1u, 0x2u, 0x10u, 0x100u}) {
    EXPECT_FALSE(clock_flagged({1980, setting}, 1980)) << setting;
  }
}

TEST(ClockState, DifferentClocksMeansMoreThanOnePercent) {
  EXPECT_FALSE(clocks_differ(1980, 1980));
  EXPECT_FALSE(clocks_differ(1980, 1965));  // one 15 MHz step
  EXPECT_TRUE(clocks_differ(1980, 1950));
  EXPECT_TRUE(clocks_differ(1755, 1980));
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

TEST(NoNvml, TheWatchSaysWhy) {
  ::setenv(kNvmlLibraryEnv, "/nonexistent/libnvidia-ml.so.1", 1);
  const detail::NvmlWatch watch("GPU-11111111-2222-3333-4444-555555555555");
  ::unsetenv(kNvmlLibraryEnv);
  EXPECT_FALSE(watch.read_clock().has_value());
  EXPECT_FALSE(watch.process_memory({1}).has_value());
  EXPECT_NE(watch.why_not().find("NVML not loaded"), std::string::npos) << watch.why_not();
}

}  // namespace
}  // namespace gpumeter
