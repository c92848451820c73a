#include <cstddef>

#include "copy_kernel.hpp"

namespace gpumeter::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void copy_float4_kernel(const float4* __restrict__ src, float4* __restrict__ dst,
                                   std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    dst[i] = src[i];
  }
}

}  // namespace

cudaError_t copy_grid(int device, int* blocks) {
  int per_sm = 0;
  cudaError_t e =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_float4_kernel, kThreads, 0);
  if (e != cudaSuccess) return e;
  int sms = 0;
  e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) return e;
  *blocks = (per_sm > 0 ? per_sm : 1) * (sms > 0 ? sms : 1);
  return cudaSuccess;
}

cudaError_t copy_float4(const void* src, void* dst, std::size_t bytes, int blocks,
                        cudaStream_t stream) {
  copy_float4_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const float4*>(src),
                                                      static_cast<float4*>(dst), bytes / 16);
  return cudaGetLastError();
}

}  // namespace gpumeter::cuda
