// What an idle pause before each timed run does to a GEMM ceiling: the best, median and worst
// of ten cuBLAS bf16 GEMMs (4096^3 and 8192^3, random inputs) timed with event pairs, back to
// back and after pauses of 1 to 50 ms. gpumeter's ceilings run their work back to back, as a
// row's iterations run, and take the fastest sample; this program is the evidence for not
// pausing (the clocks fall while the device idles) and for reading "% peak FLOP/s" as relative
// to a sustained GEMM (docs/methodology.md).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "gpumeter-ceiling-pause: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

void check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "gpumeter-ceiling-pause: %s: %s\n", what, cublasGetStatusString(s));
  std::exit(1);
}

constexpr int kWarmupRuns = 3;  // as the ceilings: lifts the clocks from idle
constexpr int kTimedRuns = 10;

void run_size(int n, cublasHandle_t handle) {
  const std::size_t elems = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const std::size_t bytes = elems * sizeof(__nv_bfloat16);
  std::vector<__nv_bfloat16> host(elems);
  unsigned state = 12345u;  // random inputs: constant ones draw less power and hide the cap
  for (auto& v : host) {
    state = state * 1664525u + 1013904223u;
    v = __float2bfloat16(static_cast<float>((state >> 8) & 0xffffu) / 65536.0f - 0.5f);
  }
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  check(cudaMalloc(&c, bytes), "cudaMalloc");
  check(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  const float alpha = 1.0f;
  const float beta = 0.0f;
  auto gemm = [&] {
    check(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, CUDA_R_16BF, n, b,
                       CUDA_R_16BF, n, &beta, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  };
  cudaEvent_t start = nullptr;
  cudaEvent_t end = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");
  const double flops =
      2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  for (const int pause_ms : {0, 1, 2, 5, 10, 20, 50, 0}) {
    for (int i = 0; i < kWarmupRuns; ++i) gemm();
    check(cudaDeviceSynchronize(), "warm-up");
    std::vector<float> ms;
    for (int i = 0; i < kTimedRuns; ++i) {
      if (pause_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
      check(cudaEventRecord(start), "cudaEventRecord");
      gemm();
      check(cudaEventRecord(end), "cudaEventRecord");
      check(cudaEventSynchronize(end), "cudaEventSynchronize");
      float t = 0;
      check(cudaEventElapsedTime(&t, start, end), "cudaEventElapsedTime");
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    auto tflops = [&](float t) { return flops / (static_cast<double>(t) * 1e-3) / 1e12; };
    std::printf("n=%d pause %2d ms: best %.1f TFLOP/s, median %.1f, worst %.1f\n", n, pause_ms,
                tflops(ms.front()), tflops(ms[ms.size() / 2]), tflops(ms.back()));
  }
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(end), "cudaEventDestroy");
  check(cudaFree(a), "cudaFree");
  check(cudaFree(b), "cudaFree");
  check(cudaFree(c), "cudaFree");
}

}  // namespace

int main() {
  cublasHandle_t handle = nullptr;
  check(cublasCreate(&handle), "cublasCreate");
  for (const int n : {4096, 8192}) run_size(n, handle);
  check(cublasDestroy(handle), "cublasDestroy");
  return 0;
}
