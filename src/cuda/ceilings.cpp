// The device's measured ceilings for the roofline columns (T8). Both are the best of
// several runs, not the median: a ceiling is what the device can reach, and anything slower
// than the best run is interference, not the device.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstddef>

#include <algorithm>
#include <limits>
#include <string>

#include "cuda_process.hpp"
#include "cuda_util.hpp"
#include "device.hpp"
#include "gpumeter/cuda_backend.hpp"
#include "gpumeter/errors.hpp"
#include "random_fill.hpp"

namespace gpumeter {
namespace {

// Each copy buffer is far larger than any L2 (60 MB on the H200), so the copy streams from
// and to device memory; 4 GiB of traffic per run keeps event overhead under 0.1%.
constexpr std::size_t kCopyBytes = std::size_t{512} << 20;
// A GEMM big enough to reach the matrix units' steady state (about 1.1 TFLOP per run).
constexpr int kGemmSize = 8192;
constexpr int kWarmupRuns = 3;  // also lifts the clocks from idle (345-420 MHz on the H200)
constexpr int kTimedRuns = 10;

void check_cublas(cublasStatus_t s, const char* what, int device) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  throw DeviceError(std::string(what) + " on CUDA device " + std::to_string(device) +
                    " failed: " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

class CublasHandle {
 public:
  explicit CublasHandle(int device) {
    check_cublas(cublasCreate(&handle_), "cublasCreate", device);
  }
  ~CublasHandle() { (void)cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

// Best duration in ns of `runs` timed repetitions of `work` on `stream`, after warm-up.
template <typename Work>
long long best_ns(const Work& work, cudaStream_t stream, int device) {
  for (int i = 0; i < kWarmupRuns; ++i) work();
  cuda::check(cudaStreamSynchronize(stream), "warm-up", device);
  long long best = std::numeric_limits<long long>::max();
  for (int i = 0; i < kTimedRuns; ++i) {
    cuda::Event start;
    cuda::Event end;
    cuda::check(cudaEventRecord(start.get(), stream), "cudaEventRecord", device);
    work();
    cuda::check(cudaEventRecord(end.get(), stream), "cudaEventRecord", device);
    cuda::check(cudaEventSynchronize(end.get()), "cudaEventSynchronize", device);
    best = std::min(best, cuda::elapsed_ns(start.get(), end.get(), device));
  }
  if (best <= 0)
    throw DeviceError("a ceiling run on CUDA device " + std::to_string(device) +
                      " took no measurable time");
  return best;
}

double copy_bytes_per_s(int device, cudaStream_t stream) {
  cuda::DeviceBuffer src(kCopyBytes, device);
  cuda::DeviceBuffer dst(kCopyBytes, device);
  cuda::check(cudaMemsetAsync(src.get(), 0x5a, kCopyBytes, stream), "cudaMemsetAsync", device);
  const long long ns = best_ns(
      [&] {
        cuda::check(
            cudaMemcpyAsync(dst.get(), src.get(), kCopyBytes, cudaMemcpyDeviceToDevice, stream),
            "cudaMemcpyAsync", device);
      },
      stream, device);
  return 2.0 * static_cast<double>(kCopyBytes) / (static_cast<double>(ns) * 1e-9);  // read + write
}

double gemm_flops_per_s(int device, cudaStream_t stream) {
  const auto n = static_cast<std::size_t>(kGemmSize);
  const std::size_t bytes = n * n * sizeof(__nv_bfloat16);
  cuda::DeviceBuffer a(bytes, device);
  cuda::DeviceBuffer b(bytes, device);
  cuda::DeviceBuffer c(bytes, device);
  cuda::check(cuda::fill_random_bf16(a.get(), n * n, 1, stream), "filling A", device);
  cuda::check(cuda::fill_random_bf16(b.get(), n * n, 2, stream), "filling B", device);
  CublasHandle handle(device);
  check_cublas(cublasSetStream(handle.get(), stream), "cublasSetStream", device);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const long long ns = best_ns(
      [&] {
        check_cublas(cublasGemmEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, kGemmSize, kGemmSize,
                                  kGemmSize, &alpha, a.get(), CUDA_R_16BF, kGemmSize, b.get(),
                                  CUDA_R_16BF, kGemmSize, &beta, c.get(), CUDA_R_16BF, kGemmSize,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx (bf16)", device);
      },
      stream, device);
  const double flops =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  return flops / (static_cast<double>(ns) * 1e-9);
}

}  // namespace

Ceilings measure_ceilings(int device) {
  return cuda::CudaProcess::instance().ceilings(device, [device] {
    cuda::open_device(device);
    cuda::check(cudaDeviceSynchronize(), "waiting for the device before the ceilings", device);
    cuda::Stream stream;
    Ceilings c;
    c.bytes_per_s = copy_bytes_per_s(device, stream.get());
    c.flops_per_s = gemm_flops_per_s(device, stream.get());
    cuda::check(cudaStreamSynchronize(stream.get()), "measuring the ceilings", device);
    return c;
  });
}

}  // namespace gpumeter
