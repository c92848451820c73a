#pragma once
// The clock probe (T14): a one-thread kernel that spins on the GPU's own nanosecond clock
// (%globaltimer) for a set time and writes the clock's reading at its start and at its end, so a
// backend can check the unit of its records of the same kernel against the device's own clock.
#include <cuda_runtime.h>

#include <cstdint>

namespace gpumeter::cuda {

// The kernel's name as CUPTI records it (extern "C": not mangled).
inline constexpr const char* kClockProbeKernelName = "gpumeter_clock_probe";

// Launches the probe on `stream`: it spins at least `ns` nanoseconds of %globaltimer, and until
// %globaltimer reads at least `not_before` (0: no such wait), and writes its first and last
// reading to stamps[0] and stamps[1] (memory the device can write and the host can read after
// synchronizing: mapped pinned memory).
cudaError_t launch_clock_probe(std::uint64_t ns, std::uint64_t not_before, std::uint64_t* stamps,
                               cudaStream_t stream);

}  // namespace gpumeter::cuda
