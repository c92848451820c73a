#include "backends.hpp"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gpumeter/cuda_environment.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/process_ids.hpp"
#include "nvml_watch.hpp"

namespace gpumeter::cuda {

CudaBackendBase::CudaBackendBase(const CudaBackendOptions& options, DeviceIdentity identity)
    : options_(options),
      identity_(std::move(identity)),
      watch_(std::make_unique<detail::NvmlWatch>(identity_.uuid)) {
  // The context, and the flush buffer (allocated once per device), exist from here on.
  (void)CudaDeviceSteps(options_.device, options_.l2_flush, false);
  context_floor_ = process_device_memory();
}

CudaBackendBase::~CudaBackendBase() = default;

std::optional<ClockReading> CudaBackendBase::read_clock() {
  return watch_->read_clock();
}

std::optional<long long> CudaBackendBase::process_device_memory() {
  return watch_->process_memory(own_pids());  // the lock's ids too: any namespace's pid
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
