#pragma once
// A kernel that does nothing, for gpumeter's own probes: what CUPTI records for a launch, and
// what its instrumentation adds to one.
#include <cuda_runtime.h>

namespace gpumeter::cuda {

// One 1-thread block of an empty kernel on `stream`, through the runtime API.
cudaError_t launch_noop(cudaStream_t stream);

}  // namespace gpumeter::cuda
