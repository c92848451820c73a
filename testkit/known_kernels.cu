#include <cstddef>
#include <cstdint>

#include "known_kernels.hpp"

namespace gpumeter::testkit {
namespace {

__device__ __forceinline__ std::uint64_t globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(std::uint64_t ns, std::uint64_t* stamps) {
  const std::uint64_t start = globaltimer();
  std::uint64_t now = start;
  while (now - start < ns) now = globaltimer();
  if (stamps != nullptr) {
    stamps[0] = start;
    stamps[1] = now;
  }
}

__global__ void spin_cycles_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

__global__ void empty_kernel() {}

__global__ void fault_kernel(int* p) {
  *p = 1;
}

__global__ void copy_kernel(const float4* in, float4* out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = in[i];
  }
}

// y = 2x in float4s, grid-stride: examples/time_my_kernel.cu's float4 kernel.
__global__ void scale_float4_kernel(const float4* x, float4* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const float4 v = x[i];
    y[i] = make_float4(2.0f * v.x, 2.0f * v.y, 2.0f * v.z, 2.0f * v.w);
  }
}

}  // namespace

void launch_spin(std::uint64_t ns, std::uint64_t* stamps, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(ns, stamps);
}

void launch_spin_cycles(long long cycles, cudaStream_t stream) {
  spin_cycles_kernel<<<1, 1, 0, stream>>>(cycles);
}

void launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
}

void launch_fault(cudaStream_t stream) {
  fault_kernel<<<1, 1, 0, stream>>>(reinterpret_cast<int*>(std::uintptr_t{0x10}));
}

void launch_invalid_configuration(cudaStream_t stream) {
  empty_kernel<<<1, 4096, 0, stream>>>();
}

void launch_copy(const void* in, void* out, std::size_t n_float4, int blocks, cudaStream_t stream) {
  copy_kernel<<<blocks, 512, 0, stream>>>(static_cast<const float4*>(in), static_cast<float4*>(out),
                                          n_float4);
}

void launch_scale_float4(const void* x, void* y, std::size_t n_float4, cudaStream_t stream) {
  scale_float4_kernel<<<1024, 256, 0, stream>>>(static_cast<const float4*>(x),
                                                static_cast<float4*>(y), n_float4);
}

}  // namespace gpumeter::testkit
