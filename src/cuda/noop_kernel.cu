#include "noop_kernel.hpp"

namespace gpumeter::cuda {
namespace {

__global__ void noop() {}

}  // namespace

cudaError_t launch_noop(cudaStream_t stream) {
  noop<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

}  // namespace gpumeter::cuda
