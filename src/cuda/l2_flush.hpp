#pragma once
// The device-side half of the L2 flush that leaves clean lines (T5).
#include <cuda_runtime.h>

#include <cstddef>

namespace gpumeter::cuda {

// Reads `bytes` at `data` (16-byte aligned, a multiple of 16) with every SM, so that L2 ends
// holding clean lines of this buffer: the measured call then evicts nothing it must write
// back first.
cudaError_t read_through_l2(const void* data, std::size_t bytes, int blocks, cudaStream_t stream);

}  // namespace gpumeter::cuda
