#pragma once
// The SM clock and throttle state around each sample (B4). A GPU whose clocks are not locked
// (gpumeter never locks them) runs a kernel slower when it throttles; a sample taken then is
// not wrong, but it measured another machine, and a reader must be able to tell.
#include <cstdint>
#include <optional>
#include <string>

namespace gpumeter {

// What the backend read at one moment: the SM clock and NVML's clock-event ("throttle")
// reasons, a bit mask as nvmlDeviceGetCurrentClocksEventReasons gives it.
struct ClockReading {
  int sm_mhz = 0;
  std::uint64_t throttle_reasons = 0;
};

// NVML's clock-event reason bits (nvmlClocksEventReason*), as the mask carries them.
inline constexpr std::uint64_t kReasonIdle = 0x1;
inline constexpr std::uint64_t kReasonApplicationClocks = 0x2;
inline constexpr std::uint64_t kReasonSwPowerCap = 0x4;
inline constexpr std::uint64_t kReasonHwSlowdown = 0x8;
inline constexpr std::uint64_t kReasonSyncBoost = 0x10;
inline constexpr std::uint64_t kReasonSwThermal = 0x20;
inline constexpr std::uint64_t kReasonHwThermal = 0x40;
inline constexpr std::uint64_t kReasonHwPowerBrake = 0x80;
inline constexpr std::uint64_t kReasonDisplayClocks = 0x100;

// The reasons that mean the clock was pulled down while work ran. Not among them: the GPU being
// idle (the state between iterations), application-clock and display-clock settings (settings,
// not events) and sync boost.
inline constexpr std::uint64_t kSlowingThrottleReasons = kReasonSwPowerCap | kReasonHwSlowdown |
                                                         kReasonSwThermal | kReasonHwThermal |
                                                         kReasonHwPowerBrake;

// A sample's clock state: the lower SM clock and the union of the reasons of the readings just
// before and just after it.
ClockReading around_sample(const ClockReading& before, const ClockReading& after);

// A sample is flagged when a slowing reason was active around it, or its SM clock was below the
// clock its row started at (the first sample's): either way it may have run slower than the
// others.
bool clock_flagged(const ClockReading& sample, int start_mhz);

// Two rows ran at different clocks when their median SM clocks differ by more than 1%: the SM
// clock moves in steps of about 15 MHz (0.8% of the H200's 1980 MHz), so more than one step
// apart, which moves a compute-bound time by as much.
inline constexpr double kClockDifferenceFraction = 0.01;
bool clocks_differ(double a_mhz, double b_mhz);

// "0x4 (SW power cap)": the mask with the names of the bits gpumeter knows.
std::string describe_throttle_reasons(std::uint64_t reasons);

}  // namespace gpumeter
