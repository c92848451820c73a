// The device's measured ceilings for the roofline columns (T8), timed like the rows they
// divide: each piece of ceiling work is measured by the core's measure() through the backend
// that times the rows (CUPTI's device_busy, or the CUDA-events fallback, or the synchronized
// wall clock), so the same attribution, L2 flush, default budget and statistic apply. What becomes
// of the samples (the fastest, kCeilingRule) is the core's rule (src/core/ceilings.cpp).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <cstddef>

#include <algorithm>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "copy_kernel.hpp"
#include "cuda_process.hpp"
#include "cuda_util.hpp"
#include "device.hpp"
#include "gpumeter/cuda.hpp"
#include "gpumeter/detail/ceilings.hpp"
#include "gpumeter/errors.hpp"
#include "gpumeter/measure.hpp"
#include "random_fill.hpp"

namespace gpumeter {
namespace {

// Each copy buffer is far larger than any L2 (60 MB on the H200), so the copy streams from and
// to device memory, as a row's large copy does.
constexpr std::size_t kCopyBytes = std::size_t{512} << 20;
// A GEMM big enough to reach the matrix units' steady state (about 1.1 TFLOP per call).
constexpr int kGemmSize = 8192;
// cuBLAS's workspace, given explicitly so that no timed call allocates one; 32 MiB is NVIDIA's
// recommendation for Hopper.
constexpr std::size_t kGemmWorkspaceBytes = std::size_t{32} << 20;
// The work runs on the legacy default stream: the events fallback brackets it there, and CUPTI
// attributes it by the launching thread whatever the stream.
const cudaStream_t kStream = cudaStreamLegacy;

// cuBLAS, loaded when the matrix ceiling is first measured rather than linked: a program that
// does not call cuBLAS itself neither loads it at start (hundreds of MB) nor fails to start
// where it is not installed. Only the calls the ceiling makes; their types are the header's.
struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetWorkspace_v2) set_workspace = nullptr;
  // cublasGemmEx is overloaded in C++ (a wrapper taking the older cudaDataType compute type):
  // the library's own symbol.
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                            int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                            cublasGemmAlgo_t) = nullptr;
  decltype(&cublasGetStatusName) status_name = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

// The library, once per process; throws DeviceError naming what could not be loaded (the
// ceilings are then not measured, and the record says why).
const CublasApi& cublas_api() {
  static std::once_flag once;
  static CublasApi api;
  static std::string problem;
  std::call_once(once, [] {
    void* lib = nullptr;
    std::string tried;
    for (const char* path : {GPUMETER_CUBLAS_SONAME, GPUMETER_CUBLAS_LIBRARY_PATH}) {
      if (*path == '\0') continue;
      // Kept loaded: cuBLAS keeps state for the device it ran on.
      lib = ::dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
      if (lib != nullptr) break;
      const char* why = ::dlerror();
      tried += std::string(tried.empty() ? "" : "; ") + (why != nullptr ? why : path);
    }
    if (lib == nullptr) {
      problem = "the matrix ceiling needs cuBLAS, which cannot be loaded (" + tried + ")";
      return;
    }
    const auto load = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
      if (fn == nullptr) problem += std::string(problem.empty() ? "" : ", ") + name;
    };
    load(api.create, "cublasCreate_v2");
    load(api.destroy, "cublasDestroy_v2");
    load(api.set_stream, "cublasSetStream_v2");
    load(api.set_workspace, "cublasSetWorkspace_v2");
    load(api.gemm_ex, "cublasGemmEx");
    load(api.status_name, "cublasGetStatusName");
    load(api.status_string, "cublasGetStatusString");
    if (!problem.empty()) problem = "the loaded cuBLAS does not export " + problem;
  });
  if (!problem.empty()) throw DeviceError(problem);
  return api;
}

void check_cublas(cublasStatus_t s, const char* what, int device) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  const CublasApi& api = cublas_api();
  throw DeviceError(std::string(what) + " on CUDA device " + std::to_string(device) +
                    " failed: " + api.status_name(s) + " (" + api.status_string(s) + ")");
}

class CublasHandle {
 public:
  explicit CublasHandle(int device) {
    check_cublas(cublas_api().create(&handle_), "cublasCreate", device);
  }
  ~CublasHandle() { (void)cublas_api().destroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

// One piece of ceiling work measured as a row is: calibration, warm-up and the rows' default
// budget of measured iterations, each one flushed and attributed like a row's.
CeilingRun measured_run(Backend& backend, CeilingKind kind, std::string work, double per_call,
                        const Call& call, bool count_copies) {
  MeasureOptions options;
  options.budget = kMeasureBudget;
  options.count_copies = count_copies;  // a cudaMemcpyAsync is a copy, not a kernel (T7)
  options.read_clocks = false;
  const Measurement m = measure(backend, call, options);
  CeilingRun run;
  run.kind = kind;
  run.work = std::move(work);
  run.per_call = per_call;
  for (const Sample& s : m.samples) run.samples_ns.push_back(s.device_busy_ns);
  if (run.samples_ns.empty() ||
      *std::min_element(run.samples_ns.begin(), run.samples_ns.end()) <= 0) {
    throw DeviceError("the ceiling run '" + run.work + "' on CUDA device " +
                      std::to_string(backend.device().index) + " took no measurable time");
  }
  return run;
}

// The copy kernel's output, checked once before it is timed: its first and last 4 KiB hold
// the source's bytes (a grid or bound that missed part of the buffer would overstate the
// ceiling).
void check_copy(const cuda::DeviceBuffer& dst, unsigned char value, int device) {
  constexpr std::size_t kChecked = 4096;
  std::vector<unsigned char> head(kChecked);
  std::vector<unsigned char> tail(kChecked);
  const auto* d = static_cast<const unsigned char*>(dst.get());
  cuda::check(cudaMemcpy(head.data(), d, kChecked, cudaMemcpyDeviceToHost), "reading the copy",
              device);
  cuda::check(cudaMemcpy(tail.data(), d + dst.bytes() - kChecked, kChecked, cudaMemcpyDeviceToHost),
              "reading the copy", device);
  const auto wrong = [value](unsigned char b) { return b != value; };
  if (std::any_of(head.begin(), head.end(), wrong) ||
      std::any_of(tail.begin(), tail.end(), wrong)) {
    throw DeviceError("the bandwidth ceiling's copy kernel on CUDA device " +
                      std::to_string(device) + " did not copy its buffer; no ceiling is given");
  }
}

// The bandwidth ceiling's candidates: the two copies a user would write, device-to-device
// cudaMemcpyAsync and a 16-byte grid-stride kernel. Which is faster depends on the device and
// the driver's copy: a ceiling below a kernel a user writes would make that kernel read above
// 100% of "peak".
void copy_runs(Backend& backend, int device, std::vector<CeilingRun>& runs) {
  constexpr unsigned char kValue = 0x5a;
  cuda::DeviceBuffer src(kCopyBytes, device);
  cuda::DeviceBuffer dst(kCopyBytes, device);
  cuda::check(cudaMemsetAsync(src.get(), kValue, kCopyBytes, kStream), "cudaMemsetAsync", device);
  cuda::check(cudaMemsetAsync(dst.get(), 0, kCopyBytes, kStream), "cudaMemsetAsync", device);
  int blocks = 0;
  cuda::check(cuda::copy_grid(device, &blocks), "sizing the copy kernel's grid", device);
  cuda::check(cuda::copy_float4(src.get(), dst.get(), kCopyBytes, blocks, kStream),
              "the copy kernel", device);
  cuda::check(cudaStreamSynchronize(kStream), "the copy kernel", device);
  check_copy(dst, kValue, device);

  const double per_call = 2.0 * static_cast<double>(kCopyBytes);  // read + written
  const std::string size = std::to_string(kCopyBytes >> 20) + " MiB";
  runs.push_back(measured_run(backend, CeilingKind::bytes_per_s,
                              "cudaMemcpyAsync device to device, " + size, per_call,
                              Call{[&] {
                                     cuda::check(cudaMemcpyAsync(dst.get(), src.get(), kCopyBytes,
                                                                 cudaMemcpyDeviceToDevice, kStream),
                                                 "cudaMemcpyAsync", device);
                                   },
                                   {}},
                              /*count_copies=*/true));
  runs.push_back(measured_run(backend, CeilingKind::bytes_per_s,
                              "float4 grid-stride copy kernel (" + std::to_string(blocks) +
                                  " blocks of 256 threads), " + size,
                              per_call,
                              Call{[&] {
                                     cuda::check(cuda::copy_float4(src.get(), dst.get(), kCopyBytes,
                                                                   blocks, kStream),
                                                 "the copy kernel", device);
                                   },
                                   {}},
                              /*count_copies=*/false));
}

// The matrix ceiling: a bf16 cuBLAS GEMM on random data (zeros would draw less power and let
// the clocks run higher than real data allows), fp32 accumulation.
void gemm_run(Backend& backend, int device, std::vector<CeilingRun>& runs) {
  const auto n = static_cast<std::size_t>(kGemmSize);
  const std::size_t bytes = n * n * sizeof(__nv_bfloat16);
  cuda::DeviceBuffer a(bytes, device);
  cuda::DeviceBuffer b(bytes, device);
  cuda::DeviceBuffer c(bytes, device);
  cuda::DeviceBuffer workspace(kGemmWorkspaceBytes, device);
  cuda::check(cuda::fill_random_bf16(a.get(), n * n, 1, kStream), "filling A", device);
  cuda::check(cuda::fill_random_bf16(b.get(), n * n, 2, kStream), "filling B", device);
  cuda::check(cudaStreamSynchronize(kStream), "filling the GEMM's inputs", device);
  const CublasApi& cublas = cublas_api();
  CublasHandle handle(device);
  check_cublas(cublas.set_stream(handle.get(), kStream), "cublasSetStream", device);
  check_cublas(cublas.set_workspace(handle.get(), workspace.get(), workspace.bytes()),
               "cublasSetWorkspace", device);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const double flops =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  runs.push_back(measured_run(
      backend, CeilingKind::flops_per_s,
      "cublasGemmEx bf16 " + std::to_string(kGemmSize) + "^3, fp32 accumulation, random data",
      flops,
      Call{[&] {
             check_cublas(
                 cublas.gemm_ex(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, kGemmSize, kGemmSize,
                                kGemmSize, &alpha, a.get(), CUDA_R_16BF, kGemmSize, b.get(),
                                CUDA_R_16BF, kGemmSize, &beta, c.get(), CUDA_R_16BF, kGemmSize,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx (bf16)", device);
           },
           {}},
      /*count_copies=*/false));
}

}  // namespace

Ceilings measure_ceilings(Backend& backend) {
  const DeviceIdentity where = backend.device();
  if (where.kind != "cuda") {
    throw ConfigError("the ceilings are measured on a CUDA device, and this backend times " +
                      where.kind + " work");
  }
  const int device = where.index;
  // Once per process for each device and way of timing: a ceiling timed another way would not
  // divide these rows.
  const std::string timed_by =
      std::string(to_string(backend.method())) + ", L2 flush " + backend.l2_flush_mode();
  return cuda::CudaProcess::instance().ceilings(device, timed_by, [&backend, device] {
    cuda::open_device(device);
    cuda::check(cudaDeviceSynchronize(), "waiting for the device before the ceilings", device);
    std::vector<CeilingRun> runs;
    copy_runs(backend, device, runs);
    gemm_run(backend, device, runs);  // last: its power draw can cap the clocks for a while
    cuda::check(cudaDeviceSynchronize(), "measuring the ceilings", device);
    return ceilings_from_runs(backend.method(), std::move(runs));
  });
}

}  // namespace gpumeter
