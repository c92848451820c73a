// The shortest complete gpumeter benchmark program: two kernels computing y = 2x, each checked
// against the right answer, then timed on the GPU and compared.
// Build: cmake -S . -B build && cmake --build build --target time-my-kernel
// Run:   ./build/examples/time-my-kernel [--out DIR] [--axis n=2^20:2^26:4] [--help]
#include <memory>
#include <vector>

#include "gpumeter/benchmark.hpp"
#include "gpumeter/errors.hpp"

__global__ void scale_naive(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

__global__ void scale_float4(const float4* x, float4* y, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    const float4 v = x[i];
    y[i] = make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
  }
}

void check(cudaError_t e) {
  if (e != cudaSuccess) throw gpumeter::DeviceError(cudaGetErrorName(e));
}

float input(int i) {
  return 1.0f + static_cast<float>(i % 7);  // never zero: timing zeros can flatter a kernel
}

struct Buffers {
  float* x = nullptr;
  float* y = nullptr;
  ~Buffers() {
    (void)cudaFree(x);
    (void)cudaFree(y);
  }
};

void scale(gpumeter::Setup& s) {
  const int n = static_cast<int>(s.get_int("n"));  // a power of two: float4s cover it
  check(cudaSetDevice(s.device()));
  auto b = std::make_shared<Buffers>();  // freed when the case is done with it
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = input(i);
  check(cudaMalloc(&b->x, n * sizeof(float)));
  check(cudaMalloc(&b->y, n * sizeof(float)));
  check(cudaMemcpy(b->x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  s.bytes(2.0 * n * sizeof(float));  // x read once, y written once
  s.implementation("naive", [b, n] {
    scale_naive<<<(n + 255) / 256, 256>>>(b->x, b->y, n);
    check(cudaGetLastError());
  });
  s.implementation("float4", [b, n] {
    scale_float4<<<1024, 256>>>(reinterpret_cast<const float4*>(b->x),
                                reinterpret_cast<float4*>(b->y), n / 4);
    check(cudaGetLastError());
  });
  // Checked before anything is timed: y against 2x. y is read, then set to NaN, so that each
  // implementation's check sees only what it wrote itself.
  s.reference(
      [n] {
        std::vector<double> want(n);
        for (int i = 0; i < n; ++i) want[i] = 2.0 * input(i);
        return want;
      },
      [b, n] {
        std::vector<float> y(n);
        check(cudaMemcpy(y.data(), b->y, n * sizeof(float), cudaMemcpyDeviceToHost));
        check(cudaMemset(b->y, 0xFF, n * sizeof(float)));
        return std::vector<double>(y.begin(), y.end());
      },
      0.0);
}
GPUMETER_BENCHMARK(scale).axis(gpumeter::power_of_two_axis("n", {24}));

GPUMETER_MAIN
