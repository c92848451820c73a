#include <cstddef>
#include <cstdint>

#include "l2_flush.hpp"

namespace gpumeter::cuda {
namespace {

__device__ unsigned int g_never_written;

__global__ void read_lines(const uint4* __restrict__ data, std::size_t n) {
  unsigned int acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // A store the compiler cannot prove dead keeps the loads; the value never matches in
  // practice, and a write would be harmless anyway.
  if (acc == 0x9E3779B9u) g_never_written = acc;
}

}  // namespace

cudaError_t read_through_l2(const void* data, std::size_t bytes, int blocks, cudaStream_t stream) {
  read_lines<<<blocks, 256, 0, stream>>>(static_cast<const uint4*>(data), bytes / 16);
  return cudaGetLastError();
}

}  // namespace gpumeter::cuda
