#include "noop_kernel.hpp"

// Its own name, so a record of it cannot be mistaken for the call's work or another probe.
extern "C" __global__ void gpumeter_canary() {}

namespace gpumeter::cuda {
namespace {

__global__ void noop() {}

}  // namespace

cudaError_t launch_noop(cudaStream_t stream) {
  noop<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_canary(cudaStream_t stream) {
  gpumeter_canary<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

}  // namespace gpumeter::cuda
