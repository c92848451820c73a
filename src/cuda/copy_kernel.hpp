#pragma once
// The copy kernel of the bandwidth ceiling (T8): the vectorized grid-stride copy a user would
// write, timed beside cudaMemcpyAsync; the ceiling is the faster of the two.
#include <cuda_runtime.h>

#include <cstddef>

namespace gpumeter::cuda {

// The grid the copy is launched with on `device`: every SM full of its 256-thread blocks (as
// many as the occupancy calculator fits), one wave that strides over the whole buffer.
cudaError_t copy_grid(int device, int* blocks);

// Copies `bytes` (a multiple of 16, both pointers 16-byte aligned) from `src` to `dst` in
// 16-byte loads and stores, `blocks` blocks of 256 threads striding over the buffer.
cudaError_t copy_float4(const void* src, void* dst, std::size_t bytes, int blocks,
                        cudaStream_t stream);

}  // namespace gpumeter::cuda
