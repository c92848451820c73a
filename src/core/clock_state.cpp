#include "gpumeter/detail/clock_state.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "gpumeter/detail/format.hpp"
#include "gpumeter/detail/summary.hpp"
#include "gpumeter/throttle_reasons.hpp"

namespace gpumeter {

ClockReading around_sample(const ClockReading& before, const ClockReading& after) {
  return ClockReading{std::min(before.sm_mhz, after.sm_mhz),
                      before.throttle_reasons | after.throttle_reasons};
}

bool clock_below_reference(double mhz, double reference_mhz) {
  return mhz < kClockFlagFraction * reference_mhz;
}

bool clock_flagged(const ClockReading& sample, int reference_mhz) {
  return (sample.throttle_reasons & kFlaggingThrottleReasons) != 0 ||
         clock_below_reference(sample.sm_mhz, reference_mhz);
}

ClockSummary summarize_clocks(const std::vector<ClockReading>& readings) {
  if (readings.empty()) throw std::invalid_argument("summarize_clocks: no readings");
  ClockSummary c;
  c.samples = readings.size();
  std::vector<double> mhz;
  mhz.reserve(readings.size());
  c.min_mhz = readings.front().sm_mhz;
  c.max_mhz = readings.front().sm_mhz;
  for (const ClockReading& r : readings) {
    mhz.push_back(r.sm_mhz);
    c.min_mhz = std::min(c.min_mhz, r.sm_mhz);
    c.max_mhz = std::max(c.max_mhz, r.sm_mhz);
  }
  c.median_mhz = quantile(std::move(mhz), 0.5);
  const auto count = [&](std::uint64_t bit) {
    return static_cast<std::size_t>(
        std::count_if(readings.begin(), readings.end(),
                      [&](const ClockReading& r) { return (r.throttle_reasons & bit) != 0; }));
  };
  c.sw_power_cap = count(kReasonSwPowerCap);
  c.hw_slowdown = count(kReasonHwSlowdown);
  c.sw_thermal = count(kReasonSwThermal);
  c.hw_thermal = count(kReasonHwThermal);
  c.hw_power_brake = count(kReasonHwPowerBrake);
  for (const ClockReading& r : readings) {
    if (clock_flagged(r, c.max_mhz)) ++c.flagged;
    if (clock_below_reference(r.sm_mhz, c.max_mhz)) ++c.below_reference;
  }
  return c;
}

std::size_t schema_3_flagged_samples(const std::vector<ClockReading>& readings) {
  // Version 3's reasons: the power cap, a hardware slowdown, thermal slowdown, the power brake.
  constexpr std::uint64_t kVersion3Reasons = kReasonSwPowerCap | kFlaggingThrottleReasons;
  if (readings.empty()) return 0;
  const int start_mhz = readings.front().sm_mhz;
  return static_cast<std::size_t>(
      std::count_if(readings.begin(), readings.end(), [&](const ClockReading& r) {
        return (r.throttle_reasons & kVersion3Reasons) != 0 || r.sm_mhz < start_mhz;
      }));
}

bool clocks_differ(double a_mhz, double b_mhz) {
  return clock_below_reference(std::min(a_mhz, b_mhz), std::max(a_mhz, b_mhz));
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

std::string describe_clock_flags(const ClockSummary& c, std::size_t n_samples) {
  std::string s =
      std::to_string(c.flagged) + " of " + std::to_string(n_samples) + " samples clock-flagged";
  std::vector<std::string> parts;
  if (c.below_reference > 0) {
    parts.push_back(std::to_string(c.below_reference) + " ran below " +
                    format_significant(100 * kClockFlagFraction, 2) +
                    "% of the row's highest SM clock (" + std::to_string(c.max_mhz) +
                    " MHz), down to " + std::to_string(c.min_mhz) + " MHz");
  }
  const std::pair<std::size_t, const char*> flagging[] = {
      {c.hw_slowdown, "a HW slowdown"},
      {c.sw_thermal, "a SW thermal slowdown"},
      {c.hw_thermal, "a HW thermal slowdown"},
      {c.hw_power_brake, "the HW power brake"},
  };
  for (const auto& [n, name] : flagging) {
    if (n > 0) parts.push_back(std::string(name) + " was set around " + std::to_string(n));
  }
  if (c.sw_power_cap > 0) {
    parts.push_back("the SW power cap was set around " + std::to_string(c.sw_power_cap) +
                    " (routine; not a flag by itself)");
  }
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? ": " : "; ") + parts[i];
  return s;
}

}  // namespace gpumeter
