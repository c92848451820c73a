#include "iteration.hpp"

#include "backends.hpp"

#include <cuda_runtime.h>
#include <cstddef>

#include <memory>
#include <utility>

#include "cuda_process.hpp"
#include "cuda_util.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/process_ids.hpp"
#include "l2_flush.hpp"
#include "nvml_watch.hpp"

namespace gpumeter::cuda {
namespace {

std::string at(std::size_t iteration, const std::string& what) {
  return "iteration " + std::to_string(iteration) + ", " + what;
}

}  // namespace

CudaBackendBase::CudaBackendBase(const CudaBackendOptions& options, DeviceIdentity identity)
    : options_(options),
      identity_(std::move(identity)),
      watch_(std::make_unique<detail::NvmlWatch>(identity_.uuid)) {
  // The context, and the flush buffer (allocated once per device), exist from here on.
  (void)DeviceSteps(options_.device, options_.l2_flush, false);
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
  DeviceSteps(options_.device, false, false).settle(context);
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

DeviceSteps& CudaBackendBase::steps() {
  if (!steps_) throw ConfigError("a device step was asked for outside a measurement phase");
  return *steps_;
}

DeviceSteps::DeviceSteps(int device, bool l2_flush, bool leave_clean_lines)
    : device_(device), leave_clean_lines_(leave_clean_lines) {
  CudaProcess& process = CudaProcess::instance();
  process.require_not_sticky(device);
  check(cudaSetDevice(device), "cudaSetDevice", device);
  if (!l2_flush) return;
  flush_ = process.flush_buffer(device);
  int persisting_max = 0;
  check(cudaDeviceGetAttribute(&persisting_max, cudaDevAttrMaxPersistingL2CacheSize, device),
        "reading the persisting-L2 size", device);
  reset_persisting_l2_ = persisting_max > 0;
  int sms = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
        "reading the SM count", device);
  read_blocks_ = 4 * sms;  // enough loads in flight to read at full bandwidth
}

void DeviceSteps::clear_cache(std::size_t iteration) {
  check(cudaSetDevice(device_), "cudaSetDevice", device_);
  // Persisting lines first: the documented set-aside is used by normal accesses only when no
  // persisting access holds it, so the flush must come after the reset to evict those lines.
  if (reset_persisting_l2_) {
    const cudaError_t e = cudaCtxResetPersistingL2Cache();
    if (e != cudaSuccess) fail(e, at(iteration, "the persisting-L2 reset"));
  }
  if (flush_ != nullptr) {
    // A different byte each iteration, so no layer can treat the write as already done.
    const int value = static_cast<int>(iteration % 251) + 1;
    const cudaError_t e = cudaMemsetAsync(flush_->get(), value, flush_->bytes(), cudaStreamLegacy);
    if (e != cudaSuccess) fail(e, at(iteration, "the L2 flush"));
    if (leave_clean_lines_) {
      const cudaError_t r =
          read_through_l2(flush_->get(), flush_->bytes(), read_blocks_, cudaStreamLegacy);
      if (r != cudaSuccess) fail(r, at(iteration, "the L2 flush's read"));
    }
  }
}

void DeviceSteps::check_after(std::size_t iteration, const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) fail(e, at(iteration, what));
}

void DeviceSteps::drain(std::size_t iteration, const char* after) {
  cudaError_t e = cudaSetDevice(device_);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess)
    fail(e, at(iteration, std::string("waiting for the device after ") + after));
}

void DeviceSteps::settle(const std::string& context) {
  cudaError_t e = cudaSetDevice(device_);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) fail(e, context);
}

void DeviceSteps::fail(cudaError_t error, const std::string& where) {
  // A sticky error survives cudaGetLastError and comes back from every synchronize; a plain
  // one (a bad launch configuration) is cleared by the read, and the device stays usable.
  (void)cudaGetLastError();
  cudaError_t again = cudaSetDevice(device_);
  if (again == cudaSuccess) again = cudaDeviceSynchronize();
  const std::string what = cuda::error_text(error);
  std::string message = "CUDA device " + std::to_string(device_) + ", " + where + ": CUDA error " +
                        what + "; no number was produced.";
  if (again != cudaSuccess) {
    CudaProcess::instance().mark_sticky(device_, what + " during " + where);
    message +=
        " The error is sticky: the device's CUDA context is unusable for the rest of this "
        "process, and every later measurement on it will refuse to run. Fix the call and start "
        "a new process.";
  }
  throw DeviceError(message);
}

}  // namespace gpumeter::cuda
