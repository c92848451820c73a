#pragma once
// Device-side fill with pseudo-random values, for the ceiling GEMM: zeros would draw less
// power and let the clocks run higher than real data allows, overstating the ceiling.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpumeter::cuda {

// Fills `count` bf16 values at `data` with values in [-1, 1), reproducible from `seed`.
cudaError_t fill_random_bf16(void* data, std::size_t count, std::uint64_t seed,
                             cudaStream_t stream);

}  // namespace gpumeter::cuda
