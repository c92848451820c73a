#include "device_steps.hpp"

#include <cuda_runtime.h>
#include <cstddef>
#include <string>

#include "cuda_process.hpp"
#include "cuda_util.hpp"
#include "gpumeter/errors.hpp"
#include "l2_flush.hpp"

namespace gpumeter::cuda {
namespace {

std::string at(std::size_t iteration, const std::string& what) {
  return "iteration " + std::to_string(iteration) + ", " + what;
}

}  // namespace

CudaDeviceSteps::CudaDeviceSteps(int device, bool l2_flush, bool leave_clean_lines)
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

void CudaDeviceSteps::clear_cache(std::size_t iteration) {
  check(cudaSetDevice(device_), "cudaSetDevice", device_);
  // Persisting lines first: the documented set-aside is used by normal accesses only when no
  // persisting access holds it, so the flush must come after the reset to evict those lines.
  if (reset_persisting_l2_) {
    // A set-aside the call made keeps its persisting lines through any flush (seen in public
    // benchmark exploits): it goes back to 0 before the reset, as the context started.
    std::size_t set_aside = 0;
    cudaError_t l = cudaDeviceGetLimit(&set_aside, cudaLimitPersistingL2CacheSize);
    if (l == cudaSuccess && set_aside != 0)
      l = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    if (l != cudaSuccess) fail(l, at(iteration, "the persisting-L2 set-aside's reset"));
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

void CudaDeviceSteps::check_after(std::size_t iteration, const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) fail(e, at(iteration, what));
}

void CudaDeviceSteps::drain(std::size_t iteration, const char* after) {
  cudaError_t e = cudaSetDevice(device_);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess)
    fail(e, at(iteration, std::string("waiting for the device after ") + after));
}

void CudaDeviceSteps::settle(const std::string& context) {
  cudaError_t e = cudaSetDevice(device_);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) fail(e, context);
}

void CudaDeviceSteps::fail(cudaError_t error, const std::string& where) {
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
