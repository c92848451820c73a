#pragma once
// NVML's clock-event ("throttle") reason bits, as ClockReading::throttle_reasons carries them
// (nvmlClocksEventReason*), and the two sets the clock rule (clock_state.hpp) reads them by.
#include <cstdint>

namespace gpumeter {

inline constexpr std::uint64_t kReasonIdle = 0x1;
inline constexpr std::uint64_t kReasonApplicationClocks = 0x2;
inline constexpr std::uint64_t kReasonSwPowerCap = 0x4;
inline constexpr std::uint64_t kReasonHwSlowdown = 0x8;
inline constexpr std::uint64_t kReasonSyncBoost = 0x10;
inline constexpr std::uint64_t kReasonSwThermal = 0x20;
inline constexpr std::uint64_t kReasonHwThermal = 0x40;
inline constexpr std::uint64_t kReasonHwPowerBrake = 0x80;
inline constexpr std::uint64_t kReasonDisplayClocks = 0x100;

// Reasons that flag a sample at any clock: the board protecting itself from heat or an
// electrical limit, which can cut the clock by any amount and which no committed H200 run showed
// in routine work.
inline constexpr std::uint64_t kFlaggingThrottleReasons =
    kReasonHwSlowdown | kReasonSwThermal | kReasonHwThermal | kReasonHwPowerBrake;

// The software power cap is routine, not a flag by itself: a loaded H200 sets it while holding
// its clock at or a step under the maximum (docs/measured-figures.md, "clock flags"). Where the
// cap pulls the clock down far enough to matter, the clock rule flags the sample.
inline constexpr std::uint64_t kRoutineThrottleReasons = kReasonSwPowerCap;

}  // namespace gpumeter
