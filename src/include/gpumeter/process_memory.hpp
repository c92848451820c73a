#pragma once
// Host memory of this process (P7), from /proc/self: the peak resident set (VmHWM), and resetting
// that peak so the next reading covers one case, not the process's whole life.
#include <optional>

namespace gpumeter {

// VmHWM of /proc/self/status in bytes; nullopt where it cannot be read (not Linux, no /proc).
std::optional<long long> host_peak_rss_bytes();

// Resets VmHWM to the current resident set (writes 5 to /proc/self/clear_refs, Linux 4.0 on).
// Returns false where the kernel or a sandbox refuses: the next peak then covers the process
// since it started, and a record must say so.
bool reset_host_peak_rss();

}  // namespace gpumeter
