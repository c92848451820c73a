#include "backends.hpp"

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpumeter/cuda_environment.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/process_ids.hpp"
#include "nvml_watch.hpp"
#include "procfs.hpp"

namespace gpumeter::cuda {

CudaBackendBase::CudaBackendBase(const CudaBackendOptions& options, DeviceIdentity identity)
    : options_(options),
      identity_(std::move(identity)),
      watch_(std::make_unique<detail::NvmlWatch>(identity_.uuid)) {
  // The context, and the flush buffer (allocated once per device), exist from here on.
  (void)CudaDeviceSteps(options_.device, options_.l2_flush, false);
  context_floor_ = process_device_memory();
  processes_at_start_ = options_.tolerated_device_processes ? options_.tolerated_device_processes
                                                            : watch_->device_pids();
}

CudaBackendBase::~CudaBackendBase() = default;

std::optional<ClockReading> CudaBackendBase::read_clock() {
  return watch_->read_clock();
}

std::optional<long long> CudaBackendBase::process_device_memory() {
  return watch_->process_memory(own_pids());  // the lock's ids too: any namespace's pid
}

std::optional<std::vector<DeviceProcess>> CudaBackendBase::new_device_processes() {
  const std::optional<std::vector<long>> now = watch_->device_pids();
  if (!now || !processes_at_start_) return std::nullopt;
  const std::set<long> own = own_pids();
  const std::optional<detail::ProcStat> self = detail::read_stat(static_cast<long>(::getpid()));
  std::vector<DeviceProcess> found;
  for (const long pid : *now) {
    if (own.count(pid) != 0) continue;
    const std::optional<detail::ProcStat> stat = detail::read_stat(pid);
    const std::vector<long> line = detail::lineage(pid);
    // Of this session, or started from this process (a helper that made a session of its own).
    const bool own_session =
        (self && stat && stat->session == self->session) ||
        std::find(line.begin(), line.end(), static_cast<long>(::getpid())) != line.end();
    const bool at_start = std::find(processes_at_start_->begin(), processes_at_start_->end(),
                                    pid) != processes_at_start_->end();
    if (at_start) continue;
    found.push_back(DeviceProcess{pid, detail::command_of(std::to_string(pid)), own_session});
  }
  return found;
}

std::string CudaBackendBase::l2_flush_mode() const {
  if (!options_.l2_flush) return "";
  return options_.l2_flush_mode == CudaBackendOptions::L2Flush::write_read ? "write+read" : "write";
}

DeviceStateReading CudaBackendBase::read_device_state() const {
  return read_cuda_device_state(identity_);
}

void CudaBackendBase::synchronize(const char* context) {
  CudaDeviceSteps(options_.device, false, false).settle(context);
}

void CudaBackendBase::clear_cache(std::size_t iteration) {
  steps().clear_cache(iteration);
}

void CudaBackendBase::after_user_code(std::size_t iteration, const char* what) {
  steps().check_after(iteration, what);
}

void CudaBackendBase::drain(std::size_t iteration, const char* after) {
  steps().drain(iteration, after);
}

void CudaBackendBase::start_phase() {
  steps_.emplace(options_.device, options_.l2_flush,
                 options_.l2_flush_mode == CudaBackendOptions::L2Flush::write_read);
}

void CudaBackendBase::end_phase() noexcept {
  steps_.reset();
}

CudaDeviceSteps& CudaBackendBase::steps() {
  if (!steps_) throw ConfigError("a device step was asked for outside a measurement phase");
  return *steps_;
}

}  // namespace gpumeter::cuda
