#include "gpumeter/clock_state.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpumeter {

ClockReading around_sample(const ClockReading& before, const ClockReading& after) {
  return ClockReading{std::min(before.sm_mhz, after.sm_mhz),
                      before.throttle_reasons | after.throttle_reasons};
}

bool clock_flagged(const ClockReading& sample, int start_mhz) {
  return (sample.throttle_reasons & kSlowingThrottleReasons) != 0 || sample.sm_mhz < start_mhz;
}

bool clocks_differ(double a_mhz, double b_mhz) {
  const double larger = std::max(a_mhz, b_mhz);
  return larger > 0 && std::fabs(a_mhz - b_mhz) > kClockDifferenceFraction * larger;
}

std::string describe_throttle_reasons(std::uint64_t reasons) {
  struct Bit {
    std::uint64_t bit;
    const char* name;
  };
  static constexpr Bit kBits[] = {
      {kReasonIdle, "idle"},
      {kReasonApplicationClocks, "application clocks setting"},
      {kReasonSwPowerCap, "SW power cap"},
      {kReasonHwSlowdown, "HW slowdown"},
      {kReasonSyncBoost, "sync boost"},
      {kReasonSwThermal, "SW thermal slowdown"},
      {kReasonHwThermal, "HW thermal slowdown"},
      {kReasonHwPowerBrake, "HW power brake"},
      {kReasonDisplayClocks, "display clock setting"},
  };
  char hex[32];
  std::snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(reasons));
  std::string names;
  for (const Bit& b : kBits) {
    if ((reasons & b.bit) == 0) continue;
    names += (names.empty() ? "" : ", ") + std::string(b.name);
  }
  if (names.empty()) return hex;
  return std::string(hex) + " (" + names + ")";
}

}  // namespace gpumeter
