// Inputs filled on the device (a 1 GB buffer in milliseconds), with the values the host
// recomputes for its references.
#include <algorithm>

#include "common.hpp"

namespace gpumeter_examples {
namespace {

template <typename T>
__global__ void fill_kernel(T* out, std::size_t n, std::uint32_t seed) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    out[i] = static_cast<T>(example_value(i, seed));
  }
}

template <typename T>
void fill(T* out, std::size_t n, std::uint32_t seed, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const auto blocks = static_cast<int>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 4096));
  if (n == 0) return;
  fill_kernel<<<blocks, kThreads, 0, stream>>>(out, n, seed);
  check_launch("fill_kernel");
}

}  // namespace

void fill_values(float* out, std::size_t n, std::uint32_t seed, cudaStream_t stream) {
  fill(out, n, seed, stream);
}

void fill_values(__nv_bfloat16* out, std::size_t n, std::uint32_t seed, cudaStream_t stream) {
  fill(out, n, seed, stream);
}

}  // namespace gpumeter_examples
