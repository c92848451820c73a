#pragma once
// The kernels the CUDA benchmark programs time, behind host functions.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpumeter::bench {

// One block of one thread that does nothing: what a launch costs on the device.
void launch_one_block(cudaStream_t stream);
// One thread spinning on %globaltimer for at least `ns`.
void launch_spin(std::uint64_t ns, cudaStream_t stream);
// out[i] = in[i] over n float4s with `blocks` blocks of 512 threads: bandwidth-bound.
void launch_copy(const void* in, void* out, std::size_t n_float4, int blocks, cudaStream_t stream);

}  // namespace gpumeter::bench
