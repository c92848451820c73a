#pragma once
// Durations are integers of nanoseconds inside gpumeter; milliseconds appear only at the
// edges (records and tables), with the unit in the field name.
#include <cstdint>

namespace gpumeter {

using Nanos = std::int64_t;

inline constexpr Nanos kMicrosecond = 1'000;
inline constexpr Nanos kMillisecond = 1'000'000;
inline constexpr Nanos kSecond = 1'000'000'000;

inline constexpr double to_ms(Nanos ns) {
  return static_cast<double>(ns) / 1e6;
}
inline constexpr double to_us(Nanos ns) {
  return static_cast<double>(ns) / 1e3;
}

}  // namespace gpumeter
