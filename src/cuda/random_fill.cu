#include <cuda_bf16.h>
#include <cstddef>
#include <cstdint>

#include "random_fill.hpp"

namespace gpumeter::cuda {
namespace {

// splitmix64: a cheap, well-mixed hash of the element index.
__device__ std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void fill_bf16_kernel(__nv_bfloat16* data, std::size_t count, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const auto bits = static_cast<std::uint32_t>(mix(seed ^ i) >> 40);  // 24 random bits
    const float unit = static_cast<float>(bits) * (1.0f / 16777216.0f);
    data[i] = __float2bfloat16(2.0f * unit - 1.0f);
  }
}

}  // namespace

cudaError_t fill_random_bf16(void* data, std::size_t count, std::uint64_t seed,
                             cudaStream_t stream) {
  fill_bf16_kernel<<<1024, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, seed);
  return cudaGetLastError();
}

}  // namespace gpumeter::cuda
