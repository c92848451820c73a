#pragma once
// Kernels that do nothing, for gpumeter's own probes: what CUPTI records for a launch, what its
// instrumentation adds to one, and the canaries that prove collection was on (ledger.hpp).
#include <cuda_runtime.h>

namespace gpumeter::cuda {

// The canary's name in CUPTI's kernel records (extern "C": not mangled).
inline constexpr const char* kCanaryKernelName = "gpumeter_canary";

// One 1-thread block of an empty kernel on `stream`, through the runtime API.
cudaError_t launch_noop(cudaStream_t stream);

// One 1-thread block of the empty canary kernel on `stream`.
cudaError_t launch_canary(cudaStream_t stream);

}  // namespace gpumeter::cuda
