#pragma once
// Kernels with known answers, shared by the GPU tests and the CUDA benchmarks, behind plain
// host functions so their callers are host C++.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gpumeter::testkit {

// One thread spins until %globaltimer has advanced by at least `ns`, and writes the first
// and last readings of that same loop to stamps[0] and stamps[1]: its own measure of how
// long it ran, from the clock whose readings decided when to stop. `stamps` may be null.
void launch_spin(std::uint64_t ns, std::uint64_t* stamps, cudaStream_t stream);

// One thread spins until clock64() has advanced by at least `cycles` SM cycles: a 1-block
// kernel whose length moves in steps far below the 32 ns timestamp tick (one cycle is about
// 0.5 ns at 1980 MHz), for the smallest difference a comparison can see.
void launch_spin_cycles(long long cycles, cudaStream_t stream);

// One block of one thread that does nothing: the shortest kernel there is.
void launch_empty(cudaStream_t stream);

// Writes through a pointer that is not device memory: a sticky cudaErrorIllegalAddress.
void launch_fault(cudaStream_t stream);

// A launch with 4096 threads per block: refused at launch (the error name varies with the
// runtime version), not sticky.
void launch_invalid_configuration(cudaStream_t stream);

// out[i] = in[i] for n float4s, grid-stride over `blocks` blocks of 512 threads: a
// bandwidth-bound kernel.
void launch_copy(const void* in, void* out, std::size_t n_float4, int blocks, cudaStream_t stream);

// y = 2x for n float4s, 1024 blocks of 256 threads striding over them: time-my-kernel's float4
// kernel, the one that read 105% of an event-timed bandwidth ceiling.
void launch_scale_float4(const void* x, void* y, std::size_t n_float4, cudaStream_t stream);

}  // namespace gpumeter::testkit
