#pragma once
#include <cuda_runtime.h>

#include <cstdint>

// Writes {device ns elapsed, SM cycles elapsed} of a `spin_ns` spin to out[0], out[1].
cudaError_t launch_clock_probe(std::uint64_t spin_ns, unsigned long long* out);
