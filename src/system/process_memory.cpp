#include "gpumeter/process_memory.hpp"

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "procfs.hpp"

namespace gpumeter {

std::optional<long long> host_peak_rss_bytes() {
  const std::string status = detail::self_status();
  const std::optional<std::string_view> field = detail::status_field(status, "VmHWM:");
  if (!field) return std::nullopt;
  // "VmHWM:	  123456 kB": the kernel always states kB (1024 bytes).
  const std::string value(*field);
  char* end = nullptr;
  const long long kib = std::strtoll(value.c_str(), &end, 10);
  if (end == value.c_str() || kib < 0) return std::nullopt;
  return kib * 1024;
}

bool reset_host_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  if (!clear) return false;
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

}  // namespace gpumeter
