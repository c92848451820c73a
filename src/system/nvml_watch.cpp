#include "nvml_watch.hpp"

#include <cstddef>
#include <set>
#include <vector>

#include "gpumeter/process_ids.hpp"

namespace gpumeter::detail {

NvmlWatch::NvmlWatch(const std::string& gpu_uuid) {
  if (gpu_uuid.empty()) {
    why_not_ = "the device has no uuid to find it by in NVML";
    return;
  }
  session_.emplace();
  // By uuid only: no index to fall back on.
  nvml::Session::Found found = session_->find_device(gpu_uuid, -1);
  if (found.device == nullptr) {
    why_not_ = found.why;
    session_.reset();
    return;
  }
  lib_ = session_->library();
  device_ = found.device;
  std::string missing;
  auto unreadable = [&](const char* what, const std::string& why) {
    missing += (missing.empty() ? "" : "; ") + std::string(what) + ": " + why;
  };
  if (!lib_->clock_info) unreadable("SM clock", lib_->not_exported(lib_->clock_info));
  if (!lib_->clocks_event_reasons) {
    unreadable("clock-event reasons", lib_->not_exported(lib_->clocks_event_reasons));
  }
  if (!lib_->compute_processes) {
    unreadable("process memory", lib_->not_exported(lib_->compute_processes));
  }
  clock_ = lib_->clock_info && lib_->clocks_event_reasons;
  why_not_ = missing;
}

NvmlWatch::~NvmlWatch() = default;

std::optional<ClockReading> NvmlWatch::read_clock() const {
  if (!clock_) return std::nullopt;
  // Called between iterations: two queries, no text unless one fails.
  unsigned int mhz = 0;
  unsigned long long reasons = 0;
  if (lib_->clock_info.get()(device_, nvml::kClockSm, &mhz) != nvml::kSuccess) return std::nullopt;
  if (lib_->clocks_event_reasons.get()(device_, &reasons) != nvml::kSuccess) return std::nullopt;
  return ClockReading{static_cast<int>(mhz), reasons};
}

std::optional<long long> NvmlWatch::process_memory(const std::set<long>& pids) const {
  if (device_ == nullptr) return std::nullopt;
  std::string why;
  const auto processes = nvml::compute_processes(*lib_, device_, why);
  if (!processes) return std::nullopt;
  std::vector<long> listed;
  for (const ComputeProcess& p : *processes) listed.push_back(static_cast<long>(p.pid));
  const std::optional<std::size_t> mine = own_entry(listed, pids);
  if (!mine) return std::nullopt;
  return (*processes)[*mine].used_bytes;
}

std::optional<std::vector<long>> NvmlWatch::device_pids() const {
  if (device_ == nullptr) return std::nullopt;
  std::string why;
  const auto processes = nvml::compute_processes(*lib_, device_, why);
  if (!processes) return std::nullopt;
  std::vector<long> pids;
  pids.reserve(processes->size());
  for (const ComputeProcess& p : *processes) pids.push_back(static_cast<long>(p.pid));
  return pids;
}

}  // namespace gpumeter::detail
