#include <cstddef>
#include <cstdint>

#include "bench_kernels.hpp"

namespace gpumeter::bench {
namespace {

__global__ void one_block_kernel() {}

__global__ void spin_kernel(std::uint64_t ns) {
  std::uint64_t start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  std::uint64_t now = start;
  while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
}

__global__ void copy_kernel(const float4* in, float4* out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = in[i];
  }
}

}  // namespace

void launch_one_block(cudaStream_t stream) {
  one_block_kernel<<<1, 1, 0, stream>>>();
}

void launch_spin(std::uint64_t ns, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(ns);
}

void launch_copy(const void* in, void* out, std::size_t n_float4, int blocks, cudaStream_t stream) {
  copy_kernel<<<blocks, 512, 0, stream>>>(static_cast<const float4*>(in), static_cast<float4*>(out),
                                          n_float4);
}

}  // namespace gpumeter::bench
