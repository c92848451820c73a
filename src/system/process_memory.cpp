#include "gpumeter/process_memory.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

namespace gpumeter {

std::optional<long long> host_peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    // "VmHWM:	  123456 kB": the kernel always states kB (1024 bytes).
    char* end = nullptr;
    const long long kib = std::strtoll(line.c_str() + 6, &end, 10);
    if (end == line.c_str() + 6 || kib < 0) return std::nullopt;
    return kib * 1024;
  }
  return std::nullopt;
}

bool reset_host_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  if (!clear) return false;
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

}  // namespace gpumeter
