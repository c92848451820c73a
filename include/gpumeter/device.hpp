#pragma once
// Which device ran a measurement (SPEC P3): every record names it.
#include <optional>
#include <string>

namespace gpumeter {

struct DeviceIdentity {
  std::string kind;  // "cuda" or "host"
  int index = 0;
  std::string name;
  std::string uuid;  // empty when not available
  std::string arch;  // "sm_90", or the host CPU architecture
  std::optional<int> multiprocessors;
  std::optional<long long> l2_bytes;
  std::optional<long long> memory_bytes;
};

}  // namespace gpumeter
